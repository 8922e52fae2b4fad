"""Mutation tests of kvplan/engines/trtllm_mla.py (task h80mut), by hand from the TensorRT-LLM
code the module cites (modeling_deepseekv3.py, modules/attention.py `MLA.create_weights`,
fused_moe_deepgemm.py `get_workspace`) and the configs: DeepSeek-R1 (tests/assets/hf_configs/
deepseek-r1.json: vocab 129,280, hidden 7,168, 61 layers, 128 heads, q_lora_rank 1,536,
kv_lora_rank 512, qk_rope 64, qk_nope 128, v_head 128, fp8 [128, 128]) and Mixtral-8x7B
(hidden 4,096, intermediate 14,336, 8 experts)."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines.trtllm_mla import deepgemm_workspace_bytes, whole_rank_weights
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

R1_TP8_B200 = ("TensorRT-LLM's DeepseekV3 on every TP rank: the token embedding whole "
               "1,621,688,320 B, the MLA down-projections (fused_a) whole 808,034,304 B, "
               "k_b_proj_trans, a copy of kv_b_proj's key half 63,978,752 B, bf16 dequantized "
               "k/v up-projections (SM100) 255,852,544 B")


def _req(model: str = "deepseek-r1", tp: int = 8, gpu: str = "b200", **update: object) -> SizeRequest:
    spec = load_model(model)
    if update:
        assert spec.attention.mla is not None
        mla = spec.attention.mla.model_copy(update=update)
        spec = spec.model_copy(update={"attention": spec.attention.model_copy(update={"mla": mla})})
    return SizeRequest(model=spec, gpu=load_hardware(gpu), context_tokens=8192,
                       kv_dtype=DType.fp8, tp=tp)


def test_the_words_whole() -> None:
    """DeepSeek-R1 fp8 at TP 8 on a B200: the four terms of tests/engines/test_trtllm_mla.py,
    named and joined by ', '."""
    w = whole_rank_weights(_req(), pytorch=True)
    assert w.how() == R1_TP8_B200
    assert all(type(b) is int for b in (w.embedding, w.fused_a, w.k_b_proj_trans,
                                        w.sm100_dequant))


def test_tp_2() -> None:
    """TP 2, 64 heads a rank: embedding 1,853,358,080 - 926,679,040 = 926,679,040; fused_a
    923,467,776 - 461,733,888 = 461,733,888; k_b_proj_trans 61 x (64 x 512 x 128 = 4,194,304
    + 64 x 4 x 1 x 4 = 1,024) = 255,915,008; SM100 61 x (4,194,304 + 64 x 128 x 512) x 2 =
    1,023,410,176."""
    w = whole_rank_weights(_req(tp=2), pytorch=True)
    assert (w.embedding, w.fused_a, w.k_b_proj_trans, w.sm100_dequant) == (
        926_679_040, 461_733_888, 255_915_008, 1_023_410_176)


def test_no_nope_or_v_dims_copy_nothing() -> None:
    """An MLA block without qk_nope_head_dim and v_head_dim: the key half and the dequantized
    copies are 0 x ... = 0 B; the embedding and fused_a stay as at TP 8."""
    w = whole_rank_weights(_req(qk_nope_head_dim=None, v_head_dim=None), pytorch=True)
    assert (w.embedding, w.fused_a, w.k_b_proj_trans, w.sm100_dequant) == (
        1_621_688_320, 808_034_304, 0, 0)


def test_deepgemm_where_the_up_projection_is_wider_than_hidden() -> None:
    """Mixtral-8x7B at TP 1, 128 tokens (m_max 128): fp8_dim max(4,096, 14,336) = 14,336;
    8 x 128 x 14,336 = 14,680,064 B fp8 + 8 x 128 x max(2 x 14,336, 4,096) x 2 = 58,720,256 B
    bf16 + 8 x (ceil(112 / 4) x 4 = 112) / 4 x 128 x 4 = 114,688 B int32: 73,515,008 B. One
    token also takes a 128-row workspace; none for 0 tokens or an MoE without an intermediate
    size."""
    req = SizeRequest(model=load_model("mixtral-8x7b"), gpu=load_hardware("h200"),
                      context_tokens=8192, tp=1)
    got = deepgemm_workspace_bytes(req, 128)
    assert got == 14_680_064 + 58_720_256 + 114_688 == 73_515_008
    assert type(got) is int
    assert deepgemm_workspace_bytes(req, 1) == 73_515_008
    assert deepgemm_workspace_bytes(req, 0) == 0
    moe = req.model.moe
    assert moe is not None
    bare = req.model.model_copy(update={"moe": moe.model_copy(update={"moe_intermediate_size": None})})
    assert deepgemm_workspace_bytes(SizeRequest(model=bare, gpu=req.gpu, context_tokens=8192,
                                                tp=1), 128) == 0


def test_flash_mla_from_0_19_as_two_numbers_or_three() -> None:
    """FlashMLA's 64-token blocks from 0.19 (task trtleft: "Added FlashMLA support for SM90",
    0.19.0's release notes); a release stated as "0.19" is 0.19.0, its first release, not a
    release before it. DeepSeek-V2-Lite: kv_lora_rank 512 + qk_rope_head_dim 64 = 576; H100:
    compute capability 9.0 (hardware_specs)."""
    from kvplan.engines.trtllm_mla import flash_mla_block

    req = _req("deepseek-v2-lite", tp=1, gpu="h100")
    assert req.gpu.capability == (9, 0)
    for version in ((0, 19), (0, 19, 0), (0, 21, 0), (1, 3, 0)):
        assert flash_mla_block(req, True, version) == 64, version
    for version in ((0, 18), (0, 18, 2)):
        assert flash_mla_block(req, True, version) is None, version
    assert flash_mla_block(req, False, (1, 3, 0)) is None  # a TensorRT engine
    # an MLA whose latent + rope width is not 576 (256 + 32 = 288, a width chosen for the test;
    # no catalog MLA has one): ModelConfig.enable_flash_mla asks for exactly 576
    assert flash_mla_block(_req("deepseek-v2-lite", tp=1, gpu="h100", kv_lora_rank=256,
                                qk_rope_head_dim=32), True, (1, 3, 0)) is None
