"""vLLM's flags that move weights and cache (vllm_flags): the weights by kernel, measured,
expert parallel, offloaded and with a draft; the notes the flags add; a draft model's KV blocks.
Expected values come from vLLM's own rules as the module's docstrings quote them, worked by hand.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm_flags.py
(split from test_engines_vllm_parts.py).
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_flags import draft_block_bytes, flag_notes, weights_for
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB
from tests.conftest import blocks_words
from tests.mutants.engine_runs import rotary_words


def _req(model: str = "llama-3-8b", gpu: str = "h100", **kw: object) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=4096,
                       **kw)  # type: ignore[arg-type]


def test_weights_for_gpt_oss_mxfp4_by_kernel():
    # gpt-oss-20b on an A100 (Marlin; on an H100 from 0.12 the Triton layout,
    # tests/engines/test_mxfp4_hopper.py): Marlin pads the expert intermediate 2,880 to 2,944
    # (x 128) and
    # hidden 2,880 to 3,072 (x 256): (3 x 2,944 x 3,072 = 27,131,904 weights) x 136 / 256 bits
    # = 14,413,824 B an expert, x 24 layers x 32 experts = 11,069,816,832; the bf16 rest
    # (20,914,757,184 - 24 x 32 x 3 x 2,880 x 2,880 = 1,804,459,584 params) x 2 B =
    # 3,608,919,168: 14,678,736,000; + the rotary cos/sin cache (task h39rope), YaRN 4,096 x 32 =
    # 131,072 positions x head_dim 64 x 4 B (gpt_oss.py asks for float32) = 33,554,432:
    # 14,712,290,432.
    # vLLM 0.21+ counts torch's whole blocks (task h51blocks), not laid out for MXFP4: the step
    # gives the bound, 2 MiB x (4 x 24 layers + 2) = 98 tensors = 205,520,896 B, and books none.
    rope = rotary_words("YaRN 4,096 x 32 = 131,072 positions x 64 x 4 B") + (
        "; torch's whole blocks not booked (MXFP4 experts: not laid out tensor by tensor): vLLM "
        "loads under max_split_size_mb 20, so up to 2 MiB more a tensor of 20 MiB or more, at "
        "most 205,520,896 B here (2 MiB x 98 tensors)")
    weights, how = weights_for(_req("gpt-oss-20b", "a100-80gb"), EngineSettings(engine=Engine.vllm))
    assert (weights, how) == (14_712_290_432,
                              "gpt-oss MXFP4 experts padded for the marlin kernel + bf16 rest" + rope)
    # on a B200 FlashInfer pads both to 3,072: 28,311,552 x 136 / 256 = 15,040,512 an expert:
    # 768 x 15,040,512 + 3,608,919,168 = 15,160,032,384, + 33,554,432 = 15,193,586,816
    weights, how = weights_for(_req("gpt-oss-20b", "b200"), EngineSettings(engine=Engine.vllm))
    assert (weights, how) == (
        15_193_586_816,
        "gpt-oss MXFP4 experts padded for the flashinfer-sm100 kernel + bf16 rest" + rope)


def test_weights_for_measured_and_expert_parallel():
    s = EngineSettings(engine=Engine.vllm)
    assert weights_for(_req(), EngineSettings(engine=Engine.vllm, measured=__import__(
        "kvplan.engines", fromlist=["Measured"]).Measured(weights_bytes=123))) == (
        123, "measured (log)")
    # ep 2 at tp 1 on Qwen3-30B-A3B: experts / 2 on each GPU
    weights, how = weights_for(_req("qwen3-30b-a3b", ep=2), s)
    # the 16-bit router is whole on every GPU from vLLM 0.8.5 (task h38router): 48 x 128 x 2,048
    # torch's whole blocks from vLLM 0.21 (task h51blocks): the embeddings and LM head, 151,936 x
    # 2,048 x 2 B = 593.5 MiB each -> 594, 1,048,576 B (64 whole experts: w13 64 x 1,536 x 2,048
    # x 2 B = 384 MiB, w2 192 MiB)
    assert how == ("30,532,122,624 params x 16 bits / 1 GPU(s), the MoE router (12,582,912 params)"
                   " in 16 bits on every GPU, experts / 2 (expert parallelism)"
                   + rotary_words("40,960 positions x 128 x 2 B")
                   + blocks_words(1_048_576, "16-bit MoE"))
    # expert params 48 x 128 x 3 x 2,048 x 768 = 28,991,029,248; half of them x 2 B saved:
    # 30,532,122,624 x 2 - 28,991,029,248 = 32,073,216,000; + the rotary cos/sin cache (task
    # h39rope) 40,960 x 128 x 2 B = 10,485,760: 32,083,701,760; + 1,048,576: 32,084,750,336
    assert weights == 32_083_701_760 + 1_048_576 == 32_084_750_336
    # ep equal to tp: no expert parallelism in the description; the vocab matrices at TP 2,
    # 75,968 rows x 2,048 x 2 B = 296.75 MiB each -> 298: 2,621,440 B
    assert weights_for(_req("qwen3-30b-a3b", tp=2, ep=2), s)[1] == (
        "30,532,122,624 params x 16 bits / 2 GPU(s), the MoE router (12,582,912 params) in 16 bits"
        " on every GPU" + rotary_words("40,960 positions x 128 x 2 B")
        + blocks_words(2_621_440, "16-bit MoE"))


def test_cpu_offload_never_below_zero():
    s = EngineSettings(engine=Engine.vllm, cpu_offload_bytes=100 * GIB)
    weights, how = weights_for(_req(), s)
    assert weights == 0
    assert how == ("8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words(
        "8,192 positions x 128 x 2 B") + " - 100.00 GiB offloaded to the CPU (--cpu-offload-gb)")


def test_draft_weights_split_over_tp():
    # 1,000,000,001 params x 2 B / 2 ranks, rounded up: 1,000,000,001; + the rotary cos/sin cache
    # (task h39rope) 8,192 x 128 x 2 B = 2,097,152 B, whole on each rank; + torch's whole blocks
    # from vLLM 0.21 (task h51blocks): Llama-3-8B's embeddings and LM head at TP 2, 64,128 rows x
    # 4,096 x 2 B = 501 MiB each -> 502, 2,097,152 B
    s = EngineSettings(engine=Engine.vllm, draft_params=1_000_000_001)
    assert weights_for(_req(tp=2), s)[0] == 8_030_261_248 + 1_000_000_001 + 2 * 2_097_152


def test_flag_notes():
    vl = _req("qwen2.5-vl-7b")
    assert flag_notes(vl, EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=0)) == [
        "limit_mm_per_prompt 0: the encoder's 676,550,144 parameters are in the weights; 0: vLLM "
        "skips the encoder profiling, no encoder cache"]
    with pytest.raises(InputError) as err:
        flag_notes(_req(), EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=1))
    assert str(err.value) == ("limit_mm_per_prompt applies to multimodal models; llama-3-8b has "
                              "no encoder (params_encoder); drop it")
    assert flag_notes(_req("qwen3-30b-a3b", tp=2, ep=8), EngineSettings(engine=Engine.vllm)) == [
        "expert parallelism 8: each GPU holds 1/8 of the experts (tp 2 x dp 4)"]
    assert flag_notes(_req("qwen3-30b-a3b", tp=2, ep=2), EngineSettings(engine=Engine.vllm)) == []


def test_a_vision_model_whose_item_size_is_unknown_is_noted_unless_text_only():
    model = load_model("qwen2.5-vl-7b").model_copy(update={"mm_tokens_per_item": None,
                                                           "name": "vl-test"})
    req = SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=4096)
    note = ("vl-test: the encoder cache vLLM profiles at start-up for image inputs is not "
            "modelled (the largest item's size in embeddings is not known for qwen2_5_vl); "
            "vLLM's --limit-mm-per-prompt 0 (text only) skips it")
    assert flag_notes(req, EngineSettings(engine=Engine.vllm)) == [note]
    assert note not in flag_notes(req, EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=0))


def test_a_draft_model_beside_grouped_layers_or_one_tp_cannot_split_is_refused():
    draft = load_model("llama-3.2-1b")
    s = EngineSettings(engine=Engine.vllm, draft_model=draft)
    with pytest.raises(InputError) as err:
        draft_block_bytes(_req("gemma-3-1b"), s, 7, True)
    assert str(err.value) == ("a draft model beside gemma-3-1b's sliding-window or hybrid layers "
                              "is not modelled (its KV cache groups); plan without it")
    # one group, or V0 (which splits the blocks): modelled. 16 x 8 x 128 x 2 B x 16 layers
    assert draft_block_bytes(_req("gemma-3-1b"), s, 1, True) == 16 * 4096 * 16 // 2
    assert draft_block_bytes(_req("gemma-3-1b"), s, 7, False) == 16 * 4096 * 16 // 2
    # tp 16 on the draft: its 32 query heads split, its 8 KV heads replicated (1 a rank)
    assert draft_block_bytes(_req("llama-3.1-70b", tp=16), s, 1, True) == 16 * 256 * 16
    # qwen2.5-0.5b has 14 query heads: tp 4 does not divide them
    with pytest.raises(InputError) as err:
        draft_block_bytes(_req("llama-3.1-70b", tp=4), EngineSettings(
            engine=Engine.vllm, draft_model=load_model("qwen2.5-0.5b")), 1, True)
    assert str(err.value).startswith("the draft model: ")
    assert str(err.value).endswith("; vLLM shards the draft with the target's tensor parallelism")


def test_a_draft_keeps_the_targets_kv_dtype():
    from kvplan.units import DType
    draft = load_model("llama-3.2-1b")
    s = EngineSettings(engine=Engine.vllm, draft_model=draft)
    # fp8 cache: 16 x 8 x 128 x 1 B x 16 layers
    assert draft_block_bytes(_req(kv_dtype=DType.fp8), s, 1, True) == 16 * 8 * 128 * 16
    r = run_engine(_req(kv_dtype=DType.fp8), s)
    assert {st.label: st.value for st in r.steps}["draft KV bytes per block"] == 262_144
