"""Engine and fix paths off the H100: vLLM's A100 exception and group sizes, a stated budget,
SGLang's memory tiers, and the fp8 KV fix only where the GPU has fp8."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.sglang import default_fraction
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import LayerKind, ModelSpec
from kvplan.units import GIB, DType


def _vllm(gpu: str, model: ModelSpec | None = None, version: str = "0.10.2", **kw):  # noqa: ANN202
    req = SizeRequest(model=model or load_model("llama-3-8b"), gpu=load_hardware(gpu),
                      context_tokens=kw.pop("ctx", 8192), kv_dtype=DType.bf16, **kw)
    return run_engine(req, EngineSettings(engine=Engine.vllm, version=version))


def _step(result, label: str) -> Fraction:  # noqa: ANN001
    (step,) = [s for s in result.steps if s.label == label]
    return Fraction(step.value)


# vLLM V1 `vllm serve` defaults, vllm-project/vllm vllm/engine/arg_utils.py
# (EngineArgs batch defaults, NOTE(Kuntai), PR #17885):
#   if device_memory >= 70 * GiB_bytes and "a100" not in device_name:
#       OPENAI_API_SERVER: max_num_batched_tokens 8192, max_num_seqs 1024
#   else: 2048 and 256
@pytest.mark.parametrize(("gpu", "batched", "seqs"), [
    ("a100-80gb", "2,048", "256"),  # 79.3 GiB but an A100: the small defaults
    ("a100-40gb", "2,048", "256"),
    ("h100", "8,192", "1,024"),  # 79.2 GiB, not an A100
    ("h200", "8,192", "1,024"),
    ("l40s", "2,048", "256"),  # 44.4 GiB < 70 GiB
])
def test_vllm_v1_batching_defaults_keep_the_a100_exception(gpu: str, batched: str, seqs: str):
    result = _vllm(gpu)
    assert f"profiled with max_num_batched_tokens {batched} and max_num_seqs {seqs}" in (
        result.assumptions)


def test_vllm_v0_batching_defaults_ignore_the_gpu():
    # V0: max(max_model_len, 2048) tokens (8,192 here) and 256 sequences, any GPU
    for gpu in ("a100-80gb", "h100"):
        result = _vllm(gpu, version="0.6.4")
        assert "profiled with max_num_batched_tokens 8,192 and max_num_seqs 256" in (
            result.assumptions)


def _hybrid(full: int, sliding: int) -> ModelSpec:
    """A test spec: Llama-3-8B's shapes with `full` full and `sliding` sliding-window layers."""
    llama = load_model("llama-3-8b")
    pattern = [LayerKind.full] * full + [LayerKind.sliding] * sliding
    return llama.model_copy(update={
        "name": f"hybrid-{full}-{sliding}-test",
        "num_layers": full + sliding,
        "attention": llama.attention.model_copy(
            update={"layer_pattern": pattern, "sliding_window_tokens": 1024}),
    })


# vllm-project/vllm vllm/v1/core/kv_cache_utils.py (_get_kv_cache_groups_uniform_page_size):
#   group_size = min_num_layers
#   if max_num_layers < min_num_layers * 1.5: group_size = max_num_layers
#   groups per type = cdiv(len(layers), group_size)
@pytest.mark.parametrize(("full", "sliding", "size", "groups"), [
    (2, 3, 2, 3),  # 3 < 3.0 is false: size 2; cdiv(2,2) + cdiv(3,2) = 1 + 2 groups
    (4, 5, 5, 2),  # 5 < 6.0: size 5; 1 + 1 groups (one padding layer)
    (12, 13, 13, 2),  # vLLM's own example (gpt-oss-20b + eagle): pad to 13 + 13
    (10, 50, 10, 6),  # Gemma-3-like 5:1: size 10; 1 + 5 groups
    (6, 8, 8, 2),  # 8 < 9.0: size 8
    (6, 9, 6, 3),  # 9 < 9.0 is false: size 6; 1 + 2 groups
])
def test_vllm_group_size_boundary_at_one_and_a_half(full: int, sliding: int, size: int,
                                                     groups: int):
    result = _vllm("h100", _hybrid(full, sliding), ctx=4096)
    assert _step(result, "layers per block") == size
    assert _step(result, "KV cache groups") == groups


def test_vllm_with_a_stated_kv_budget():
    # --kv-budget-gib 10 is vLLM's --kv-cache-memory: the pool is 10 GiB whatever the GPU.
    # Llama-3-8B bf16, 16-token blocks: 16 x 32 layers x 2 x 8 heads x 128 x 2 B = 2,097,152 B
    # per block; 10 GiB / 2 MiB = 5,120 blocks = 81,920 tokens; one 8,192-token request needs
    # 512 blocks: maximum concurrency 5,120 / 512 = 10 users
    for gpu in ("h100", "a100-80gb"):
        result = _vllm(gpu, kv_budget_bytes=10 * GIB)
        assert result.kv_cache_bytes == 10 * GIB
        assert result.blocks == 5_120
        assert result.kv_cache_tokens == 81_920
        assert result.max_concurrency == 10
        assert result.size.users_per_replica == 10


# SGLang's mem_fraction_static default, sgl-project/sglang python/sglang/srt/server_args.py
# (_handle_gpu_memory_settings, PR #10975), in MiB:
#   reserved = 512 + max(chunked_prefill_size, 2048) x 1.5 + cuda_graph_max_bs x 2
#              + tp x pp / 8 x 1024, at least 10,240 above 60 GiB;
#   fraction = round((gpu_mem - reserved) / gpu_mem, 3)
# Worked for the 0.5.5-0.5.19 table (the 0.5.12 wheel; 0.5.3-0.5.4 and 0.5.20 on differ only in
# the 20-35 GiB tier: tests/engines/test_sglang_tiers.py).
@pytest.mark.parametrize(("gpu_mib", "tp", "fraction"), [
    # < 20 GiB: chunk 2048, bs 8: 512 + 3,072 + 16 + 128 = 3,728; 12,656 / 16,384 = 0.7725
    # (0.77246...) -> 0.772
    (16_384, 1, "0.772"),
    # < 35 GiB, tp < 4: bs 24: 512 + 3,072 + 48 + 128 = 3,760; 20,816 / 24,576 = 0.84701
    (24_576, 1, "0.847"),
    # < 35 GiB, tp 4: bs 80: 512 + 3,072 + 160 + 512 = 4,256; 20,320 / 24,576 = 0.82682
    (24_576, 4, "0.827"),
    # < 60 GiB: chunk 4096, bs 32: 512 + 6,144 + 64 + 128 = 6,848; 42,304 / 49,152 = 0.86068
    (49_152, 1, "0.861"),
    # exactly 20 GiB is the < 35 GiB tier: 3,760; 16,720 / 20,480 = 0.81641
    (20_480, 1, "0.816"),
    # exactly 35 GiB is the < 60 GiB tier: 6,848; 28,992 / 35,840 = 0.80893
    (35_840, 1, "0.809"),
    # 55 GiB, still < 60 GiB: 6,848; 49,472 / 56,320 = 0.87841
    (56_320, 1, "0.878"),
    # exactly 60 GiB is the < 160 GiB tier and not above 60 GiB: 13,440; 48,000 / 61,440 = 0.78125
    (61_440, 1, "0.781"),
    # just under 160 GiB: 13,440; 150,399 / 163,839 = 0.91797
    (163_839, 1, "0.918"),
    # exactly 160 GiB is the top tier: 26,240; 137,600 / 163,840 = 0.83984
    (163_840, 1, "0.840"),
    # < 160 GiB: chunk 8192, bs 256: 512 + 12,288 + 512 + 128 = 13,440 (> 10,240);
    # 68,119 / 81,559 = 0.83521
    (81_559, 1, "0.835"),
    # >= 160 GiB: chunk 16384, bs 512: 512 + 24,576 + 1,024 + 128 = 26,240;
    # 157,119 / 183,359 = 0.85689
    (183_359, 1, "0.857"),
])
def test_sglang_05_memory_tiers(gpu_mib: int, tp: int, fraction: str):
    assert default_fraction(tp, "0.5.12", gpu_mib) == Fraction(fraction)


@pytest.mark.parametrize(("gpu_mib", "fraction"), [
    # 0.4.8 - 0.5.2: reserved (2.8 + tp x pp / 10) GiB under 35 GiB: 2.9 x 1,024 = 2,969.6;
    # (24,576 - 2,969.6) / 24,576 = 0.87917
    (24_576, "0.879"),
    # under 90 GiB: (9.5 + 0.5) x 1,024 = 10,240; 71,319 / 81,559 = 0.87445
    (81_559, "0.874"),
    # under 160 GiB: (12 + 0.5) x 1,024 = 12,800; 130,971 / 143,771 = 0.91097
    (143_771, "0.911"),
    # otherwise 32 GiB = 32,768; 150,591 / 183,359 = 0.82129
    (183_359, "0.821"),
])
def test_sglang_047_memory_tiers(gpu_mib: int, fraction: str):
    assert default_fraction(1, "0.4.8", gpu_mib) == Fraction(fraction)


@pytest.mark.parametrize(("tp", "fraction"), [(1, 88), (2, 87), (4, 85), (8, 81), (16, 79)])
def test_sglang_before_047_by_tensor_parallelism(tp: int, fraction: int):
    assert default_fraction(tp, "0.4.0", 81_559) == Fraction(fraction, 100)


def test_sglang_profile_uses_the_gpus_nvidia_smi_memory():
    # H100 SXM: nvidia-smi 81,559 MiB -> 0.835 (the < 160 GiB tier above)
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192)
    result = run_engine(req, EngineSettings(engine=Engine.sglang, version="0.5.3"))
    assert _step(result, "mem_fraction_static") == Fraction("0.835")


def _fp8_case(tmp_path: Path, gpu: str) -> Path:
    path = tmp_path / f"fp8-{gpu}.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: fp8-fix\nmodel: llama-3-8b\n"
        f"hardware:\n  gpu: {gpu}\n  count: 8\n"
        "engine:\n  max_model_len: 8192\n  kv_cache_dtype: fp16\n"
        "traffic:\n  peak_concurrent_users: 2000\n  context_tokens:\n    mean: 2000\n"
    )
    return path


@pytest.mark.parametrize(("gpu", "offered"), [("a100-80gb", False), ("h100", True)])
def test_fp8_kv_fix_only_where_the_gpu_has_fp8(cli, tmp_path: Path, gpu: str, offered: bool):
    # A100 80GB: 85,100,068,864 B x 0.9 = 76,590,061,977; - 16,060,522,496 weights - 2 GiB
    # = 58,382,055,833 B pool; a 2,000-token sequence (125 blocks) is 2,000 x 131,072 =
    # 262,144,000 B: 222 per GPU, 1,776 on 8 < 2,000 -> FAIL. fp8 would hold 445 x 8 = 3,560,
    # but the A100 has no fp8 (hardware_specs/a100-80gb.yaml fp8_supported: false).
    (result,) = cli("check", str(_fp8_case(tmp_path, gpu)))["results"]
    assert result["verdict"] == "FAIL"
    if gpu == "a100-80gb":
        assert result["users_held"] == 1_776
    fp8 = [f for f in result["fixes"] if "fp8" in str(f.get("to", {}).get("kv_cache_dtype", ""))]
    assert bool(fp8) is offered
    if offered:
        assert fp8[0]["users_held"] == 3_560
