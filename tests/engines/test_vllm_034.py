"""vLLM 0.34.0, read in its wheel and made the default (issue #13, task h41v034).

0.34's extensible KV cache (on by default on CUDA and ROCm, config/vllm.py:3180-3263) sizes the
pool after warm-up: available = min(requested - non-KV use, free at start-up - non-KV use -
margin) - transient peak, margin = max(1 GiB, 0.75 x transient peak)
(v1/worker/extensible_kv_cache.py:592-618, :64-65), requested = ceil(total x utilization) with
the utilization 1.0 by default (config/cache.py:494-501). kvplan books it as
min(requested memory, GPU memory - CUDA context - margin) less its usual non-KV terms
(kvplan.engines.vllm_extensible). Every expected value below is worked by hand.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineResult, EngineSettings, run_engine, verify_steps
from kvplan.engines.vllm_extensible import BLOCK_64_NOTE, EXTENSIBLE_NOTE, headroom, margin
from kvplan.engines.vllm_series import DEFAULT_VERSION, flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB

# Llama-3.1-8B on an H100 SXM 80GB at 131,072 tokens, the serve defaults (8,192 batched tokens,
# 1,024 sequences): the terms every release from 0.33 books alike.
TOTAL = 85_045_477_376  # h100-sxm-80gb total memory
WEIGHTS = 16_094_076_928  # 8,030,261,248 params x 2 B + rotary 131,072 x 128 x 2 B (33,554,432)
ACT = 1_838_678_016  # sampler 1,024 rows x 128,256 vocab x 14 B (0.33's warm-up pass)
NON_TORCH = 73_400_320  # 70 MiB, the one-GPU growth term
STATE = 576_630_784  # 1,024 x (128,256 + 2 x 4,008 + 4,481) x 4 B + 8,192 x 13 B
# kvplan's CUDA-graph term by the capture sizes (task h43graphs; the flat 536,870,912 before):
# 1,024 sequences on an H100 -> 102 graphs x 32 layers x 235,929 B
# 102 graphs in 2 modes: a first capture + 100 later x 32 layers x 89,653 B (task h44graphbase;
# 102 x 32 x 235,929 = 770,072,256 until then)
GRAPHS = 358_612_992 + 100 * 32 * 89_653  # 645,502,592
CONTEXT = 293_601_280  # 280 MiB: NON_TORCH_V0 350 MiB - NON_TORCH_V1 70 MiB


def llama(version: str | None, **settings: object) -> EngineResult:
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("h100-sxm-80gb"),
                      context_tokens=131_072)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version=version,
                                       **settings))  # type: ignore[arg-type]
    assert verify_steps(r.steps) == []
    return r


def step(r: EngineResult, label: str) -> Fraction:
    return next(s.value for s in r.steps if s.label == label)


def test_default_version_is_0_34_0() -> None:
    """PyPI's newest vLLM, read in its wheel: the default, modelled as its own series, no note."""
    fl = flavour(None)
    assert DEFAULT_VERSION == "0.34.0"
    assert (fl.version, fl.series, fl.note, fl.extensible_kv) == ("0.34.0", "0.34", None, True)
    assert llama(None).engine_version == "0.34.0"


def test_newer_release_uses_the_0_34_series_with_a_note() -> None:
    """0.35.0 is unread: the newest known series (0.34), and the note says so."""
    fl = flavour("0.35.0")
    assert fl.series == "0.34" and fl.extensible_kv
    assert fl.note == ("vLLM 0.35.0 is newer than the newest modelled release (0.34.0): "
                       "modelled as the 0.34 series")
    assert fl.note in llama("0.35.0").size.assumptions
    assert flavour("0.34.1").note is None  # a patch release of the newest read series


def test_0_33_is_not_extensible() -> None:
    """0.33.0's pool is sized from the profile (no extensible cache; config/cache.py in 0.33.0
    has no enable_extensible_kv_cache field)."""
    assert not flavour("0.33.0").extensible_kv
    assert flavour("0.33.0").series == "0.33"


def test_margin_and_headroom() -> None:
    """margin = max(1 GiB, int(0.75 x peak)) (extensible_kv_cache.py:615; 3 GiB on ROCm, :64):
    peak 1,838,678,016 -> 1,379,008,512 (> 1,073,741,824); peak 500 MiB -> 393,216,000 < 1 GiB
    -> 1 GiB; ROCm, peak 0 -> 3 GiB. Headroom = 85,045,477,376 - 293,601,280 (context) -
    1,379,008,512 = 83,372,867,584."""
    assert margin(ACT) == 1_379_008_512
    assert margin(500 * MIB) == GIB
    assert margin(0, rocm=True) == 3 * GIB
    assert headroom(TOTAL, ACT) == 83_372_867_584


def test_default_pool_is_capped_by_the_device_headroom() -> None:
    """At 0.34's default utilization 1.0: requested = 85,045,477,376 > headroom 83,372,867,584,
    so the budget is the headroom; KV = 83,372,867,584 - 16,094,076,928 - 1,838,678,016 -
    73,400,320 - 576,630,784 - 645,502,592 = 64,144,578,944 B; blocks = floor(64,144,578,944 /
    2,097,152 (16 tokens x 32 layers x 4,096 B)) = 30,586 (30,586 x 2,097,152 =
    64,143,491,072). (64,020,009,280 B, 30,527 blocks with task h43graphs' 770,072,256 B.)"""
    r = llama("0.34.0")
    assert step(r, "gpu_memory_utilization") == 1
    assert step(r, "requested memory") == TOTAL
    assert step(r, "CUDA context") == CONTEXT
    assert step(r, "warm-up margin") == 1_379_008_512
    assert step(r, "device headroom") == 83_372_867_584
    assert step(r, "KV sizing budget") == 83_372_867_584
    assert (r.weights_bytes, r.activation_bytes, r.non_torch_bytes, r.cuda_graph_bytes) == (
        WEIGHTS, ACT, NON_TORCH, GRAPHS)
    assert step(r, "Model Runner V2 state") == STATE
    assert r.kv_cache_bytes == 64_144_578_944
    assert r.blocks == 30_586
    assert r.requested_bytes == 83_372_867_584
    assert EXTENSIBLE_NOTE in r.size.assumptions
    assert BLOCK_64_NOTE.format(block=16) in r.size.assumptions


def test_stated_utilization_binds_below_the_headroom() -> None:
    """At 0.9: requested = floor(85,045,477,376 x 0.9) = 76,540,929,638 < 83,372,867,584, so
    the budget is the requested memory and the pool is 0.33's: 76,540,929,638 - 16,094,076,928
    - 1,838,678,016 - 73,400,320 - 576,630,784 - 645,502,592 = 57,312,640,998 B."""
    r = llama("0.34.0", memory_fraction=Fraction(9, 10))
    assert step(r, "KV sizing budget") == 76_540_929_638
    assert r.kv_cache_bytes == 57_312_640_998
    assert llama("0.33.0", memory_fraction=Fraction(9, 10)).kv_cache_bytes == 57_312_640_998


def test_stated_pool_skips_the_extensible_sizing() -> None:
    """--kv-cache-memory-bytes turns the extensible cache off (config/vllm.py:3203-3207) and
    the pool is the stated bytes: no headroom steps."""
    r = llama("0.34.0", kv_cache_memory_bytes=40 * GIB)
    assert r.kv_cache_bytes == 42_949_672_960
    assert not any(s.label in ("device headroom", "KV sizing budget") for s in r.steps)


def test_0_33_default_pool_unchanged() -> None:
    """0.33.0 at its own default, 0.92 (config/cache.py:215 in 0.33.0; 0.92 from 0.20.0), is
    sized from the profile, with no headroom steps: the 0.34 change does not reach 0.33.
    requested = floor(85,045,477,376 x 92 / 100) = floor(78,241,839,185.92) = 78,241,839,185;
    KV = 78,241,839,185 - 16,094,076,928 - 1,838,678,016 - 73,400,320 - 576,630,784 -
    645,502,592 = 78,241,839,185 - 19,228,288,640 = 59,013,550,545 B (57,312,640,998 at 0.9,
    the figure above)."""
    r = llama("0.33.0")
    assert step(r, "gpu_memory_utilization") == Fraction(92, 100)
    assert step(r, "requested memory") == 78_241_839_185
    assert r.kv_cache_bytes == 59_013_550_545
    assert not any(s.label == "device headroom" for s in r.steps)
