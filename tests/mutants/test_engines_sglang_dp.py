"""Mutation tests of kvplan/engines/sglang_dp.py (task mutnew): the layout by model and flag,
each part beyond the even split with a pipeline, the refusals, assumptions, the rank's request,
the running cap's share and the moot-flag refusals, word for word.

Hand values from config.json (tests/assets/hf_configs): DeepSeek-V2-Lite (deepseek_v2, bf16):
27 layers, hidden 2,048, 16 heads, no q_lora_rank, kv_lora_rank 512, qk_nope 128, qk_rope 64,
v_head 128, vocab 102,400, first_k_dense_replace 1 (intermediate 10,944), 2 shared experts of
moe_intermediate 1,408. A layer's sharded attention per head: q_proj 2,048 x 192 + kv_b 512 x
256 + o 128 x 2,048 = 786,432 parameters. GLM-4.5 (glm4_moe, bf16): 92 layers, hidden 5,120, 96
heads, 8 KV heads of 128, vocab 151,552. SGLang's rules are the module's (0.4.6.post1-0.5.23
wheels, cited there)."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines.fp8_blocks import Split
from kvplan.engines.interface import Engine, EngineSettings
from kvplan.engines.sglang import profile
from kvplan.engines.sglang_dp import (
    Layout,
    _attention_params,
    assumptions,
    block_split,
    cap_users,
    check_settings,
    describe,
    extra_bytes,
    layout,
    layout_of,
    moot_refusals,
    parts,
    rank_cap,
    rank_request,
    refusal,
)
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

H100 = load_hardware("h100")
LITE, GLM = load_model("deepseek-v2-lite"), load_model("glm-4.5")
KIMI, LLAMA = load_model("kimi-k2"), load_model("llama-3-8b")
QWEN = load_model("qwen3-30b-a3b")  # qwen3_moe: no dense layers, no shared experts
FLAGS = {"moe_dense_tp_size": 1, "moe_a2a_backend": "deepep", "enable_dp_lm_head": True}


def _s(version: str | None = "0.5.5", **kw: object) -> EngineSettings:
    return EngineSettings(engine=Engine.sglang, version=version, **kw)  # type: ignore[arg-type]


def _req(model=LITE, tp=4, dp=1, pp=1, **kw) -> SizeRequest:  # type: ignore[no-untyped-def]
    return SizeRequest(model=model, gpu=H100, context_tokens=4096, tp=tp, pp=pp,
                       attention_dp=dp, **kw)


def _fields(lay: Layout) -> tuple[object, ...]:
    return (lay.dp, lay.attn_tp, lay.embed_tp, lay.lm_head_tp, lay.dense_tp, lay.shared_tp,
            lay.ep, lay.modelled)


def test_the_layout_by_model_and_flag() -> None:
    # DeepEP moves no layer of a model without experts, and the shared experts of the
    # DeepSeek-V2 family only
    assert _fields(layout(_req(LLAMA, tp=8), _s(**FLAGS))) == (1, 8, 8, 8, 8, 8, None, True)
    assert _fields(layout(_req(QWEN, tp=8), _s(**FLAGS))) == (1, 8, 8, 8, 8, 8, 8, True)
    assert _fields(layout(_req(LITE, tp=4), _s(**FLAGS))) == (1, 4, 4, 4, 1, 1, 4, True)
    # a stated EP is kept without DeepEP
    assert layout(_req(QWEN, tp=8, ep=4), _s()).ep == 4
    # data-parallel attention over an architecture whose shards were not read
    assert _fields(layout(_req(LLAMA, tp=8, dp=2), _s())) == (2, 4, 8, 8, 8, 8, None, False)
    assert _fields(layout(_req(QWEN, tp=8, dp=4), _s("0.5.9"))) == (4, 2, 2, 8, 8, 8, None, True)
    assert _fields(layout(_req(LITE, tp=4, dp=2), _s("0.5.8", **FLAGS))) == (
        2, 2, 2, 2, 1, 1, 4, True)
    # no version: SGLang 0.5.23, the embedding over the attention-TP group
    assert layout(_req(LITE, tp=4, dp=2), _s(None)).embed_tp == 2
    assert layout(_req(LITE, tp=4, dp=2), _s("0.5.7")).embed_tp == 1
    # qwen2_moe.py: over tp to 0.4.6.post4, whole from 0.4.7 (0.4.6.post5 read as 0.4.7)
    assert [layout(_req(QWEN, tp=8, dp=4), _s(v)).embed_tp for v in ("0.4.6", "0.4.7")] == [8, 1]


def test_the_engine_block_reads_each_key() -> None:
    block = NS(version="0.5.8", moe_dense_tp_size=1, enable_dp_lm_head=True,
               moe_a2a_backend="deepep")
    assert _fields(layout_of(LITE, 4, None, 2, block)) == (2, 2, 2, 2, 1, 1, 4, True)
    assert _fields(layout_of(LITE, 4, None, 2, NS(version="0.5.7"))) == (
        2, 2, 1, 4, 4, 4, None, True)
    assert _fields(layout_of(LITE, 4, None, 2, None)) == (2, 2, 2, 4, 4, 4, None, True)
    assert layout_of(LITE, 4, None, 2, NS(enable_dp_lm_head=False)).lm_head_tp == 4
    assert layout_of(QWEN, 8, 4, 1, None).ep == 4  # a stated EP without DeepEP


def test_block_split_hands_the_three_sizes_on() -> None:
    lay = layout(_req(LITE, tp=4, dp=2), _s("0.5.8", **FLAGS))
    assert block_split(lay) == Split(2, 1, 1, False)


def test_the_attention_parameters() -> None:
    # MLA without q_lora: 27 layers x 16 heads x 786,432; held at 2: 8 heads a rank
    assert _attention_params(_req(LITE), 2) == (27 * 16 * 786_432, 27 * 8 * 786_432)
    # GQA: 92 x 5,120 x (96 x 128 + 8 x 256 + 96 x 128); at 3 GPUs 32 heads and 8 // 3 = 2 KV
    # heads a GPU; at 16, one KV head (8 // 16 = 0, held at one)
    total = 92 * 5120 * (96 * 128 + 8 * 256 + 96 * 128)
    assert _attention_params(_req(GLM, tp=6), 3) == (total, 92 * 5120 * (32 * 256 + 2 * 256))
    assert _attention_params(_req(GLM, tp=16), 16) == (total, 92 * 5120 * (6 * 256 + 1 * 256))


def test_the_attention_parameters_of_an_mla_spec_without_its_optional_head_dims() -> None:
    # the schema leaves MLA's qk_nope_head_dim and v_head_dim optional: v falls back to nope, and
    # nope to 0. Kimi-K2's per head: q_b 1,536 x (nope + 64), kv_b 512 x (nope + v), o v x 7,168
    def kimi(**mla: None) -> SizeRequest:
        att = KIMI.attention
        assert att.mla is not None
        spec = KIMI.model_copy({"attention": att.model_copy({"mla": att.mla.model_copy(mla)})})
        return _req(spec, tp=8)

    full = 61 * 64 * (1536 * 192 + 512 * 256 + 128 * 7168)
    assert _attention_params(kimi(v_head_dim=None), 4) == (full, full // 4)  # v = nope = 128
    no_nope = 61 * 64 * (1536 * 64 + 512 * 128 + 128 * 7168)
    assert _attention_params(kimi(qk_nope_head_dim=None), 4) == (no_nope, no_nope // 4)
    neither = 61 * 64 * (1536 * 64)  # v = nope = 0
    assert _attention_params(kimi(qk_nope_head_dim=None, v_head_dim=None), 4) == (
        neither, neither // 4)


ATT = 27 * 16 * 786_432 * 2  # bf16 bytes: 679,477,248
EMB = 102_400 * 2048 * 2  # 419,430,400 B, as the LM head
DENSE = 1 * 3 * 2048 * 10_944 * 2  # 134,479,872 B
SHARED = 26 * 2 * 3 * 2048 * 1408 * 2  # 899,678,208 B


def test_each_part_with_one_stage() -> None:
    req = _req(LITE, tp=4, dp=2)
    lay = layout(req, _s("0.5.8", **FLAGS))
    assert parts(req, lay) == [
        ("attention over attn_tp 2", ATT // 2, ATT // 4), ("embedding over 2", EMB // 2, EMB // 4),
        ("LM head over 2", EMB // 2, EMB // 4), ("dense MLP over 1", DENSE, DENSE // 4),
        ("shared experts over 1", SHARED, SHARED // 4)]
    assert extra_bytes(req, lay) == (ATT // 2 - ATT // 4) + 2 * (EMB // 2 - EMB // 4) + (
        DENSE - DENSE // 4) + (SHARED - SHARED // 4) == 1_155_203_072
    assert describe(req, lay) == (
        "attention over attn_tp 2: 339,738,624 B held where the split booked 169,869,312; "
        "embedding over 2: 209,715,200 B held where the split booked 104,857,600; LM head over "
        "2: 209,715,200 B held where the split booked 104,857,600; dense MLP over 1: "
        "134,479,872 B held where the split booked 33,619,968; shared experts over 1: "
        "899,678,208 B held where the split booked 224,919,552")


def test_each_part_of_the_first_of_two_stages() -> None:
    # the first stage holds half the layers' attention and shared experts, the whole
    # embedding and the dense layer, no LM head; the even split booked over tp x pp = 8
    req = _req(LITE, tp=4, dp=2, pp=2)
    lay = layout(req, _s("0.5.8", **FLAGS))
    assert parts(req, lay) == [
        ("attention over attn_tp 2", ATT // 2 // 2, ATT // 8),
        ("embedding over 2", EMB // 2, EMB // 8), ("LM head over 2", 0, EMB // 8),
        ("dense MLP over 1", DENSE, DENSE // 8), ("shared experts over 1", SHARED // 2, SHARED // 8)]
    assert extra_bytes(req, lay) == 644_841_472


@pytest.mark.parametrize(("dtype", "width"), [(DType.fp8, 2), (DType.bf16, 2), (DType.fp32, 4)])
def test_the_embedding_is_bf16_under_8_bit_weights_else_the_weights_width(dtype: DType,
                                                                         width: int) -> None:
    # an fp8 checkpoint keeps its embedding in bf16 (2 B); bf16 and fp32 weights their own
    req = _req(LITE, tp=4, dp=2, weight_dtype=dtype)
    got = parts(req, layout(req, _s("0.5.8")))
    assert got[1] == ("embedding over 2", 102_400 * 2048 * width // 2, 102_400 * 2048 * width // 4)
    assert got[0][1:] == (27 * 8 * 786_432 * dtype.bits // 8, 27 * 16 * 786_432 * dtype.bits // 32)


def test_an_embedding_that_does_not_divide_is_rounded_up() -> None:
    # GLM-4.5 at TP 6 with 2 ranks (0.5.9: embedding over attn_tp 3): 151,552 x 5,120 x 2 =
    # 1,551,892,480 B, / 3 = 517,297,493.3 held, ceil; the LM head over tp 6, ceil again
    emb = 151_552 * 5120 * 2
    req = _req(GLM, tp=6, dp=2)
    got = parts(req, layout(req, _s("0.5.9")))
    assert describe(req, layout(req, _s("0.5.9"))).startswith(
        "attention over attn_tp 3: 8,199,864,320 B held where the split booked 4,180,322,986; ")
    assert got[1:] == [("embedding over 3", 517_297_494, emb // 6),
                       ("LM head over 6", 258_648_747, emb // 6)]
    assert got[0] == ("attention over attn_tp 3", 92 * 5120 * 8704 * 2,
                      92 * 5120 * 26_624 * 2 // 6)


def test_no_part_without_data_parallel_attention_or_moved_layers() -> None:
    req = _req(LITE, tp=4)
    lay = layout(req, _s())
    assert parts(req, lay) == [] and extra_bytes(req, lay) == 0 and describe(req, lay) == ""
    llama = _req(LLAMA, tp=8, dp=2)  # not modelled: the plain split
    assert parts(llama, layout(llama, _s())) == []
    # the dense and shared parts need the layers: Qwen3-MoE has neither
    qwen = _req(QWEN, tp=8)
    assert parts(qwen, Layout(1, 8, 8, 8, 1, 1, None, True)) == []
    assert parts(_req(LLAMA, tp=8), Layout(1, 8, 8, 8, 1, 1, None, True)) == []


def test_the_releases_refusals_word_for_word() -> None:
    assert refusal(8, _s("0.5.12", moe_dense_tp_size=8)) == (
        "SGLang 0.5.12 would not start: --moe-dense-tp-size 8: \"moe_dense_tp_size only support "
        "1 and None currently\" (server_args.py:3704-3707 in 0.5.5); use --moe-dense-tp-size 1 or "
        "leave it unset")
    assert refusal(8, _s(None, moe_dense_tp_size=4)) == (
        "SGLang 0.5.23 would not start: --moe-dense-tp-size 4 with --tp 8: \"moe_dense_tp_size "
        "only supports None, 1, or tp_size currently\" (arg_groups/validation_hook.py:207-211 in "
        "0.5.23); use 1, 8 or leave it unset")
    assert refusal(8, _s("0.5.5", moe_dense_tp_size=1)) is None
    assert refusal(8, _s("0.5.13", moe_dense_tp_size=8)) is None
    assert refusal(8, _s(None, moe_dense_tp_size=8)) is None
    assert refusal(8, _s("0.5.5")) is None


def test_values_no_release_takes() -> None:
    for n in (0, -1):
        with pytest.raises(InputError) as e:
            check_settings(NS(moe_dense_tp_size=n, moe_a2a_backend=None))  # type: ignore[arg-type]
        assert str(e.value) == f"moe_dense_tp_size must be a positive integer, got {n}"
    with pytest.raises(InputError) as e:
        check_settings(NS(moe_dense_tp_size=None, moe_a2a_backend="pplx"))  # type: ignore[arg-type]
    assert str(e.value) == ("moe_a2a_backend must be one of none, deepep, mooncake (SGLang 0.5.5's "
                            "choices), got 'pplx'")
    for backend in (None, "none", "deepep", "mooncake"):
        check_settings(NS(moe_dense_tp_size=1, moe_a2a_backend=backend))  # type: ignore[arg-type]


DP_LM = ("--enable-dp-lm-head without data-parallel attention: SGLang turns it off with one DP "
         "rank (server_args.py:1375-1377 in 0.5.5) and refuses it with --dp-size > 1 but no "
         "--enable-dp-attention (\"Please enable dp attention when setting enable_dp_lm_head.\", "
         ":1387-1390); planned without it")


def _ranks(dp: int, attn: int) -> str:
    return (f"data-parallel attention: {dp} ranks of attention over {attn} GPU(s) each; every "
            f"GPU's pool holds its rank's KV heads, and a replica holds {dp} pools (sglang "
            "model_runner.py:1311 in 0.5.5, pool_configurator.py:356 in 0.5.23)")


def test_the_assumptions_word_for_word() -> None:
    def said(req: SizeRequest, s: EngineSettings) -> list[str]:
        return assumptions(req, s, layout(req, s))

    assert said(_req(LLAMA, tp=8), _s(**FLAGS)) == [
        DP_LM, "--moe-dense-tp-size 1 applies to the DeepSeek-V2-family models (deepseek_v2.py, "
        "glm4_moe.py); llama-3-8b builds its MLP at tp 8",
        "--moe-a2a-backend deepep: llama-3-8b has no experts; nothing moves"]
    assert said(_req(LITE, tp=4), _s(moe_dense_tp_size=1)) == [
        "--moe-dense-tp-size 1 without data-parallel attention: the dense MLP is whole on every "
        "GPU all the same (deepseek_v2.py:2624-2633 in 0.5.5)"]
    assert said(_req(LITE, tp=4), _s()) == []
    assert said(_req(QWEN, tp=8), _s(moe_a2a_backend="deepep")) == []
    assert said(_req(LITE, tp=4, dp=2), _s(**FLAGS)) == [_ranks(2, 2)]
    assert said(_req(LLAMA, tp=8, dp=2), _s()) == [_ranks(2, 4), (
        "data-parallel attention: the weights of llama-3-8b (llama) are planned at the plain "
        "tensor-parallel split; SGLang's shards were read for the DeepSeek-V2 family and "
        "Qwen-MoE models")]


def test_the_rank_request() -> None:
    req = _req(KIMI, tp=32, dp=8, nodes=4, ep=8)
    rank = rank_request(req, layout(req, _s()))
    assert (rank.tp, rank.attention_dp, rank.ep, rank.nodes, rank.pp,
            rank.gpu.gpus_per_node) == (4, 1, None, None, 1, 8)
    assert rank.gpu.memory_bytes == H100.memory_bytes and rank.model is KIMI
    # a rank of 16 GPUs over two stages: its node given 32 GPUs
    req = _req(KIMI, tp=32, dp=2, pp=2, nodes=8)
    assert rank_request(req, layout(req, _s())).gpu.gpus_per_node == 32
    plain = _req(KIMI, tp=8)
    assert rank_request(plain, layout(plain, _s())) is plain


def test_the_pools_steps() -> None:
    # Kimi-K2 at TP 32 with 32 ranks, bf16 cache: 32,768 x 70,272 B a sequence on a GPU
    req = SizeRequest(model=KIMI, gpu=H100, context_tokens=32_768, tp=32, nodes=4,
                      attention_dp=32, kv_dtype=DType.bf16)
    steps = {s.label: s for s in profile(req, _s()).steps}
    seq, users = steps["KV bytes per sequence"], steps["users per attention-DP rank"]
    assert (seq.value, seq.unit, seq.formula) == (
        32_768 * 70_272, "bytes",
        "32,768 tokens, the KV heads of one attention-TP rank of 1 GPU(s) on this GPU")
    assert (users.value, users.unit, users.formula) == (
        10, "users", "its own pool, the KV pool of each of its GPUs")
    ranks, every = steps["attention-DP ranks"], steps["users (every attention-DP rank)"]
    assert (ranks.value, ranks.unit, ranks.formula) == (32, "ranks",
                                                       "--dp-size 32: tp 32 / attn_tp 1")
    assert (every.value, every.unit, every.formula, every.op, every.args) == (
        320, "users", "users per attention-DP rank x attention-DP ranks", "mul",
        ("users per attention-DP rank", "attention-DP ranks"))


def test_two_ranks_hold_two_pools() -> None:
    req = SizeRequest(model=KIMI, gpu=H100, context_tokens=32_768, tp=32, nodes=4,
                      attention_dp=2, kv_dtype=DType.bf16)
    r = profile(req, _s())
    steps = {s.label: s.value for s in r.steps}
    per = steps["users per attention-DP rank"]
    assert steps["attention-DP ranks"] == 2 and r.size.users_per_replica == 2 * per > 0


def test_a_running_cap_by_release() -> None:
    # sglang_req_map: the whole count before 0.5.10, cap // dp from 0.5.10, at least 1 in 0.5.23
    assert [rank_cap(64, 32, v) for v in ("0.5.9", "0.5.10", "0.5.22", "0.5.23", None)] == [
        64, 2, 2, 2, 2]
    assert [rank_cap(3, 4, v) for v in ("0.5.9", "0.5.10", "0.5.22", "0.5.23", None)] == [
        3, 0, 0, 1, 1]
    assert cap_users(64, 32, "0.5.23", (320, 0, 1000), 7) == (
        64, (64, 2 * 1000), ", 2 on each of the 32 attention-DP ranks")
    assert cap_users(3, 4, "0.5.10", (8, 0, 1000), 7) == (
        0, (0, 0), ", 0 on each of the 4 attention-DP ranks")
    assert cap_users(64, 1, None, None, 7) == (64, (64, 64 * 7), "")


def _moot(model, tp: int, dp: int, **engine: object) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    said: list[tuple[str, str]] = []
    e = {"enable_dp_lm_head": None, "moe_dense_tp_size": None, "moe_a2a_backend": None, **engine}
    dep = NS(engine=NS(**e), parallel=NS(attention_dp=dp))
    moot_refusals(dep, _req(model, tp=tp, dp=dp), lambda f, w: said.append((f, w)))
    return said


def test_flags_that_cannot_move_the_plan() -> None:
    assert _moot(LITE, 4, 1) == [("parallel.attention_dp", (
        "one attention data-parallel rank is plain tensor parallelism (SGLang turns "
        "data-parallel attention off at --dp-size 1); give more ranks or drop the option"))]
    assert _moot(LITE, 4, 2) == [] and _moot(LITE, 4, 0) == []
    assert _moot(LITE, 4, 0, enable_dp_lm_head=True) == [("engine.enable_dp_lm_head", (
        "without data-parallel attention SGLang turns it off (server_args.py:1375-1377 in "
        "0.5.5); add --attention-dp or drop the option"))]
    assert _moot(LITE, 4, 2, enable_dp_lm_head=True) == []
    assert [f for f, _ in _moot(LITE, 4, 1, enable_dp_lm_head=True)] == [
        "parallel.attention_dp", "engine.enable_dp_lm_head"]  # one rank: both
    assert _moot(QWEN, 8, 0, moe_dense_tp_size=1) == [("engine.moe_dense_tp_size", (
        "qwen3-30b-a3b has no dense MLP layers that SGLang builds by it (the DeepSeek-V2 "
        "family's first_k_dense_replace layers: deepseek_v2.py, glm4_moe.py); drop the option"))]
    assert _moot(LLAMA, 8, 0, moe_dense_tp_size=1)[0][1].startswith("llama-3-8b has no dense")
    assert _moot(LITE, 4, 0, moe_dense_tp_size=1) == []
    assert _moot(LITE, 2, 0, moe_dense_tp_size=1) == []
    assert [f for f, _ in _moot(QWEN, 2, 0, moe_dense_tp_size=1)] == ["engine.moe_dense_tp_size"]
    # dense layers in a model outside the DeepSeek-V2 family are not built by the flag (a
    # Qwen3-MoE spec given a dense first layer, which no Qwen3-MoE checkpoint has)
    assert QWEN.moe is not None
    dense_qwen = QWEN.model_copy({"moe": QWEN.moe.model_copy({"first_dense_layers": 1})})
    assert _moot(dense_qwen, 8, 0, moe_dense_tp_size=1)[0][1].startswith(
        "qwen3-30b-a3b has no dense MLP layers that SGLang builds by it")
    tp_either = ("engine.moe_dense_tp_size", "the dense MLP is split over tp {} either way; give "
                 "1 with more tensor parallelism, or drop the option")
    assert _moot(LITE, 1, 0, moe_dense_tp_size=1) == [(tp_either[0], tp_either[1].format(1))]
    assert _moot(QWEN, 1, 0, moe_dense_tp_size=1) == [(tp_either[0], tp_either[1].format(1))]
    assert _moot(LITE, 4, 0, moe_dense_tp_size=4) == [(tp_either[0], tp_either[1].format(4))]
    assert _moot(LITE, 4, 0, moe_dense_tp_size=2) == []
    assert _moot(LLAMA, 8, 0, moe_a2a_backend="deepep") == [
        ("engine.moe_a2a_backend", "llama-3-8b has no experts")]
    assert _moot(LITE, 4, 0, moe_a2a_backend="none") == [
        ("engine.moe_a2a_backend", "none is SGLang's default; drop the option")]
    assert _moot(LITE, 4, 0, moe_a2a_backend="deepep") == []
