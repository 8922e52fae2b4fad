"""Issue #13: the flags that move the pool, MXFP4 weights and the vLLM version series."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.common import mxfp4_weights_bytes
from kvplan.engines.deployment import extra_settings
from kvplan.engines.sglang import default_fraction
from kvplan.engines.vllm_series import DEFAULT_VERSION, SERIES, flavour
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, parse_dtype

H100 = load_hardware("h100")


def req(name: str = "llama-3.1-8b", ctx: int = 8192, gpu: str | None = None, wd: str | None = None,
        **kw: object) -> SizeRequest:
    hw = load_hardware(gpu) if gpu else H100
    if wd:
        kw["weight_dtype"] = parse_dtype(wd)
    return SizeRequest(model=load_model(name), gpu=hw, context_tokens=ctx, **kw)  # type: ignore[arg-type]


def vllm(**kw: object) -> EngineSettings:
    return EngineSettings(engine=Engine.vllm, **kw)  # type: ignore[arg-type]


def test_gpt_oss_mxfp4_weights_match_the_marlin_log() -> None:
    # per expert, padded I 2944 / H 3072: 3 x 2944 x 3072 weights x (4 + 8/32) bits / 8
    #   = 27,131,904 x 136 / 256 = 14,413,824 B; x 128 experts x 36 layers = 66,418,900,992 B
    # rest bf16: (116,829,156,672 - 36 x 128 x 3 x 2880 x 2880) x 2 = 4,334,742,144 B
    r = req("gpt-oss-120b")
    assert mxfp4_weights_bytes(r, "marlin") == 66_418_900_992 + 4_334_742_144
    # log 12 (vLLM 0.10.1, Marlin, one H100): "Model loading took 65.9651 GiB"
    assert abs(mxfp4_weights_bytes(r, "marlin") / GIB - 65.9651) / 65.9651 < 0.002
    # vLLM's weights add the rotary cos/sin cache (task h39rope): YaRN 4,096 x 32 = 131,072
    # positions x head_dim 64 x 4 B (gpt_oss.py asks for float32) = 33,554,432 B. Pinned to log
    # 12's release: from 0.12 the wheel vendors triton_kernels and Hopper runs the Triton layout
    # (tests/engines/test_mxfp4_hopper.py)
    assert run_engine(r, vllm(version="0.10.1")).weights_bytes == (
        66_418_900_992 + 4_334_742_144 + 33_554_432)


def test_kv_cache_memory_bytes_replaces_the_subtraction() -> None:
    # Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 131,072 B per token;
    # 16-token block = 2 MiB; 10 GiB = 5,120 blocks = 81,920 tokens
    res = run_engine(req(), vllm(kv_cache_memory_bytes=10 * GIB))
    assert res.kv_cache_bytes == 10 * GIB
    assert res.blocks == 5120 and res.kv_cache_tokens == 81_920


def test_cpu_offload_and_draft_move_the_weights() -> None:
    base = run_engine(req(), vllm())
    off = run_engine(req(), vllm(cpu_offload_bytes=2 * GIB))
    assert base.weights_bytes - off.weights_bytes == 2 * GIB
    assert off.kv_cache_bytes - base.kv_cache_bytes == 2 * GIB
    draft = run_engine(req(), vllm(draft_params=1_000_000_000))
    # 1e9 draft parameters in bf16 on one GPU = 2,000,000,000 B more weights
    assert draft.weights_bytes - base.weights_bytes == 2_000_000_000
    assert any("draft" in a for a in draft.assumptions)


@pytest.mark.parametrize(("settings", "message"), [
    (EngineSettings(engine=Engine.vllm, chunked_prefill_size=4096),
     "chunked_prefill_size applies only to sglang, not vllm"),
    (EngineSettings(engine=Engine.sglang, kv_cache_memory_bytes=GIB),
     "kv_cache_memory_bytes applies only to vllm, not sglang"),
    (EngineSettings(engine=Engine.vllm, max_batch_size=8),
     "max_batch_size applies only to trtllm, not vllm"),
    (EngineSettings(engine=Engine.trtllm, cpu_offload_bytes=-1),
     "cpu_offload_bytes must be 0 or more"),
])
def test_flags_for_another_engine_are_refused(settings: EngineSettings, message: str) -> None:
    with pytest.raises(InputError, match=message):
        run_engine(req(), settings)


def test_limit_mm_per_prompt_needs_a_multimodal_model() -> None:
    with pytest.raises(InputError, match="limit_mm_per_prompt applies to multimodal models"):
        run_engine(req(), vllm(limit_mm_per_prompt=2))


def test_sglang_chunked_prefill_enters_the_default_fraction() -> None:
    # SGLang 0.5.3 on, H100 81,559 MiB, TP 1: reserved = 512 + 1.5 x chunk + 2 x 256 + 1/8 x 1024
    # chunk 8,192 (the GPU's default): 13,440 MiB -> (81,559 - 13,440) / 81,559 = 0.835
    # chunk 16,384: 25,728 MiB -> 55,831 / 81,559 = 0.685
    assert float(default_fraction(1, "0.5.3", 81_559)) == 0.835
    assert float(default_fraction(1, "0.5.3", 81_559, chunked_prefill_size=16_384)) == 0.685
    # 0.5.0-0.5.2 reserve by the GPU's size only (sglang PR #10975 came in 0.5.3): 0.874
    assert float(default_fraction(1, "0.5.2", 81_559, chunked_prefill_size=16_384)) == 0.874
    # before 0.5 the default is by TP only: 0.88
    assert float(default_fraction(1, "0.4.6", 81_559, chunked_prefill_size=16_384)) == 0.88


def test_sglang_and_trtllm_cap_users_at_their_batch_limits() -> None:
    # SGLang 0.5.21: the pool does not move (from 0.5.22 a smaller --max-running-requests caps
    # the tier's decode graph batch and with it the default fraction's reserve:
    # tests/engines/test_sglang_0523.py)
    free = run_engine(req(), EngineSettings(engine=Engine.sglang, version="0.5.21"))
    assert free.size.users_per_replica > 5
    capped = run_engine(req(), EngineSettings(engine=Engine.sglang, version="0.5.21",
                                              max_running_requests=5))
    assert capped.size.users_per_replica == 5
    assert capped.kv_cache_tokens == free.kv_cache_tokens  # the pool does not move
    trt = run_engine(req(), EngineSettings(engine=Engine.trtllm, max_batch_size=3))
    assert trt.size.users_per_replica == 3


def test_version_series_and_newer_versions() -> None:
    assert DEFAULT_VERSION == "0.34.0"  # the vllm==0.34.0 wheel, the newest release read
    assert flavour(None).note is None and flavour("0.31.2").note is None
    assert flavour("0.33.1").note is None and flavour("0.33.0").series == "0.33"
    assert flavour("0.34.0").note is None and flavour("0.34.0").series == "0.34"
    unread = flavour("0.32.0")  # between two read releases, its own source not read
    assert unread.note is not None and "not read; modelled as the 0.29-0.31 series" in unread.note
    newer = flavour("0.35.0")
    assert newer.note is not None and "newer than the newest modelled release (0.34.0)" in newer.note
    assert newer.graphs_subtracted and newer.series == SERIES[-1].name
    assert flavour("0.10.2").series == "0.10" and flavour("0.6.4").series == "0.6.4-0.7 (V0)"
    # V0 before 0.6.4, by what its profiler measured (kvplan.engines.vllm_v0_early)
    assert [flavour(v).series for v in ("0.2.4", "0.2.5", "0.3.0", "0.4.1", "0.6.3")] == [
        "0.1-0.2.4 (V0)", "0.2.5 (V0)", "0.2.6-0.3.0 (V0)", "0.3.1-0.5.2 (V0)", "0.5.3-0.6.3 (V0)"]
    assert flavour("0.28.0").series == "0.25-0.28" and flavour("0.30.0").series == "0.29-0.31"
    res = run_engine(req(), vllm(version="0.35.0"))
    assert any("newer than the newest modelled release" in a for a in res.assumptions)


def test_model_runner_v2_profiles_a_lean_sampler() -> None:
    # Llama-3.1-8B on an L40S (< 70 GiB: 2,048 batched tokens, 256 sampler rows).
    # forward: 2,048 x (3 x 4,096 + 3 x 14,336) x 2 B = 2,048 x 55,296 x 2 = 226,492,416 B
    # sampler, old V1 runner (fp32 logits + top-k/top-p sort): 256 x 128,256 x 16 B
    # = 525,336,576 B; Model Runner V2 (0.25 on, dense: vLLM 0.25.0 config/vllm.py; Llama from
    # 0.23, whose DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES lists it, task h30v1miss):
    # 256 x 128,256 x 6 B = 197,001,216 B to 0.25, x 2 B = 65,667,072 B from 0.26 (task h36samp)
    l40s = req(gpu="l40s")
    old = run_engine(l40s, vllm(version="0.22.0"))  # 0.22 lists only Qwen3ForCausalLM
    assert old.activation_bytes == 525_336_576
    for version in ("0.23.0", "0.24.0", "0.25.0", "0.27.1", "0.28.0"):
        new = run_engine(l40s, vllm(version=version))
        assert new.activation_bytes == 226_492_416  # the forward pass is now the larger moment
    # MoE models outside DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (Qwen3-MoE) kept the old runner
    # to 0.28 and moved in 0.29 (release notes)
    moe = req("qwen3-30b-a3b", gpu="l40s")
    moe_28 = run_engine(moe, vllm(version="0.28.0"))
    moe_29 = run_engine(moe, vllm(version="0.29.0"))
    assert moe_28.activation_bytes > moe_29.activation_bytes


def test_sharded_sampling_from_0_29() -> None:
    # TP 2 on L40S, Llama-3.1-8B, 512 batched tokens: 0.29 samples 128 rows per GPU (256 / 2),
    # 0.28 all 256 rows (both the untouched bf16 logits: 2 B per logit, task h36samp); the
    # forward at TP 2 is 512 x (3 x 4,096 + 3 x 7,168) x 2 B = 512 x 33,792 x 2 = 34,603,008 B,
    # above 128 x 128,256 x 2 = 32,833,536 B and under 256 x 128,256 x 2 = 65,667,072 B
    r28 = run_engine(req(gpu="l40s", tp=2), vllm(version="0.28.0", max_num_batched_tokens=512))
    r29 = run_engine(req(gpu="l40s", tp=2), vllm(version="0.29.0", max_num_batched_tokens=512))
    assert r28.activation_bytes == 256 * 128_256 * 2  # 65,667,072 B, above the forward
    assert r29.activation_bytes == 34_603_008


def test_vllm_0_33_profiles_a_warm_up_sampler_on_every_rank() -> None:
    # vLLM 0.33 (read in its wheel): the profiling sampler's warm-up pass holds the bf16 logits
    # (2 B), their fp32 copy (4 B), and FlashInfer 0.7.2.post1's masked fp32 copy and fp32
    # probabilities (4 + 4 B), 14 B a logit, and batch-sharded sampling is off by default, so
    # each TP rank samples all rows.
    # Llama-3.1-8B on L40S (< 70 GiB: 2,048 batched tokens, 256 rows), TP 1:
    # 256 x 128,256 x 14 = 459,669,504 B, above the forward 2,048 x 55,296 x 2 = 226,492,416 B
    one = run_engine(req(gpu="l40s"), vllm(version="0.33.0"))
    assert one.activation_bytes == 459_669_504
    # TP 2: still 256 rows (0.31 sharded them to 128): 459,669,504 B, above the TP-2 forward
    # 2,048 x 33,792 x 2 = 138,412,032 B
    r31 = run_engine(req(gpu="l40s", tp=2), vllm(version="0.31.0"))
    r33 = run_engine(req(gpu="l40s", tp=2), vllm(version="0.33.0"))
    assert r31.activation_bytes == 138_412_032
    assert r33.activation_bytes == 459_669_504


def test_vllm_0_33_serve_defaults_by_gpu_memory() -> None:
    # arg_utils.get_batch_defaults in 0.33: >= 160 GiB -> 16,384 batched tokens / 1,024 seqs;
    # >= 70 GiB and not A100 or GB10 -> 8,192 / 1,024; else 2,048 / 256. The >= 160 GiB branch
    # is 0.28.0's (read in the 0.28.0 and 0.29.0 wheels; absent in 0.27.0), so 0.31 gives a B200
    # 16,384 too, 0.27 8,192. GB10 (119.7 GiB, unified memory) is on the small tier before 0.33
    # too: NVML's memory query raises there and get_batch_defaults falls to device_memory 0
    # (0.30.0 arg_utils.py :2719-2725; fit logs 28 and 112, 0.13.0: "max_num_batched_tokens=2048
    # (auto)"; task h36v030).
    from kvplan.engines.vllm_series import batching_defaults, flavour
    v33, v31 = flavour("0.33.0"), flavour("0.31.0")
    gib = 1 << 30
    assert batching_defaults(8192, "b200", v33, 178 * gib) == (16384, 1024)
    assert batching_defaults(8192, "b200", v31, 178 * gib) == (16384, 1024)
    assert batching_defaults(8192, "b200", flavour("0.27.0"), 178 * gib) == (8192, 1024)
    assert batching_defaults(8192, "h200-141gb", v33, 139 * gib) == (8192, 1024)
    assert batching_defaults(8192, "gb10", v33, 119 * gib) == (2048, 256)
    assert batching_defaults(8192, "gb10", v31, 119 * gib) == (2048, 256)
    assert batching_defaults(8192, "a100-80gb", v33, 79 * gib) == (2048, 256)


def test_vllm_0_6_4_counts_the_quantized_repack_cache_as_non_torch() -> None:
    # Qwen2.5-72B GPTQ int4 on one 48 GB GPU: 0.6.4 books 9.7% of the weights more non-torch
    # memory than 0.6.5 (log 11: 4.09 GiB non-torch next to 38.53 GiB of weights), and the CUDA
    # context: 350 MiB against 0.6.5's growth, 70 MiB (task h39v066), 293,601,280 B more
    q = req("qwen2.5-72b", gpu="l40s", wd="int4", ctx=8192)
    r64 = run_engine(q, vllm(version="0.6.4"))
    r65 = run_engine(q, vllm(version="0.6.5"))
    assert r64.non_torch_bytes - r65.non_torch_bytes == r64.weights_bytes * 97 // 1000 + 293_601_280
    bf16 = run_engine(req("qwen2.5-72b", gpu="h200-141gb", ctx=8192), vllm(version="0.6.4"))
    assert bf16.non_torch_bytes == 367_001_600  # unquantized weights: nothing repacked, 350 MiB


def test_deployment_extra_keys_map_to_settings() -> None:
    # GiB keys become bytes; the one-engine keys of another engine are left out
    block = SimpleNamespace(cpu_offload_gb=2, cuda_graph_max_bs=64, max_total_tokens=1000)
    assert extra_settings(block) == {"cpu_offload_bytes": 2 * GIB, "cuda_graph_max_bs": 64,
                                     "max_tokens": 1000}
    assert extra_settings(block, "vllm") == {"cpu_offload_bytes": 2 * GIB}
    assert extra_settings(block, "sglang") == {"cuda_graph_max_bs": 64, "max_tokens": 1000}
    with pytest.raises(InputError, match="engine.max_total_tokens: conflicts"):
        extra_settings(SimpleNamespace(max_tokens_in_paged_kv_cache=64, max_total_tokens=32))


def test_transformers_prefill_peak_of_sliding_layers() -> None:
    # Mistral-7B v0.1 (32 sliding layers, window 4,096, 8 KV heads x 128): 4,096 B per token
    # per layer. Right after a 32,768-token prompt every layer holds the prompt:
    # 4,096 x 32 x 32,768 = 4,294,967,296 B, + one layer's prompt K/V copied on store
    # 4,096 x 32,768 = 134,217,728 B, + one decode token's activations 366,592 B
    r = run_engine(req("mistral-7b-v0.1", ctx=32_768), EngineSettings(engine=Engine.transformers))
    steps = {s.label: s.value for s in r.steps}
    assert steps["prefill bytes per sequence"] == 4_294_967_296 + 134_217_728 + 366_592
    room = steps["room for the batch"]
    assert steps["batch"] == room // (4_294_967_296 + 134_217_728 + 366_592)
    assert steps["batch"] < steps["batch (raw)"]  # the prefill binds, not the decode
    # a full-attention model has no separate prefill peak
    full = run_engine(req(ctx=32_768), EngineSettings(engine=Engine.transformers))
    assert "prefill bytes per sequence" not in {s.label for s in full.steps}


def test_the_dominant_uncertain_term_is_named() -> None:
    # Llama-3.1-8B on an H100 (>= 70 GiB: 1,024 sampler rows): the sampler's 16-48 B per logit
    # over 1,024 x 128,256 logits spans far more than non-torch (0.02-0.5 GiB) or graphs
    res = run_engine(req(), vllm())
    assert any(a.startswith("KV range dominated by the activation peak") for a in res.assumptions)


def test_sglang_default_is_the_newest_sourced_release() -> None:
    from kvplan.engines import sglang

    assert sglang.DEFAULT_VERSION == "0.5.23"  # PyPI's newest, read (task h41sgl523)
    res = run_engine(req(), EngineSettings(engine=Engine.sglang, version="0.6.1"))
    assert any("newer than the newest modelled release (0.5.23)" in a for a in res.assumptions)
    # 0.5.3 and 0.5.15 share a formula; 0.5.16 on add the prefill CUDA-graph reserve (0.835 ->
    # 0.83 on an H100 with Llama-3.1-8B: 416,069 -> 412,841 tokens, tests/mutants/test_engines_sglang.py)
    same = run_engine(req(), EngineSettings(engine=Engine.sglang, version="0.5.3"))
    assert same.kv_cache_tokens == run_engine(
        req(), EngineSettings(engine=Engine.sglang, version="0.5.15")).kv_cache_tokens == 416_069
    assert run_engine(req(), EngineSettings(engine=Engine.sglang)).kv_cache_tokens == 412_841
