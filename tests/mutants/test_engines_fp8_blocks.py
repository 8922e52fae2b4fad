"""Mutation tests of kvplan/engines/fp8_blocks.py (task h100mut): every shard a rank builds, with
its words, and the refusal's line word for word, on the shipped block-fp8 specs' real shapes.

The shapes are each checkpoint's config.json (tests/assets/hf_configs, quantization_config
.weight_block_size [128, 128] in all four): Qwen3-235B-A22B-FP8 64 heads, 4 KV heads x 128,
moe_intermediate_size 1,536, no dense layer; Qwen3-32B-FP8 64 heads, 8 KV heads x 128,
intermediate_size 25,600; DeepSeek-V3 128 heads, MLA q_lora_rank 1,536, qk_nope 128, qk_rope 64,
v_head 128, intermediate_size 18,432 (first_k_dense_replace 3), moe_intermediate_size 2,048, one
shared expert; Kimi-K2 the same with 64 heads. The checks and their words are the engines',
read in the wheels (the module's docstring): SGLang 0.4.6.post1 srt/layers/quantization/fp8.py
:213-244 (Fp8LinearMethod.create_weights) and :491-511 (Fp8MoEMethod); vLLM 0.6.6 fp8.py:170-187
(every merged partition checked), 0.10.0 fp8.py:256-272 (an unsplit merged layer's last partition
spared), 0.14.0 layers/linear.py:492/:524 (a merged column layer with an unaligned partition
skipped), 0.19.1 fp8.py:629-649 and utils/fp8_utils.py:1425-1473.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from kvplan.engines.fp8_blocks import (
    Split,
    block_fp8_reason,
    block_fp8_refusal,
    engine_ep,
    engine_split,
    shards,
)
from kvplan.specs import load_model
from kvplan.specs.schema import ModelSpec

OUT = "Weight output_partition_size = {} is not divisible by weight quantization block_n = 128."
IN = "Weight input_size_per_partition = {} is not divisible by weight quantization block_k = 128."
MOE_N = ("The output_size of gate's and up's weight = {} is not divisible by weight quantization "
         "block_n = 128.")
MOE_K = ("The input_size of down's weight = {} is not divisible by weight quantization block_k "
         "= 128.")
VLLM_AT = ("vllm model_executor/layers/quantization/fp8.py Fp8LinearMethod / Fp8MoEMethod "
           "create_weights (:629-649 and utils/fp8_utils.py:1425-1473 in 0.19.1)")
SGLANG_AT = ("sglang srt/layers/quantization/fp8.py Fp8LinearMethod / Fp8MoEMethod create_weights "
             "(:213-244 and :491-511 in 0.4.6.post1)")
ADVICE = ("choose a tensor parallel size whose shards are whole blocks, or expert parallelism as "
          "wide as it where only the experts split")


def _listed(model: str | ModelSpec, tp: int, era: str,
            ep: int | None = None) -> list[tuple[str, str]]:
    spec = load_model(model) if isinstance(model, str) else model
    return [(s.arithmetic(), s.message) for s in shards(spec, tp, ep, era)]


def _blocked(name: str, block: tuple[int, int] = (128, 128), **mla: None) -> ModelSpec:
    """A catalog model's real shapes as a block-fp8 checkpoint (a config.json with
    quantization_config.weight_block_size, as `kvplan import` reads it); `mla` drops fields the
    schema leaves optional (MLA.qk_nope_head_dim, v_head_dim)."""
    model = load_model(name)
    if mla:
        assert model.attention.mla is not None
        model = model.model_copy({"attention": model.attention.model_copy(
            {"mla": model.attention.mla.model_copy(mla)})})
    return model.model_copy({"weight_block_size": list(block)})


def test_qwen3_235b_at_tp8_every_shard() -> None:
    # 64 / 8 = 8 q heads x 128 = 1,024; 4 KV heads < 8: one head each, 128; o_proj 8 x 128;
    # experts 1,536 / 8 = 192 = 128 + 64
    qkv = "qkv_proj (8 q heads, 1 kv heads x 128)"
    assert _listed("qwen3-235b-a22b-fp8", 8, "all") == [
        (f"{qkv} 1,024 % block_n 128 = 0", OUT.format(1024)),
        (f"{qkv} 128 % block_n 128 = 0", OUT.format(128)),
        (f"{qkv} 128 % block_n 128 = 0", OUT.format(128)),
        ("o_proj (8 heads x 128) 1,024 % block_k 128 = 0", IN.format(1024)),
        ("each expert's gate/up (1,536 / 8) 192 % block_n 128 = 64", MOE_N.format(192)),
        ("each expert's down (1,536 / 8) 192 % block_k 128 = 64", MOE_K.format(192))]


def test_vllm_0_10_spares_an_unsplit_merged_layers_last_partition() -> None:
    # TP 8 over 4 KV heads replicates them (not split): vLLM 0.10.0+ does not check v's part;
    # TP 2 splits them (2 each): all three; TP 1: not split, no o_proj, no experts' down
    assert [a for a, _ in _listed("qwen3-235b-a22b-fp8", 8, "last")][:3] == [
        "qkv_proj (8 q heads, 1 kv heads x 128) 1,024 % block_n 128 = 0",
        "qkv_proj (8 q heads, 1 kv heads x 128) 128 % block_n 128 = 0",
        "o_proj (8 heads x 128) 1,024 % block_k 128 = 0"]
    assert [a for a, _ in _listed("qwen3-235b-a22b-fp8", 2, "last")] == [
        "qkv_proj (32 q heads, 2 kv heads x 128) 4,096 % block_n 128 = 0",
        "qkv_proj (32 q heads, 2 kv heads x 128) 256 % block_n 128 = 0",
        "qkv_proj (32 q heads, 2 kv heads x 128) 256 % block_n 128 = 0",
        "o_proj (32 heads x 128) 4,096 % block_k 128 = 0",
        "each expert's gate/up (1,536 / 2) 768 % block_n 128 = 0",
        "each expert's down (1,536 / 2) 768 % block_k 128 = 0"]
    assert [a for a, _ in _listed("qwen3-235b-a22b-fp8", 1, "skip")] == [
        "qkv_proj (64 q heads, 4 kv heads x 128) 8,192 % block_n 128 = 0",
        "qkv_proj (64 q heads, 4 kv heads x 128) 512 % block_n 128 = 0",
        "each expert's gate/up (1,536 / 1) 1,536 % block_n 128 = 0"]
    # SGLang and vLLM before 0.10.0 check all three at TP 1 too
    assert [a for a, _ in _listed("qwen3-235b-a22b-fp8", 1, "all")][:3] == [
        "qkv_proj (64 q heads, 4 kv heads x 128) 8,192 % block_n 128 = 0",
        "qkv_proj (64 q heads, 4 kv heads x 128) 512 % block_n 128 = 0",
        "qkv_proj (64 q heads, 4 kv heads x 128) 512 % block_n 128 = 0"]


def test_expert_parallelism_in_the_experts_words() -> None:
    # SGLang --ep-size 4 at TP 8: experts split over 8 / 4 = 2: 768 each
    assert _listed("qwen3-235b-a22b-fp8", 8, "all", ep=4)[4:] == [
        ("each expert's gate/up (1,536 / 2 (tp 8 / ep 4)) 768 % block_n 128 = 0",
         MOE_N.format(768)),
        ("each expert's down (1,536 / 2 (tp 8 / ep 4)) 768 % block_k 128 = 0", MOE_K.format(768))]
    # EP wider than TP leaves each expert whole (max(1, 8 // 16) = 1)
    assert _listed("qwen3-235b-a22b-fp8", 8, "all", ep=16)[4][0] == \
        "each expert's gate/up (1,536 / 1 (tp 8 / ep 16)) 1,536 % block_n 128 = 0"


def test_deepseek_v3_at_tp8_every_shard() -> None:
    # 128 / 8 = 16 heads: q_b 16 x (128 + 64) = 3,072; kv_b 16 x (128 + 128) = 4,096; o_proj
    # 16 x 128 = 2,048; dense 18,432 / 8 = 2,304; experts and the shared one 2,048 / 8 = 256
    assert _listed("deepseek-v3", 8, "all") == [
        ("q_b_proj (16 heads x 192) 3,072 % block_n 128 = 0", OUT.format(3072)),
        ("kv_b_proj (16 heads x 256) 4,096 % block_n 128 = 0", OUT.format(4096)),
        ("o_proj (16 heads x 128) 2,048 % block_k 128 = 0", IN.format(2048)),
        ("dense MLP gate_up_proj (18,432 / tp 8) 2,304 % block_n 128 = 0", OUT.format(2304)),
        ("dense MLP gate_up_proj (18,432 / tp 8) 2,304 % block_n 128 = 0", OUT.format(2304)),
        ("dense MLP down_proj (18,432 / tp 8) 2,304 % block_k 128 = 0", IN.format(2304)),
        ("each expert's gate/up (2,048 / 8) 256 % block_n 128 = 0", MOE_N.format(256)),
        ("each expert's down (2,048 / 8) 256 % block_k 128 = 0", MOE_K.format(256)),
        ("shared experts gate_up_proj (2,048 / tp 8) 256 % block_n 128 = 0", OUT.format(256)),
        ("shared experts gate_up_proj (2,048 / tp 8) 256 % block_n 128 = 0", OUT.format(256)),
        ("shared experts down_proj (2,048 / tp 8) 256 % block_k 128 = 0", IN.format(256))]


def test_deepseek_v3_at_tp1_checks_no_mla_projection() -> None:
    # MLA's projections are checked only when TP splits them; at TP 1 vLLM 0.14.0+ ("skip")
    # spares each merged layer's last partition
    assert [a for a, _ in _listed("deepseek-v3", 1, "skip")] == [
        "dense MLP gate_up_proj (18,432 / tp 1) 18,432 % block_n 128 = 0",
        "each expert's gate/up (2,048 / 1) 2,048 % block_n 128 = 0",
        "shared experts gate_up_proj (2,048 / tp 1) 2,048 % block_n 128 = 0"]


def test_one_mla_head_a_rank_splits_the_q_block() -> None:
    # Kimi-K2 at TP 64 (64 heads): one head a rank, q_b 128 + 64 = 192 = 128 + 64; kv_b 256 and
    # o_proj 128 are whole; dense 18,432 / 64 = 288 (288 % 128 = 32); experts 2,048 / 64 = 32
    found = block_fp8_refusal("sglang", "0.4.6.post1", load_model("kimi-k2"), 64)
    assert found is not None and found.message == OUT.format(192)
    assert [s.arithmetic() for s in found.shards] == [
        "q_b_proj (1 heads x 192) 192 % block_n 128 = 64",
        "dense MLP gate_up_proj (18,432 / tp 64) 288 % block_n 128 = 32",
        "dense MLP gate_up_proj (18,432 / tp 64) 288 % block_n 128 = 32",
        "dense MLP down_proj (18,432 / tp 64) 288 % block_k 128 = 32",
        "each expert's gate/up (2,048 / 64) 32 % block_n 128 = 32",
        "each expert's down (2,048 / 64) 32 % block_k 128 = 32",
        "shared experts gate_up_proj (2,048 / tp 64) 32 % block_n 128 = 32",
        "shared experts gate_up_proj (2,048 / tp 64) 32 % block_n 128 = 32",
        "shared experts down_proj (2,048 / tp 64) 32 % block_k 128 = 32"]
    assert (found.said, found.at) == ("SGLang 0.4.6.post1", SGLANG_AT)


def test_the_refusal_word_for_word_sglang() -> None:
    # Qwen3-32B-FP8 at TP 16: 25,600 / 16 = 1,600 = 12 x 128 + 64; gate_up's two partitions
    # give one line (the same arithmetic)
    assert block_fp8_reason("sglang", None, load_model("qwen3-32b-fp8"), 16) == (
        f"SGLang would not start: \"{OUT.format(1600)}\" ({SGLANG_AT}): qwen3-32b-fp8 is "
        "block-quantized fp8 (128 x 128 blocks, config.json quantization_config."
        "weight_block_size), and tensor parallel size 16 splits a block: dense MLP gate_up_proj "
        "(25,600 / tp 16) 1,600 % block_n 128 = 64; dense MLP down_proj (25,600 / tp 16) 1,600 % "
        f"block_k 128 = 64; {ADVICE}")


def test_the_refusal_word_for_word_vllm() -> None:
    # vLLM 0.14.0 on skips the merged gate_up_proj: down_proj (block_k) is the message
    assert block_fp8_reason("vllm", "0.14.0", load_model("qwen3-32b-fp8"), 16) == (
        f"vLLM 0.14.0 would not start: \"{IN.format(1600)}\" ({VLLM_AT}): qwen3-32b-fp8 is "
        "block-quantized fp8 (128 x 128 blocks, config.json quantization_config."
        "weight_block_size), and tensor parallel size 16 splits a block: dense MLP down_proj "
        f"(25,600 / tp 16) 1,600 % block_k 128 = 64; {ADVICE}")
    found = block_fp8_refusal("vllm", None, load_model("qwen3-32b-fp8"), 16)
    assert found is not None and (found.said, found.at) == ("vLLM", VLLM_AT)


@pytest.mark.parametrize(("version", "message"), [
    ("0.6.5", None), ("0.6.6", OUT.format(1600)), ("0.9.2", OUT.format(1600)),
    ("0.10.0", OUT.format(1600)), ("0.13.0", OUT.format(1600)), ("0.14.0", IN.format(1600)),
    (None, IN.format(1600))])
def test_vllm_releases_qwen3_32b_tp16(version: str | None, message: str | None) -> None:
    found = block_fp8_refusal("vllm", version, load_model("qwen3-32b-fp8"), 16)
    assert (None if found is None else found.message) == message


@pytest.mark.parametrize(("version", "message"), [
    ("0.4.0", None), ("0.4.1", OUT.format(1600)), ("0.5.23", OUT.format(1600)),
    (None, OUT.format(1600))])
def test_sglang_releases_qwen3_32b_tp16(version: str | None, message: str | None) -> None:
    found = block_fp8_refusal("sglang", version, load_model("qwen3-32b-fp8"), 16)
    assert (None if found is None else found.message) == message


def test_no_rule_where_tp_is_not_a_size_or_does_not_divide_the_heads() -> None:
    # TP 0 builds nothing; TP 3 does not divide 64 heads (the heads rule refuses it first);
    # neither engine is asked
    model = load_model("qwen3-32b-fp8")
    assert block_fp8_refusal("sglang", None, model, 0) is None
    assert block_fp8_refusal("sglang", None, model, 3) is None
    assert block_fp8_reason("sglang", None, model, 3) is None
    assert block_fp8_reason("sglang", None, model, 8) is None  # 3,200 = 25 x 128
    assert block_fp8_refusal("transformers", None, model, 16) is None


def test_qwen3_32b_at_tp2_keeps_both_gate_up_partitions_and_down() -> None:
    # TP 2 splits the MLP (25,600 / 2 = 12,800 = 100 x 128): vLLM 0.10.0+ checks both of a split
    # merged layer's partitions, and down_proj; TP 16 likewise (1,600: refused above)
    mlp = [a for a, _ in _listed("qwen3-32b-fp8", 2, "last")][4:]
    assert mlp == ["dense MLP gate_up_proj (25,600 / tp 2) 12,800 % block_n 128 = 0"] * 2 + [
        "dense MLP down_proj (25,600 / tp 2) 12,800 % block_k 128 = 0"]
    assert [a for a, _ in _listed("qwen3-32b-fp8", 16, "last")][3:] == [
        "dense MLP gate_up_proj (25,600 / tp 16) 1,600 % block_n 128 = 64"] * 2 + [
        "dense MLP down_proj (25,600 / tp 16) 1,600 % block_k 128 = 64"]


def test_kv_heads_as_many_as_tp_are_split() -> None:
    # Qwen3-235B's 4 KV heads at TP 4: one each, split (not replicated): vLLM 0.10.0+ checks all
    # three of qkv_proj's partitions (16 q heads x 128 = 2,048; 128; 128)
    assert [a for a, _ in _listed("qwen3-235b-a22b-fp8", 4, "last")][:3] == [
        "qkv_proj (16 q heads, 1 kv heads x 128) 2,048 % block_n 128 = 0",
        "qkv_proj (16 q heads, 1 kv heads x 128) 128 % block_n 128 = 0",
        "qkv_proj (16 q heads, 1 kv heads x 128) 128 % block_n 128 = 0"]


def test_deepseek_v3_at_tp2_checks_the_mla_projections() -> None:
    # 128 / 2 = 64 heads: q_b 64 x 192 = 12,288; kv_b 64 x 256 = 16,384; o_proj 64 x 128 = 8,192
    assert [a for a, _ in _listed("deepseek-v3", 2, "all")][:3] == [
        "q_b_proj (64 heads x 192) 12,288 % block_n 128 = 0",
        "kv_b_proj (64 heads x 256) 16,384 % block_n 128 = 0",
        "o_proj (64 heads x 128) 8,192 % block_k 128 = 0"]


def test_mla_without_a_q_lora_is_q_proj() -> None:
    # DeepSeek-V2-Lite (config.json: 16 heads, q_lora_rank null, qk_nope 128 + rope 64, v 128,
    # intermediate_size 10,944 for its first dense layer, moe_intermediate_size 1,408, two shared
    # experts) as block fp8 at TP 2: q_proj 8 x 192; 10,944 / 2 = 5,472 = 42 x 128 + 96;
    # experts 704 = 5 x 128 + 64; shared 2 x 1,408 / 2 = 1,408 = 11 x 128
    assert [a for a, _ in _listed(_blocked("deepseek-v2-lite"), 2, "all")] == [
        "q_proj (8 heads x 192) 1,536 % block_n 128 = 0",
        "kv_b_proj (8 heads x 256) 2,048 % block_n 128 = 0",
        "o_proj (8 heads x 128) 1,024 % block_k 128 = 0",
        "dense MLP gate_up_proj (10,944 / tp 2) 5,472 % block_n 128 = 96",
        "dense MLP gate_up_proj (10,944 / tp 2) 5,472 % block_n 128 = 96",
        "dense MLP down_proj (10,944 / tp 2) 5,472 % block_k 128 = 96",
        "each expert's gate/up (1,408 / 2) 704 % block_n 128 = 64",
        "each expert's down (1,408 / 2) 704 % block_k 128 = 64",
        "shared experts gate_up_proj (2,816 / tp 2) 1,408 % block_n 128 = 0",
        "shared experts gate_up_proj (2,816 / tp 2) 1,408 % block_n 128 = 0",
        "shared experts down_proj (2,816 / tp 2) 1,408 % block_k 128 = 0"]


def test_mla_spec_without_the_optional_head_dims() -> None:
    # the schema leaves qk_nope_head_dim and v_head_dim optional: without them the module
    # counts no nope part (q = heads x rope) and v as nope (0): DeepSeek-V3's 128 heads at TP 8,
    # 16 x 64 = 1,024
    spec = _blocked("deepseek-v3", qk_nope_head_dim=None, v_head_dim=None)
    assert [a for a, _ in _listed(spec, 8, "all")][:3] == [
        "q_b_proj (16 heads x 64) 1,024 % block_n 128 = 0",
        "kv_b_proj (16 heads x 0) 0 % block_n 128 = 0",
        "o_proj (16 heads x 0) 0 % block_k 128 = 0"]
    # v_head_dim alone missing: v is the nope part, 128 (kv_b 16 x 256)
    spec = _blocked("deepseek-v3", v_head_dim=None)
    assert [a for a, _ in _listed(spec, 8, "all")][1:3] == [
        "kv_b_proj (16 heads x 256) 4,096 % block_n 128 = 0",
        "o_proj (16 heads x 128) 2,048 % block_k 128 = 0"]


def test_tp1_is_refused_where_a_merged_layer_is_not_whole_blocks() -> None:
    # DeepSeek-V2-Lite's dense intermediate 10,944 = 85 x 128 + 64 at TP 1: gate_up_proj's
    # partitions fail in SGLang and vLLM before 0.10.0 (both checked); 0.10.0-0.13.0 spare the
    # last partition of an unsplit merged layer (one left); 0.14.0 skips the layer: it starts
    spec = _blocked("deepseek-v2-lite")
    both = ["dense MLP gate_up_proj (10,944 / tp 1) 10,944 % block_n 128 = 64"] * 2
    for engine, version, listed in (("sglang", None, both), ("vllm", "0.9.2", both),
                                    ("vllm", "0.10.0", both[:1]), ("vllm", "0.13.0", both[:1])):
        found = block_fp8_refusal(engine, version, spec, 1)
        assert found is not None and found.message == OUT.format(10944)
        assert [s.arithmetic() for s in found.shards] == listed
    assert block_fp8_refusal("vllm", "0.14.0", spec, 1) is None


def test_replicated_kv_heads_of_64_split_a_block() -> None:
    # Llama-3.2-1B (config.json: 32 heads, 8 KV heads x 64) as block fp8 at TP 16: 2 q heads x 64
    # = 128, each KV head replicated, 64 = half a block for k and v; SGLang and vLLM before
    # 0.10.0 check both, 0.10.0-0.13.0 spare v's (not split), 0.14.0 skips the layer
    spec = _blocked("llama-3.2-1b")
    kv = "qkv_proj (2 q heads, 1 kv heads x 64) 64 % block_n 128 = 64"
    for version, listed in (("0.9.2", [kv, kv]), ("0.10.0", [kv]), ("0.13.0", [kv])):
        found = block_fp8_refusal("vllm", version, spec, 16)
        assert found is not None and [s.arithmetic() for s in found.shards] == listed
        assert found.message == OUT.format(64)
    assert block_fp8_refusal("vllm", "0.14.0", spec, 16) is None
    assert block_fp8_reason("sglang", "0.5.23", spec, 16) == (
        f"SGLang 0.5.23 would not start: \"{OUT.format(64)}\" ({SGLANG_AT}): llama-3.2-1b is "
        "block-quantized fp8 (128 x 128 blocks, config.json quantization_config."
        f"weight_block_size), and tensor parallel size 16 splits a block: {kv}; {ADVICE}")


def test_the_reason_names_block_n_then_block_k_and_reads_ep() -> None:
    # a block of 64 output rows x 128 inputs: Qwen3-32B at TP 16, 1,600 = 25 x 64 (whole for
    # block_n), 1,600 % 128 = 64 (down_proj)
    why = block_fp8_reason("sglang", None, _blocked("qwen3-32b-fp8", (64, 128)), 16)
    assert why is not None and "(64 x 128 blocks, config.json" in why
    assert "down_proj (25,600 / tp 16) 1,600 % block_k 128 = 64;" in why
    # Qwen3-235B at TP 8: refused; with expert parallelism 8 each expert stays whole
    model = load_model("qwen3-235b-a22b-fp8")
    assert block_fp8_reason("sglang", None, model, 8) is not None
    assert block_fp8_reason("sglang", None, model, 8, ep=8) is None


# task mutnew: SGLang's shards other than tp (Split, kvplan.engines.sglang_dp), the release that
# checks a layer at its own group size (0.5.22, quantization/fp8.py:590-591 in 0.5.23), and the
# deployment's split and expert-parallel size. Kimi-K2 (config.json): 64 heads, MLA q_b 192,
# kv_b 256, o 128 a head; intermediate_size 18,432 (one dense layer), moe_intermediate_size
# 2,048, one shared expert.


def test_which_splits_the_check_sees() -> None:
    assert [Split(1, 1, 1, False).checked(1, 1), Split(2, 2, 2, False).checked(2, 2),
            Split(1, 1, 1, False).checked(1, 4), Split(2, 1, 1, True).checked(2, 4),
            Split(1, 1, 1, True).checked(1, 4), Split(4, 4, 4, True).checked(4, 4)] == [
        False, True, False, True, False, True]


@pytest.mark.parametrize("by_layer", [True, False])
def test_kimi_at_tp32_with_attention_over_4_and_whole_dense_and_shared(by_layer: bool) -> None:
    # attention over 4 GPUs: 16 heads x 192 = 3,072, x 256 = 4,096, x 128 = 2,048 (checked only
    # where the check reads the layer's own size); the dense MLP and the shared expert whole (a
    # merged layer checked at any size, both partitions: not split); the experts at tp 32
    mla = ["q_b_proj (16 heads x 192) 3,072 % block_n 128 = 0",
           "kv_b_proj (16 heads x 256) 4,096 % block_n 128 = 0",
           "o_proj (16 heads x 128) 2,048 % block_k 128 = 0"]
    rest = ["dense MLP gate_up_proj (18,432 / tp 1) 18,432 % block_n 128 = 0"] * 2 + [
        "each expert's gate/up (2,048 / 32) 64 % block_n 128 = 64",
        "each expert's down (2,048 / 32) 64 % block_k 128 = 64"] + [
        "shared experts gate_up_proj (2,048 / tp 1) 2,048 % block_n 128 = 0"] * 2
    got = [s.arithmetic() for s in shards(load_model("kimi-k2"), 32, None, "all",
                                          Split(4, 1, 1, by_layer))]
    assert got == (mla if by_layer else []) + rest


@pytest.mark.parametrize(("version", "refused"), [("0.5.21", False), ("0.5.22", True),
                                                  ("0.5.23", True), (None, True)])
def test_sglang_checks_attention_at_its_own_size_from_0_5_22(version: str | None,
                                                             refused: bool) -> None:
    # TP 128 with 2 attention-DP ranks (attention over 64: one head, q_b 192 = 1.5 blocks),
    # DeepEP (each expert whole), dense and shared whole: 0.5.21 checks at the whole TP only
    found = block_fp8_refusal("sglang", version, load_model("kimi-k2"), 128, 128,
                              Split(64, 1, 1, False))
    if not refused:
        assert found is None
        return
    assert found is not None and [s.arithmetic() for s in found.shards] == [
        "q_b_proj (1 heads x 192) 192 % block_n 128 = 64"]
    assert found.message == OUT.format(192)
    assert found.said == ("SGLang " + version if version else "SGLang")
    why = block_fp8_reason("sglang", version, load_model("kimi-k2"), 128, 128,
                           Split(64, 1, 1, False))
    assert why is not None and "splits a block: q_b_proj (1 heads x 192) 192 % block_n 128 = 64;" \
        in why


def test_a_split_whose_attention_size_does_not_divide_the_heads_has_no_rule() -> None:
    kimi = load_model("kimi-k2")
    assert block_fp8_refusal("sglang", "0.5.5", kimi, 32, None, Split(3, 1, 1, False)) is None
    assert block_fp8_refusal("sglang", "0.5.5", kimi, 32, None, Split(0, 1, 1, False)) is None


def test_vllm_ignores_a_split() -> None:
    qwen = load_model("qwen3-235b-a22b-fp8")
    plain = block_fp8_refusal("vllm", "0.19.1", qwen, 8)
    assert plain is not None and plain == block_fp8_refusal("vllm", "0.19.1", qwen, 8, None,
                                                            Split(1, 8, 8, False))


def test_the_deployments_split_and_expert_parallel_size() -> None:
    kimi, llama = load_model("kimi-k2"), load_model("llama-3-8b")
    assert engine_split("vllm", kimi, 32, None, 8, None) is None
    assert engine_split("sglang", kimi, 32, None, 1, None) is None  # every layer over tp
    assert engine_split("sglang", kimi, 32, None) is None  # one attention-DP rank by default
    assert engine_split("sglang", kimi, 32, None, 8, None) == Split(4, 32, 32, False)
    assert engine_split("sglang", kimi, 32, None, 1, NS(moe_dense_tp_size=1)) == Split(
        32, 1, 32, False)
    deepep = NS(moe_a2a_backend="deepep")
    assert engine_ep("sglang", kimi, 32, None, deepep) == 32  # server_args.py:1427-1434
    assert engine_ep("vllm", kimi, 32, 4, deepep) == 4
    assert engine_ep("sglang", llama, 8, None, deepep) is None  # no experts
    assert engine_ep("sglang", kimi, 32, 4, NS(moe_a2a_backend="none")) == 4
    assert engine_ep("sglang", kimi, 32, 4, None) == 4
