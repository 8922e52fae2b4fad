"""Issue #13, fifth round: vLLM's pipeline stages sized one by one, and the unified-memory term.

- Pipeline parallelism: every worker sizes its own pool for its own layers and the engine keeps
  the smallest block count (V1 unify_kv_cache_configs; V0 the executor's min over workers). The
  first stage holds the token embeddings, the last the LM head and the sampler.
- Unified memory (GB10): vLLM's non-torch growth is read from cudaMemGetInfo, whose "free" on an
  integrated GPU is what the whole system has left; fitted on log 28 (2.39 GiB).
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm import stage_weights
from kvplan.engines.vllm_nontorch import NON_TORCH_V0, NON_TORCH_V1, NON_TORCH_V1_UNIFIED, non_torch
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType


def _req(pp: int, gpu: str = "h100", tp: int = 1) -> SizeRequest:
    return SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware(gpu),
                       context_tokens=8192, kv_dtype=DType.bf16, tp=tp, pp=pp)


def test_stage_weights_put_embeddings_first_and_the_head_last() -> None:
    # Llama-3.1-8B bf16 at PP 2: 32 layers split 16 / 16; embeddings 128,256 x 4,096 x 2 B =
    # 1,050,673,152 B on stage 1, the same for the LM head on stage 2; the body splits evenly.
    req = _req(2)
    per_gpu = 8_000_000_000  # any average: the split conserves it
    first, last = stage_weights(req, per_gpu)
    embed = 128_256 * 4_096 * 2
    body = per_gpu * 2 - 2 * embed
    assert first == body * 16 // 32 + embed
    assert last == body * 16 // 32 + embed
    assert first + last == per_gpu * 2
    # PP 4 on 32 layers: 8 each; the middle stages hold neither the embeddings nor the head
    s1, s2, s3, s4 = stage_weights(_req(4), per_gpu)
    assert s2 == s3 == (per_gpu * 4 - 2 * embed) * 8 // 32
    assert s1 == s4 == s2 + embed


def test_the_last_stage_limits_when_it_samples() -> None:
    # Equal layers and equal weights on both stages: the last stage also runs the sampler
    # (1,024 rows x 128,256 x 16 B = 2.0 GiB at vLLM 0.19 on an 80 GB GPU), so it keeps fewer
    # blocks and its count is the engine's.
    settings = EngineSettings(engine=Engine.vllm, version="0.19.0",
                              memory_fraction=Fraction(95, 100))
    res = run_engine(_req(2), settings)
    weights_step = next(s for s in res.steps if s.label == "weights")
    assert "pipeline stage 2 of 2" in weights_step.formula
    assert "sampler" in weights_step.formula


def test_unified_memory_books_the_fitted_term_on_one_v1_gpu() -> None:
    v1, v0 = flavour("0.13.0"), flavour("0.6.6")
    nt, how = non_torch(v1, 1, 0, False, unified=True)
    assert nt.best == NON_TORCH_V1_UNIFIED[0] == 239 * GIB // 100
    assert "unified memory" in how
    assert non_torch(v1, 1, 0, False)[0].best == NON_TORCH_V1[0]
    # V0: no unified-memory data; 0.6.6 books the growth term (from 0.6.5, task h39v066), 0.6.4
    # the whole device
    assert non_torch(v0, 1, 0, False, unified=True)[0].best == NON_TORCH_V1[0]
    assert non_torch(flavour("0.6.4"), 1, 0, False, unified=True)[0].best == NON_TORCH_V0[0]


def test_gb10_pool_moves_by_the_term_difference() -> None:
    # Qwen2.5-14B, FP8 weights and KV, GB10 at utilization 0.4, vLLM 0.13 (log 28's settings):
    # the unified-memory GPU books 2.39 GiB - 70 MiB more non-torch memory than the same memory
    # without the flag, so its pool is that much smaller, in whole 16-token blocks.
    model = load_model("qwen2.5-14b")
    gb10 = load_hardware("gb10")
    plain = gb10.model_copy(update={"unified_memory": False})
    settings = EngineSettings(engine=Engine.vllm, version="0.13.0",
                              memory_fraction=Fraction(4, 10))
    out = [run_engine(SizeRequest(model=model, gpu=g, context_tokens=32768, kv_dtype=DType.fp8,
                                  weight_dtype=DType.fp8), settings) for g in (gb10, plain)]
    uni, disc = out
    diff = NON_TORCH_V1_UNIFIED[0] - NON_TORCH_V1[0]
    assert uni.non_torch_bytes - disc.non_torch_bytes == diff
    per_block = 16 * 48 * 8 * 128 * 2 * 1  # 16 tokens x 48 layers x 8 KV heads x 128 x K,V x 1 B
    assert (disc.kv_cache_tokens - uni.kv_cache_tokens) // 16 in (diff // per_block,
                                                                   diff // per_block + 1)
