"""Issue #13 part 3: each engine flag moves the prediction the way the engine does, checked
against hand arithmetic (the comments), through the kvplan/v1 engine block as every command
reads it (kvplan.engines.deployment)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.parallel import ep_weight_saving, expert_params
from kvplan.deploy.schema import Engine as EngineBlock
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.deployment import deployment_engine_settings
from kvplan.engines.sglang import default_fraction
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

H100 = load_hardware("h100")


def req(name: str = "llama-3.1-8b", ctx: int = 8192, **kw: object) -> SizeRequest:
    return SizeRequest(model=load_model(name), gpu=H100, context_tokens=ctx, **kw)  # type: ignore[arg-type]


def settings(**block: object) -> EngineSettings:
    s = deployment_engine_settings(EngineBlock(**block), cap_sequences=True)  # type: ignore[arg-type]
    assert s is not None
    return s


def steps(res: object) -> dict[str, object]:
    return {s.label: s.value for s in res.steps}  # type: ignore[attr-defined]


# ---------------------------------------------------------------- vLLM

def test_enforce_eager_removes_the_graph_estimate_only_where_vllm_subtracts_it() -> None:
    # vLLM >= 0.21 subtracts its CUDA-graph estimate before sizing (by the capture sizes, task
    # h43graphs: 1,024 sequences on an H100 -> 102 graphs; since task h44graphbase a first
    # capture + later graphs: 358,612,992 + 100 x 32 layers x 89,653 B = 645,502,592 B;
    # 102 x 32 x 235,929 = 770,072,256 B until then, the flat 536,870,912 before); --enforce-eager
    # captures no graphs, so the pool grows by exactly that
    base = run_engine(req(), settings(name="vllm"))
    eager = run_engine(req(), settings(name="vllm", enforce_eager=True))
    assert base.cuda_graph_bytes == 645_502_592 and eager.cuda_graph_bytes == 0
    assert eager.kv_cache_bytes - base.kv_cache_bytes == 645_502_592
    # vLLM 0.10 captures graphs after sizing: nothing to remove, the pool does not move
    old = run_engine(req(), settings(name="vllm", version="0.10.2"))
    old_eager = run_engine(req(), settings(name="vllm", version="0.10.2", enforce_eager=True))
    assert old_eager.kv_cache_bytes == old.kv_cache_bytes


def test_kv_cache_memory_bytes_sets_the_pool() -> None:
    # 8 GiB = 8,589,934,592 B / (16 tokens x 131,072 B = 2 MiB a block) = 4,096 blocks
    res = run_engine(req(), settings(name="vllm", kv_cache_memory_bytes=8 * GIB))
    assert res.kv_cache_bytes == 8 * GIB and res.blocks == 4096
    assert res.kv_cache_tokens == 4096 * 16


def test_cpu_offload_gb_moves_that_many_weight_bytes_per_gpu_into_the_pool() -> None:
    base = run_engine(req(), settings(name="vllm"))
    off = run_engine(req(), settings(name="vllm", cpu_offload_gb=1.5))
    # 1.5 GiB = 1,610,612,736 B off the weights and onto the pool
    assert base.weights_bytes - off.weights_bytes == 1_610_612_736
    assert off.kv_cache_bytes - base.kv_cache_bytes == 1_610_612_736


def test_max_num_seqs_moves_the_sampler_peak() -> None:
    # Llama-3.1-8B on an H100 under vLLM 0.22 (the last release whose profiling sampler sorts for
    # top-k/top-p on Llama: 0.23 lists it for Model Runner V2, task h30v1miss; defaults 8,192
    # batched tokens, 1,024 sequences):
    # V1 sampler 1,024 x 128,256 x 16 B = 2,101,346,304 B beats the forward pass
    # (8,192 x 55,296 x 2 B = 905,969,664 B). With --max-num-seqs 256 the sampler is
    # 256 x 128,256 x 16 = 525,336,576 B, under the forward pass, which becomes the peak:
    # the pool grows by 2,101,346,304 - 905,969,664 = 1,195,376,640 B, and (task h43graphs) by
    # the graphs 256 sequences do not capture: 102 - 86 = 16 later graphs x 32 layers x 89,653 B
    # = 45,902,336 B since task h44graphbase (the first capture stays; x 235,929 B = 120,795,648
    # until then): 1,241,278,976 B
    base = run_engine(req(), settings(name="vllm", version="0.22.0"))
    fewer = run_engine(req(), settings(name="vllm", version="0.22.0", max_num_seqs=256))
    assert base.activation_bytes == 2_101_346_304
    assert fewer.activation_bytes == 905_969_664
    assert fewer.kv_cache_bytes - base.kv_cache_bytes == 1_195_376_640 + 45_902_336
    # V0 (0.6.x) keeps its 40 B sampler: 256 rows x 128,256 x 40 = 1,313,341,440 B
    v0 = run_engine(req(), settings(name="vllm", version="0.6.4", max_num_seqs=256))
    assert v0.activation_bytes == 1_313_341_440


def test_the_lean_sampler_of_model_runner_v2_leaves_the_forward_pass_as_the_peak() -> None:
    # vLLM 0.25 on (Model Runner V2, dense): the profiling sampler holds the logits and one fp32
    # copy in 0.25, 6 B a logit: 1,024 x 128,256 x 6 = 788,004,864 B (from 0.26 the bf16 logits
    # alone, 2 B: 262,668,288 B, task h36samp), below the forward pass of
    # 8,192 x 55,296 x 2 B = 905,969,664 B, so --max-num-seqs no longer moves the peak; from
    # 0.28 it moves the persistent state vLLM books (task h28state, vllm_mrv2_state.py):
    # (1,024 - 256) x (128,256 + 2 x 4,008 + 4,481) x 4 B = 432,393,216 B; from 0.29 Model Runner
    # V2 estimates the graphs (subtracted), and 256 sequences capture 16 fewer than 1,024 (task
    # h43graphs: 86 for 102; since task h44graphbase 16 later graphs x 32 layers x 89,653 B =
    # 45,902,336 B, 120,795,648 at 235,929 B a graph and layer until then)
    for version, moved in (("0.25.0", 0), ("0.28.0", 432_393_216),
                           ("0.31.0", 432_393_216 + 45_902_336)):
        base = run_engine(req(), settings(name="vllm", version=version))
        fewer = run_engine(req(), settings(name="vllm", version=version, max_num_seqs=256))
        assert base.activation_bytes == fewer.activation_bytes == 905_969_664
        assert fewer.kv_cache_bytes - base.kv_cache_bytes == moved


def test_a_draft_model_adds_its_weights_and_its_kv_layers_to_every_block() -> None:
    # draft Llama-3.2-1B: 1,235,814,400 params x 2 B = 2,471,628,800 B more weights;
    # its 16 layers x 8 KV heads x (64 + 64) x 2 B = 32,768 B a token, 524,288 B a block,
    # so a block costs 2,097,152 + 524,288 = 2,621,440 B
    base = run_engine(req(), settings(name="vllm"))
    spec = run_engine(req(), settings(name="vllm", speculative_model="llama-3.2-1b",
                                      num_speculative_tokens=4))
    assert spec.weights_bytes - base.weights_bytes == 2_471_628_800
    st = steps(spec)
    assert st["draft KV bytes per block"] == 524_288 and st["bytes per block"] == 2_621_440
    # Model Runner V2's grammar bitmask takes 4 more rows a sequence (decode_query_len 5; task
    # h28state): 1,024 x 4 x ceil(128,256 / 32) x 4 B = 65,667,072 B. The decode query of 5
    # tokens adds capture sizes (task h43graphs, 0.30 on): 5, 10, 20, 280, 360 and 440 join the
    # 51 (57 PIECEWISE) and the FULL decode sizes, rounded up to multiples of 5 within 512, stay
    # 51: 108 graphs for 102, 6 later graphs x 32 layers x 89,653 B = 17,213,376 B more (task
    # h44graphbase; x 235,929 B = 45,298,368 until then)
    assert spec.kv_cache_bytes == base.kv_cache_bytes - 2_471_628_800 - 65_667_072 - 17_213_376
    assert spec.blocks == spec.kv_cache_bytes // 2_621_440
    assert any("draft llama-3.2-1b (4 tokens per step)" in a for a in spec.assumptions)


def test_a_draft_model_must_be_in_the_catalog() -> None:
    with pytest.raises(InputError, match="unknown model 'no-such-draft'"):
        settings(name="vllm", speculative_model="no-such-draft", num_speculative_tokens=2)


def test_limit_mm_per_prompt_is_refused_for_a_text_model() -> None:
    with pytest.raises(InputError, match="limit_mm_per_prompt applies to multimodal models"):
        run_engine(req(), settings(name="vllm", limit_mm_per_prompt=0))


# ---------------------------------------------------------------- SGLang

def test_sglang_page_size_rounds_the_token_pool_down_to_whole_pages() -> None:
    one = run_engine(req(), settings(name="sglang"))
    paged = run_engine(req(), settings(name="sglang", block_size=64))
    st = steps(paged)
    assert st["page size"] == 64 and steps(one)["page size"] == 1  # SGLang's default: 1
    # the same raw tokens, floored to whole 64-token pages
    assert paged.kv_cache_tokens == steps(one)["tokens (>= 0)"] // 64 * 64


def test_sglang_cuda_graph_max_bs_and_chunked_prefill_enter_the_default_fraction() -> None:
    # SGLang 0.5 on an H100 (81,559 MiB, TP 1): reserved = 512 + 1.5 x chunk + 2 x graph bs +
    # 1/8 x 1,024 MiB. Defaults chunk 8,192, bs 256: 13,440 MiB -> 0.835.
    # --cuda-graph-max-bs 1024: 512 + 12,288 + 2,048 + 128 = 14,976 -> 66,583 / 81,559 = 0.816
    assert float(default_fraction(1, "0.5.3", 81_559, cuda_graph_max_bs=1024)) == 0.816
    base = run_engine(req(), settings(name="sglang"))
    graphs = run_engine(req(), settings(name="sglang", cuda_graph_max_bs=1024))
    chunk = run_engine(req(), settings(name="sglang", max_num_batched_tokens=16_384))
    # The default 0.5.21 adds 8 MiB per prefill CUDA-graph size up to the chunk: 58 sizes up to
    # 8,192 (464 MiB), 74 up to 16,384 (592 MiB):
    #   base (13,440 + 464) = 13,904 -> 67,655 / 81,559 = 0.8295 -> 0.83
    #   --cuda-graph-max-bs 1024: 14,976 + 464 = 15,440 -> 66,119 / 81,559 = 0.8107 -> 0.811
    #   chunk 16,384: 512 + 24,576 + 512 + 128 + 592 = 26,320 -> 55,239 / 81,559 = 0.6773 -> 0.677
    assert steps(base)["mem_fraction_static"] == pytest.approx(0.83)
    assert steps(graphs)["mem_fraction_static"] == pytest.approx(0.811)
    assert steps(chunk)["mem_fraction_static"] == pytest.approx(0.677)  # as chunk 16,384
    assert graphs.kv_cache_tokens < base.kv_cache_tokens


def test_sglang_max_running_requests_caps_sequences_not_the_pool() -> None:
    # SGLang 0.5.21; from 0.5.22 it also caps the default decode graph batch, which moves the
    # default fraction (tests/engines/test_sglang_0523.py)
    free = run_engine(req(), settings(name="sglang", version="0.5.21"))
    capped = run_engine(req(), settings(name="sglang", version="0.5.21", max_num_seqs=7))
    assert capped.size.users_per_replica == 7 < free.size.users_per_replica
    assert capped.kv_cache_tokens == free.kv_cache_tokens


def test_sglang_max_total_tokens_caps_the_pool() -> None:
    res = run_engine(req(), settings(name="sglang", max_total_tokens=50_000))
    assert res.kv_cache_tokens == 50_000
    assert res.kv_cache_bytes == 50_000 * 131_072  # 6,553,600,000 B


# ---------------------------------------------------------------- TensorRT-LLM

def test_trtllm_max_tokens_in_paged_kv_cache_caps_the_pool() -> None:
    # min(the fraction's tokens, 100,000) = 100,000; 32-token blocks: ceil(100,000 / 32) = 3,125
    # blocks = 100,000 tokens x 131,072 B = 13,107,200,000 B
    res = run_engine(req(), settings(name="trtllm", max_tokens_in_paged_kv_cache=100_000))
    assert res.blocks == 3125 and res.kv_cache_tokens == 100_000
    assert res.kv_cache_bytes == 13_107_200_000
    free = run_engine(req(), settings(name="trtllm"))
    assert free.kv_cache_tokens > 100_000  # the fraction alone gives more: the cap binds


def test_trtllm_tokens_per_block_fraction_batch_and_tokens() -> None:
    base = run_engine(req(), settings(name="trtllm"))
    blocks64 = run_engine(req(), settings(name="trtllm", block_size=64))
    assert base.block_size_tokens == 32 and blocks64.block_size_tokens == 64
    assert blocks64.kv_cache_tokens % 64 == 0
    # free_gpu_memory_fraction 0.5: floor(free x 0.5) of the same free memory
    half = run_engine(req(), settings(name="trtllm", gpu_memory_utilization=0.5))
    free = steps(half)["free memory"]
    assert steps(half)["KV cache memory"] == free // 2
    # max_batch_size caps the sequences
    assert run_engine(req(), settings(name="trtllm", max_num_seqs=3)).size.users_per_replica == 3
    # max_num_tokens 2,048: the forward pass over fewer tokens frees activation memory
    small = run_engine(req(), settings(name="trtllm", max_num_batched_tokens=2048))
    assert small.activation_bytes < base.activation_bytes
    assert small.kv_cache_tokens > base.kv_cache_tokens


def test_trtllm_activation_bytes_replace_the_forward_pass_estimate() -> None:
    # log 145's engine: Llama-3-8B bf16 on an RTX 3090 built with "Total Activation Memory:
    # 1811942912"; TensorRT-LLM 0.8 (64-token blocks), fraction 0.9. Free = 25,327,697,920 (the
    # card) - 16,060,522,496 (weights) - 1,811,942,912 (stated) - 805,306,368 (768 MiB non-torch)
    # = 6,649,926,144 B; floor(x 0.9) = 5,984,933,529; // 131,072 = 45,661 tokens; ceil(/64) =
    # 714 blocks = 45,696 tokens
    r = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("rtx-3090"),
                    context_tokens=2048)
    res = run_engine(r, settings(name="trtllm", version="0.8.0",
                                 trt_activation_bytes=1_811_942_912))
    assert steps(res)["free memory"] == 6_649_926_144
    assert (res.activation_bytes, res.activation_bytes_low, res.activation_bytes_high) == (
        1_811_942_912, 1_811_942_912, 1_811_942_912)
    assert res.blocks == 714 and res.kv_cache_tokens == 45_696
    assert "Total Activation Memory" in next(s.formula for s in res.steps if s.label == "activations")
    # without it, the forward-pass proxy over 8,192 tokens: a different term, with a range
    proxy = run_engine(r, settings(name="trtllm", version="0.8.0"))
    assert proxy.activation_bytes != 1_811_942_912
    assert proxy.activation_bytes_low < proxy.activation_bytes_high


def test_trtllm_activation_bytes_are_refused_on_the_pytorch_backend() -> None:
    # 1.0 on (the default 1.3.0) is modelled as the PyTorch backend: no TensorRT engine, its
    # activations are profiled, so a TensorRT engine's execution-context memory does not apply
    r = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"), context_tokens=2048)
    for version in (None, "1.0.0", "1.3.0"):
        with pytest.raises(InputError, match="modelled as the PyTorch backend.*below 1.0"):
            run_engine(r, settings(name="trtllm", version=version, trt_activation_bytes=1))
    assert run_engine(r, settings(name="trtllm", version="0.21.0",
                                  trt_activation_bytes=1)).activation_bytes == 1


def test_trtllm_activation_bytes_are_refused_for_another_engine() -> None:
    with pytest.raises(InputError, match="trt_activation_bytes applies only to trtllm"):
        run_engine(req(), EngineSettings(engine=Engine.vllm, trt_activation_bytes=1))


# ---------------------------------------------------------------- expert parallelism

def test_expert_parallelism_beyond_tp_splits_the_experts() -> None:
    # Mixtral-8x7B: 32 layers x 8 experts x 3 x 4,096 x 14,336 = 45,097,156,608 expert params.
    # TP 2, EP 4 (vLLM: tp 2 x dp 2), bf16: the rest 1,605,636,096 params, of which the router
    # 32 x 4,096 x 8 = 1,048,576 is whole on each GPU (task h38router): 1,604,587,520 x 2 B / 2
    # + 1,048,576 x 2 B = 1,606,684,672 B; the experts 45,097,156,608 x 2 B / 4 = 22,548,578,304 B.
    # Without EP: 46,702,792,704 B split evenly + the router's other half, 1,048,576 B. vLLM adds
    # its rotary cos/sin cache to both (task h39rope): 32,768 positions x 128 x 2 B = 8,388,608 B,
    # and from 0.21 torch's whole blocks (task h51blocks): the embeddings and LM head, 32,000 / 2
    # = 16,000 rows x 4,096 x 2 B = 125 MiB each, round up to 126: 2,097,152 B on both (every
    # other tensor a whole 2 MiB: the experts 896 + 448 MiB split by tp, 448 + 224 whole by ep).
    model = load_model("mixtral-8x7b")
    assert expert_params(model) == 45_097_156_608
    assert ep_weight_saving(model, 16, 2, 1, 4) == 22_548_578_304
    r = req("mixtral-8x7b", tp=2)
    base = run_engine(r, settings(name="vllm"))
    ep = run_engine(replace(r, ep=4), settings(name="vllm"))
    rope, blocks = 32_768 * 128 * 2, 2 * 1_048_576
    assert base.weights_bytes == 46_702_792_704 + 1_048_576 + rope + blocks == 46_714_327_040
    assert ep.weights_bytes == 1_606_684_672 + 22_548_578_304 + rope + blocks
    assert ep.kv_cache_bytes - base.kv_cache_bytes == 22_548_578_304
    # up to tp the experts are split over the same GPUs: nothing changes
    assert run_engine(replace(r, ep=2), settings(name="vllm")).weights_bytes == 46_714_327_040


@pytest.mark.parametrize(("model", "tp", "ep", "message"), [
    ("llama-3.1-8b", 1, 2, "expert parallelism applies to mixture-of-experts models"),
    ("mixtral-8x7b", 1, 3, "expert parallelism 3 does not divide mixtral-8x7b's 8 experts"),
    ("qwen3-30b-a3b", 4, 6, "expert parallelism 6 does not divide qwen3-30b-a3b's 128 experts"),
    # Kimi K2's 384 experts divide by 3, but 3 and TP 8 do not divide one another: vLLM's EP is
    # tp x dp (a multiple of 8), SGLang's and TensorRT-LLM's divide 8
    ("kimi-k2", 8, 3, "expert parallelism 3 and tensor parallelism 8 do not divide one another"),
])
def test_expert_parallelism_is_refused_with_the_reason(model: str, tp: int, ep: int,
                                                       message: str) -> None:
    with pytest.raises(InputError, match=message):
        run_engine(req(model, tp=tp, ep=ep), settings(name="vllm"))


def test_expert_parallelism_one_on_a_dense_model_is_no_parallelism() -> None:
    base = run_engine(req(), settings(name="vllm"))
    assert run_engine(req(ep=1), settings(name="vllm")).kv_cache_bytes == base.kv_cache_bytes


def test_a_stated_max_num_seqs_caps_vllm_users_where_size_and_fleet_plan() -> None:
    # Llama-3.1-8B at 8,192 tokens on an H100 holds 59 sequences by its blocks (the pool's
    # blocks // 512 blocks a sequence: vLLM 0.34.0, the default, 64,144,578,944 B of pool (the
    # graph term by the capture sizes, 102 graphs, a first capture + later graphs since task
    # h44graphbase; 64,020,009,280 since task h43graphs, 64,253,210,624 before) /
    # 2,097,152 B a block = 30,586 blocks, // 512 = 59; 53 under 0.33.0 at 0.9, until task
    # h41v034); vLLM's scheduler runs at most --max-num-seqs of them
    uncapped = run_engine(req(), settings(name="vllm"))
    capped = run_engine(req(), settings(name="vllm", max_num_seqs=8))
    assert uncapped.size.users_per_replica == uncapped.blocks // 512 > 8
    assert capped.size.users_per_replica == 8
    assert capped.size.breakdown.kv_used_bytes == 8 * 512 * 16 * 131_072  # 8 x 512 blocks of 16 tokens
    assert "users capped at --max-num-seqs 8" in capped.assumptions
    # kvplan check applies the cap itself (its verdict names it): the profile leaves it alone
    block = EngineBlock(name="vllm", max_num_seqs=8)  # type: ignore[call-arg]
    unc = deployment_engine_settings(block)
    assert unc is not None and not unc.cap_max_num_seqs
    # (max_num_seqs still sizes Model Runner V2's persistent state from 0.28, task h28state:
    # 8 sequences leave a larger pool than 1,024, so the users follow that pool's blocks)
    free = run_engine(req(), unc)
    assert free.size.users_per_replica == free.blocks // 512 > 8
    assert uncapped.blocks == 30_586 and uncapped.size.users_per_replica == 59
