"""SGLang's data-parallel attention, --moe-dense-tp-size, --enable-dp-lm-head and DeepEP
(kvplan.engines.sglang_dp, task h100sgldp): the shards each GPU holds, the pools a replica has,
the block-fp8 rule at those shards, and the settings SGLang refuses.

Hand values from Kimi-K2-Instruct's config.json (tests/assets/hf_configs/kimi-k2.json): hidden
7,168, 64 heads, q_lora_rank 1,536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, 61
layers (first_k_dense_replace 1, intermediate 18,432), 384 routed experts and 1 shared of
moe_intermediate 2,048, vocab 163,840, fp8 in 128 x 128 blocks. Per layer the sharded attention
is q_b 1,536 x 64 x 192 + kv_b 512 x 64 x 256 + o 64 x 128 x 7,168 = 85,983,232 parameters."""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines.fp8_blocks import Split, block_fp8_refusal
from kvplan.engines.interface import Engine, EngineSettings
from kvplan.engines.sglang import profile
from kvplan.engines.sglang_dp import extra_bytes, layout, parts, refusal
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

KIMI = load_model("kimi-k2")
QWEN = load_model("qwen3-235b-a22b-fp8")  # qwen3_moe: 64 q heads, 4 KV heads of 128, 94 layers
GLM = load_model("glm-4.5")  # glm4_moe
H100 = load_hardware("h100")

ATTENTION = 85_983_232 * 61  # 5,244,977,152 fp8 bytes
EMBED = 163_840 * 7_168 * 2  # bf16: 2,348,810,240 B, as the LM head
DENSE = 3 * 7_168 * 18_432  # one dense layer, fp8: 396,361,728 B
SHARED = 60 * 3 * 7_168 * 2_048  # 60 MoE layers x one shared expert: 2,642,411,520 B


def _req(model=KIMI, tp=32, dp=1, nodes=4, context=32_768, gpu=H100, ep=None):
    return SizeRequest(model=model, gpu=gpu, context_tokens=context, tp=tp, nodes=nodes,
                       attention_dp=dp, kv_dtype=DType.bf16, ep=ep)


def _s(version="0.5.5", **kw):
    return EngineSettings(engine=Engine.sglang, version=version, **kw)


def test_the_layout_follows_the_source_by_release():
    # TP 32 with 8 attention-DP ranks: attention over 4 GPUs
    lay = layout(_req(dp=8), _s("0.5.7"))
    assert (lay.dp, lay.attn_tp, lay.embed_tp, lay.lm_head_tp, lay.dense_tp, lay.shared_tp,
            lay.ep) == (8, 4, 1, 32, 32, 32, None)  # the embedding whole to 0.5.7
    lay = layout(_req(dp=8), _s("0.5.8", enable_dp_lm_head=True, moe_dense_tp_size=1,
                                moe_a2a_backend="deepep"))
    assert (lay.attn_tp, lay.embed_tp, lay.lm_head_tp, lay.dense_tp, lay.shared_tp, lay.ep) == \
        (4, 4, 4, 1, 1, 32)  # over the attention-TP group from 0.5.8; DeepEP: ep = tp
    # qwen2_moe.py (Qwen3-MoE): over tp to 0.4.6, whole from 0.4.6.post5 (read as 0.4.7) to
    # 0.5.8, over the attention-TP group from 0.5.9; glm4_moe.py whole to 0.5.8
    q = _req(QWEN, tp=8, dp=2, nodes=None)
    assert [layout(q, _s(v)).embed_tp for v in ("0.4.6", "0.4.7", "0.5.8", "0.5.9")] == \
        [8, 1, 1, 4]
    g = _req(GLM, tp=8, dp=2, nodes=None)
    assert [layout(g, _s(v)).embed_tp for v in ("0.5.8", "0.5.9")] == [1, 4]
    # no data-parallel attention: --moe-dense-tp-size 1 and DeepEP still move their layers
    plain = layout(_req(), _s(moe_dense_tp_size=1, moe_a2a_backend="deepep"))
    assert (plain.dp, plain.attn_tp, plain.embed_tp, plain.dense_tp, plain.shared_tp,
            plain.ep) == (1, 32, 32, 1, 1, 32)
    # Qwen3-MoE has neither dense layers nor shared experts that these flags move
    assert layout(q, _s(moe_dense_tp_size=1, moe_a2a_backend="deepep")).dense_tp == 8


def test_each_part_beyond_the_even_split_by_hand():
    # the ome Kimi-K2 prefill: TP 32, --dp-size 32, --moe-dense-tp-size 1, DeepEP, dp LM head
    lay = layout(_req(dp=32), _s(moe_dense_tp_size=1, moe_a2a_backend="deepep",
                                  enable_dp_lm_head=True))
    assert [(held, booked) for _, held, booked in parts(_req(dp=32), lay)] == [
        (ATTENTION, ATTENTION // 32), (EMBED, EMBED // 32), (EMBED, EMBED // 32),
        (DENSE, DENSE // 32), (SHARED, SHARED // 32)]
    assert extra_bytes(_req(dp=32), lay) == 12_575_703_040


def test_the_profile_holds_the_shards_and_the_replica_holds_one_pool_per_rank():
    plain = profile(_req(), _s())
    dp = profile(_req(dp=32), _s())
    # attention whole (85,983,232 x 61 less 1/32 booked) and the embedding whole; LM head at tp
    assert dp.weights_bytes - plain.weights_bytes == (ATTENTION - ATTENTION // 32) + (
        EMBED - EMBED // 32) == 7_356_481_536
    # MLA: one latent a token on every GPU, (512 + 64) x 2 B x 61 = 70,272 B, either way
    assert [s.value for s in dp.steps if s.label == "cell size"] == [70_272]
    assert plain.size.users_per_replica == plain.kv_cache_tokens // 32_768
    assert dp.size.users_per_replica == 32 * (dp.kv_cache_tokens // 32_768) == 320
    assert [s.value for s in dp.steps if s.label == "users (every attention-DP rank)"] == [320]


def test_a_gqa_model_caches_the_kv_heads_of_its_attention_rank():
    # Qwen3-235B-A22B-FP8 at TP 8: plain TP keeps one of its 4 KV heads a GPU (94 x 1 x 128 x 2 x
    # 2 B = 48,128 B a token); 8 attention-DP ranks hold all 4 (192,512 B)
    req = _req(QWEN, tp=8, nodes=None, context=32_768, gpu=load_hardware("h200"))
    cells = [[s.value for s in profile(r, _s("0.5.23")).steps if s.label == "cell size"]
             for r in (req, _req(QWEN, tp=8, dp=8, nodes=None, gpu=load_hardware("h200")))]
    assert cells == [[48_128], [192_512]]


def test_the_block_rule_at_the_engines_shards():
    deep = Split(attn_tp=1, dense_tp=1, shared_tp=1, by_layer=False)
    # the ome prefill (TP 32) and decode (TP 96), both with DeepEP (ep = tp) and dense TP 1:
    # attention at 1 GPU, the dense MLP and shared experts whole, each expert whole: it starts
    for version in ("0.5.5", "0.5.23"):
        assert block_fp8_refusal("sglang", version, KIMI, 32, 32, deep) is None
        assert block_fp8_refusal("sglang", version, KIMI, 96, 96, deep) is None
    # without DeepEP the TP-96 experts split: 2,048 // 96 = 21
    found = block_fp8_refusal("sglang", "0.5.5", KIMI, 96, None, deep)
    assert found is not None and found.message == (
        "The output_size of gate's and up's weight = 21 is not divisible by weight "
        "quantization block_n = 128.")
    # without --moe-dense-tp-size the dense MLP splits at 32: 18,432 / 32 = 576, 576 % 128 = 64
    found = block_fp8_refusal("sglang", "0.5.5", KIMI, 32, 32, Split(1, 32, 1, False))
    assert found is not None and found.message == (
        "Weight output_partition_size = 576 is not divisible by weight quantization block_n = "
        "128.")
    # which splits the check sees: up to 0.5.21 only the whole TP, from 0.5.22 the layer's own
    assert [Split(4, 1, 1, False).checked(4, 32), Split(4, 1, 1, True).checked(4, 32),
            Split(4, 1, 1, False).checked(32, 32), Split(4, 1, 1, True).checked(1, 32)] == \
        [False, True, True, False]


def test_outcome_93s_model_starts_with_deepep_and_attention_dp():
    # Qwen3-235B-A22B-FP8 at TP 8 is refused (1,536 / 8 = 192 per expert); with DeepEP the
    # experts are whole and with 8 attention-DP ranks qkv_proj is [8,192, 512, 512] a GPU
    assert block_fp8_refusal("sglang", "0.4.6.post1", QWEN, 8) is not None
    assert block_fp8_refusal("sglang", "0.4.6.post1", QWEN, 8, 8,
                             Split(1, 8, 8, False)) is None


def test_the_releases_refusals():
    assert refusal(32, _s(moe_dense_tp_size=2)) == (
        "SGLang 0.5.5 would not start: --moe-dense-tp-size 2: \"moe_dense_tp_size only support "
        "1 and None currently\" (server_args.py:3704-3707 in 0.5.5); use --moe-dense-tp-size 1 "
        "or leave it unset")
    assert refusal(32, _s("0.5.12", moe_dense_tp_size=32)) is not None
    assert refusal(32, _s("0.5.13", moe_dense_tp_size=32)) is None  # tp allowed from 0.5.13
    assert refusal(32, _s("0.5.23", moe_dense_tp_size=1)) is None
    assert refusal(32, _s("0.5.23", moe_dense_tp_size=4)) == (
        "SGLang 0.5.23 would not start: --moe-dense-tp-size 4 with --tp 32: \"moe_dense_tp_size "
        "only supports None, 1, or tp_size currently\" (arg_groups/validation_hook.py:207-211 "
        "in 0.5.23); use 1, 32 or leave it unset")
    r = profile(_req(), _s(moe_dense_tp_size=2))
    assert not r.starts and r.reason is not None and "only support 1 and None" in r.reason
    with pytest.raises(InputError, match="^moe_a2a_backend must be one of none, deepep, "):
        _s(moe_a2a_backend="pplx").check()


def test_a_stated_running_cap_is_shared_by_the_ranks():
    # --max-running-requests 64 over 32 ranks: 2 a rank from 0.5.10 (64 // 32), each rank's two
    # sequences of 32,768 tokens x 70,272 B on its GPUs; before 0.5.10 each rank takes the 64
    r = profile(_req(dp=32), _s("0.5.23", max_running_requests=64))
    assert r.size.users_per_replica == 64
    assert r.size.breakdown.kv_used_bytes == 2 * 32_768 * 70_272
    assert profile(_req(dp=32), _s("0.5.5", max_running_requests=64)).size.users_per_replica \
        == 320  # 10 a rank fit, under 64


def test_the_ome_decode_engine_holds_each_part_whole():
    # TP 96 over 12 nodes, --dp-size 96 (attention at 1 GPU), --moe-dense-tp-size 1, DeepEP,
    # --enable-dp-lm-head, SGLang 0.5.23 (the embedding over the attention's one GPU: whole)
    # (plain TP 96 is refused: 64 heads). Before this task kvplan planned 12,262,735,675 B a GPU
    # here (`kvplan explain` of tests/assets/check/corpus/ome/srt-kimi-k2-pd-rt.yaml --gpu h100,
    # the decoder's weights step, on main at 53970729); each part below is added to it
    flags = {"moe_dense_tp_size": 1, "moe_a2a_backend": "deepep", "enable_dp_lm_head": True}
    dp = profile(_req(tp=96, dp=96, nodes=12), _s("0.5.23", **flags))
    assert dp.weights_bytes - 12_262_735_675 == sum(
        part - part // 96 for part in (ATTENTION, EMBED, EMBED, DENSE, SHARED)) == 12_846_148_268
