"""SGLang 0.5.22 and 0.5.23, read in their PyPI wheels (task h41sgl523): the default version, the
note for a newer one, and the one change that moves a pool: from 0.5.22 the tier's decode CUDA
graph batch size is capped at a stated --max-running-requests before the reserve is computed
(sglang/srt/arg_groups/memory_hook.py:182-188 in the 0.5.22 and 0.5.23 wheels; 0.5.21 has no
such cap). Everything else kvplan models reads the same in 0.5.21, 0.5.22 and 0.5.23 (the tiers
memory_hook.py:88-169 / :89-170, the reserve :302-318 / :311-327 / :309-325, the profile
kv_cache_configurator.py `rest_memory = available - pre_model_load x (1 - fraction)`, the MHA
cell n x (head_dim + v_head_dim) x layers x bytes in pool_configurator.py :406 / :465 / :492).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest
from kvplan.deploy.schema import ATTENTION_BACKENDS
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.sglang import NEWEST_KNOWN, newer_note
from kvplan.engines.sglang_backend import prefill_graphs
from kvplan.engines.sglang_defaults import (
    DEFAULT_VERSION,
    decode_graph_bs,
    default_fraction,
    gpu_tier,
)
from kvplan.specs import load_hardware, load_model

H100 = load_hardware("h100")  # nvidia-smi 81,559 MiB


def req(name: str = "llama-3.1-8b", gpu: str | None = None) -> SizeRequest:
    return SizeRequest(model=load_model(name), gpu=load_hardware(gpu) if gpu else H100,
                       context_tokens=8192)


def sglang(version: str | None = None, **kw: object) -> EngineSettings:
    return EngineSettings(engine=Engine.sglang, version=version, **kw)  # type: ignore[arg-type]


def test_the_default_is_pypis_newest_release() -> None:
    """`pip index versions sglang` lists 0.5.23 as the newest; its wheel was read."""
    assert DEFAULT_VERSION == "0.5.23" and NEWEST_KNOWN == (0, 5, 23)
    assert run_engine(req(), sglang()).engine_version == "0.5.23"


@pytest.mark.parametrize("version", ["0.5.24", "0.6.0", "1.0"])
def test_a_newer_release_is_modelled_as_0523_with_a_note(version: str) -> None:
    """0.5.24 (a patch release past the newest read) is noted too, not only a new minor."""
    note = f"SGLang {version} is newer than the newest modelled release (0.5.23): modelled as 0.5.23"
    assert newer_note(version) == note
    res = run_engine(req(), sglang(version))
    assert note in res.assumptions
    # the same pool as 0.5.23: H100 default 0.83, 412,841 tokens (test_engines_sglang.py)
    assert res.kv_cache_tokens == run_engine(req(), sglang("0.5.23")).kv_cache_tokens == 412_841


@pytest.mark.parametrize("version", ["0.5.21", "0.5.22", "0.5.23", "0.5.23.post1", "0.5"])
def test_read_releases_carry_no_note(version: str) -> None:
    assert newer_note(version) is None
    assert not any("newer than" in a for a in run_engine(req(), sglang(version)).assumptions)


@pytest.mark.parametrize(("version", "gpu_mib", "running", "stated", "fraction"), [
    # H100 (81,559 MiB), tier 60-90 GiB: chunk 8,192, decode batch 256; tp 1; 58 prefill graph
    # sizes up to 8,192 tokens x 8 MiB = 464 MiB.
    # 0.5.21: 512 + 1.5 x 8,192 + 2 x 256 + 1,024 / 8 + 464 = 13,904: 67,655 / 81,559 = 0.82952
    ("0.5.21", 81_559, 5, None, "0.83"),
    # 0.5.22 caps the batch at 5: 512 + 12,288 + 10 + 128 + 464 = 13,402: 68,157 / 81,559 = 0.83568
    ("0.5.22", 81_559, 5, None, "0.836"),
    ("0.5.23", 81_559, 5, None, "0.836"),
    # a stated --cuda-graph-max-bs is not capped (decode_max_bs_is_default, memory_hook.py:83)
    ("0.5.23", 81_559, 5, 256, "0.83"),
    # a --max-running-requests above the tier's 256 changes nothing: 0.83
    ("0.5.23", 81_559, 512, None, "0.83"),
    # RTX 4090 (24,564 MiB), tier 20-35 GiB: chunk 4,096, batch 48; 50 prefill sizes x 8 = 400.
    # 0.5.21: 512 + 6,144 + 96 + 128 + 400 = 7,280: 17,284 / 24,564 = 0.70363
    ("0.5.21", 24_564, 16, None, "0.704"),
    # 0.5.23 at 16: 512 + 6,144 + 32 + 128 + 400 = 7,216: 17,348 / 24,564 = 0.70624
    ("0.5.23", 24_564, 16, None, "0.706"),
])
def test_max_running_requests_caps_the_default_decode_graph_batch_from_0522(
        version: str, gpu_mib: int, running: int, stated: int | None, fraction: str) -> None:
    got = default_fraction(1, version, gpu_mib, cuda_graph_max_bs=stated, prefill_graphs="tokens",
                           max_running_requests=running)
    assert got == Fraction(fraction)


def test_the_cap_under_the_10_gib_floor_moves_nothing() -> None:
    """H100 with a stated 2,048-token chunk: 512 + 3,072 + 2 x 256 + 128 + 42 prefill sizes
    (up to 2,048) x 8 = 4,560 MiB, under the 10,240 MiB floor (memory_hook.py:315 in 0.5.23);
    capped at 5 it is 4,058, still under it: (81,559 - 10,240) / 81,559 = 0.87445 either way."""
    for running in (None, 5):
        assert default_fraction(1, "0.5.23", 81_559, chunked_prefill_size=2048,
                                prefill_graphs="tokens",
                                max_running_requests=running) == Fraction(874, 1000)


def test_decode_graph_bs() -> None:
    tier = gpu_tier("0.5.23", 81_559, 1)
    assert decode_graph_bs("0.5.23", tier, None, 5) == (5, True)
    assert decode_graph_bs("0.5.22", tier, None, 5) == (5, True)
    assert decode_graph_bs("0.5.21", tier, None, 5) == (256, False)
    assert decode_graph_bs("0.5.23", tier, 64, 5) == (64, False)  # stated: as given
    assert decode_graph_bs("0.5.23", tier, None, 256) == (256, False)  # not above: no cap
    assert decode_graph_bs("0.5.23", tier, None, None) == (256, False)


def test_the_pool_moves_with_the_cap_on_one_h100() -> None:
    """Llama-3.1-8B on one H100, --max-running-requests 5. Free before weights 85,045,477,376 -
    400 MiB = 84,626,046,976; free after the weights (16,127,631,360) 68,498,415,616; cell
    32 x 8 x 256 x 2 B = 131,072.
    0.5.21: fraction 0.83: held back floor(84,626,046,976 x 0.17) = 14,386,427,985; KV
      54,111,987,631 // 131,072 = 412,841 tokens.
    0.5.23: fraction 0.836: held back floor(84,626,046,976 x 0.164) = 13,878,671,704; KV
      54,619,743,912 // 131,072 = 416,715 tokens. Both serve 5 users."""
    old = run_engine(req(), sglang("0.5.21", max_running_requests=5))
    new = run_engine(req(), sglang("0.5.23", max_running_requests=5))
    assert (old.kv_cache_tokens, new.kv_cache_tokens) == (412_841, 416_715)
    assert old.size.users_per_replica == new.size.users_per_replica == 5
    assert ("default mem_fraction_static: cuda_graph_max_bs 5 (the tier's 256 capped at "
            "--max-running-requests, SGLang 0.5.22 on: arg_groups/memory_hook.py "
            "handle_gpu_memory_settings)") in new.assumptions
    assert not any("the tier's 256 capped" in a for a in old.assumptions)
    # a stated fraction: no default, no cap named
    stated = run_engine(req(), sglang("0.5.23", max_running_requests=5,
                                      memory_fraction=Fraction(83, 100)))
    assert stated.kv_cache_tokens == 412_841
    assert not any("the tier's 256 capped" in a for a in stated.assumptions)


def test_tiers_of_0522_and_0523_are_0520s() -> None:
    for version in ("0.5.22", "0.5.23"):
        tier = gpu_tier(version, 24_564, 1)
        assert tier is not None
        assert (tier.series, tier.chunked_prefill_size, tier.cuda_graph_max_bs) == (
            "0.5.20-0.5.23", 4096, 48)


def test_no_prefill_graphs_off_cuda_says_why_by_release() -> None:
    """0.5.21 defaults the prefill graphs to tc_piecewise off CUDA and switches it off on HIP;
    0.5.22 drops tc_piecewise and defaults to DISABLED there (cuda_graph_config.py:123)."""
    amd = req(gpu="mi300x")
    assert prefill_graphs(amd, "0.5.21") == (
        None, "no prefill CUDA graphs off CUDA (tc_piecewise is switched off on ROCm)")
    for version in ("0.5.22", "0.5.23"):
        assert prefill_graphs(amd, version) == (
            None, "no prefill CUDA graphs off CUDA (prefill graphs are opt-in there)")
    # 0.5.23 raises an MLA model's prefill max_bs to min(8,192, chunk), but its reserve stays
    # the flat 1.5 GiB (memory_hook.py:389)
    assert prefill_graphs(req("deepseek-v2-lite"), "0.5.23")[0] == "mla"


def test_0522s_attention_backend_is_accepted() -> None:
    """choices.py:83 in the 0.5.22 and 0.5.23 wheels adds llada2_cfg_flashinfer."""
    assert "llada2_cfg_flashinfer" in ATTENTION_BACKENDS
    assert "tokenspeed_mla" in ATTENTION_BACKENDS  # 0.5.23: a deprecated alias, still accepted
