"""SGLang's data-parallel attention in kvplan.capacity.parallel.check_parallelism: the heads are
sharded over tp / attention_dp GPUs (sglang srt/layers/dp_attention.py
compute_dp_attention_world_info, `attn_tp_size = tp_size // dp_size`), and a dp that does not
divide tp is refused, as SGLang asserts. Exact messages, so a changed comparison or division
shows (these close the mutants benchmarks/mutation.py found alive in check_parallelism);
last, the float32 checkpoint's note in assumptions, whose text a mutant changed unseen."""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.parallel import check_parallelism
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model

KIMI = load_model("kimi-k2")  # 64 attention heads, MLA (no KV-head rule)


def test_dp_attention_runs_the_heads_at_tp_over_dp():
    # TP 96 over 12 nodes of 8: 64 heads % 96 != 0 refuses it for vLLM, but with --dp-size 96
    # attention runs at 96 // 96 = 1 GPU, which shards 64 heads
    check_parallelism(KIMI, 96, gpus_per_node=8, nodes=12, attention_dp=96)
    with pytest.raises(InputError) as err:
        check_parallelism(KIMI, 96, gpus_per_node=8, nodes=12)
    assert str(err.value).startswith("tensor parallelism 96 does not divide kimi-k2's 64 "
                                     "attention heads; vLLM refuses it; valid --tp values: ")


def test_a_dp_that_leaves_heads_unsharded_is_sglangs_refusal():
    # --dp-size 2: attention at 96 // 2 = 48 GPUs, and 64 % 48 = 16
    with pytest.raises(InputError) as err:
        check_parallelism(KIMI, 96, gpus_per_node=8, nodes=12, attention_dp=2)
    assert str(err.value) == (
        "tensor parallelism 48 does not divide kimi-k2's 64 attention heads (attention runs at "
        "tp 96 / --dp-size 2 with --enable-dp-attention); SGLang refuses it")


def test_a_dp_that_does_not_divide_tp_is_refused():
    with pytest.raises(InputError) as err:
        check_parallelism(KIMI, 8, attention_dp=3)
    assert str(err.value) == ("--dp-size 3 with --enable-dp-attention does not divide tensor "
                              "parallelism 8; SGLang refuses it")


def test_the_size_request_passes_its_attention_dp_on():
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192, tp=8, attention_dp=3)
    with pytest.raises(InputError, match=r"^--dp-size 3 with --enable-dp-attention does not "
                       r"divide tensor parallelism 8; SGLang refuses it$"):
        req.check()


def test_a_dp_below_one_is_refused():
    with pytest.raises(InputError) as err:
        check_parallelism(KIMI, 8, attention_dp=0)
    assert str(err.value) == "--dp-size must be a positive integer, got 0"
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192, attention_dp=0)
    with pytest.raises(InputError, match=r"^attention dp must be a positive integer, got 0$"):
        req.check()


def test_a_published_float32_checkpoint_is_said_to_be_served_in_16_bits():
    # Gemma-2-9B's config.json states float32; with no --weight-dtype the sizing says how the
    # engines serve it (kvplan.capacity.request.assumptions)
    from kvplan.capacity.request import assumptions

    req = SizeRequest(model=load_model("gemma-2-9b"), gpu=load_hardware("h100"),
                      context_tokens=8192)
    note = assumptions(req)[1]
    assert note.endswith("; engines serve a float32 checkpoint in 16 bits (vLLM and SGLang cast "
                         "it to bf16/fp16): --weight-dtype bf16, or --engine, plans that")
