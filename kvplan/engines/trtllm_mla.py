"""What TensorRT-LLM's PyTorch backend holds whole on every TP rank for a DeepSeek-V3-type model.

kvplan's weights are parameters x bytes / GPUs (kvplan.engines.common.weights_bytes: embeddings
and LM head in 16 bits, the MoE router whole). The PyTorch backend's DeepseekV3ForCausalLM
(`register_auto_model("DeepseekV3ForCausalLM")`, the class a `deepseek_v3` config loads) keeps
more than that share on each rank (issue #13 task h39trt12, read in the stored code index, not
fitted; no 1.2 wheel could be downloaded: PyPI's tensorrt-llm 1.2.0rc6.post3 is a 9 kB stub
that fetches from pypi.nvidia.com, unreachable here, so the releases are the index's untagged
copies, which agree on every term below):

- the token embedding, whole: tensorrt_llm/_torch/models/modeling_deepseekv3.py
  `DeepseekV3Model.__init__` builds `self.embed_tokens = Embedding(config.vocab_size,
  config.hidden_size, dtype=config.torch_dtype)` with no mapping and no tensor_parallel_mode
  (NVIDIA/TensorRT-LLM@000561df, code index id 53161961507), so the table is vocab x hidden x
  2 B on every rank. The LM head is split: `DecoderModelForCausalLM.__init__`
  (_torch/models/modeling_utils.py, index id 1046435088, a copy with 1.2's
  `enable_lm_head_tp_in_adp`, which the heldout-24 logs' LLM Args print) builds
  `LMHead(..., mapping=config.mapping, tensor_parallel_mode=TensorParallelMode.COLUMN,
  gather_output=True)` without attention DP, vocab / TP rows a rank, as kvplan books it.
- the MLA down-projections, whole: `DeepseekV3Attention.__init__` builds `kv_a_proj_with_mqa`
  as a `DeepseekV3Linear(hidden, kv_lora_rank + qk_rope_head_dim + q_lora_rank, ...)` with no
  mapping (the fused_a of q_a_proj and kv_a_proj_with_mqa; `load_weights` concatenates both
  checkpoint tensors into it), in the checkpoint's quantization (`quant_config`), the same
  bytes kvplan.engines.mla_replicated books for vLLM.
- a second copy of the key up-projection: _torch/modules/attention.py `MLA.create_weights`
  (index ids 57454759589, 26135508711, 64662382: all stored copies) creates `k_b_proj_trans`,
  (heads / TP, kv_lora_rank, qk_nope_head_dim) in float8_e4m3fn under FP8 block scales, else
  the model dtype, and `load_weights` copies the transposed k half of kv_b_proj into it while
  kv_b_proj keeps its own weight (`v_b_proj` is a view of it, not a copy); with FP8 block scales
  also `k_b_proj_trans_scale`, (heads / TP, kv_lora_rank / 128, qk_nope_head_dim / 128) fp32.
- on an SM100 GPU (B200/B100/GB200/B300), with FP8 block scales, bf16 dequantized copies of both
  halves: `if is_sm_100f()` (older copies: `get_sm_version() == 100`) `k_b_proj_trans_dequant`,
  (heads / TP, kv_lora_rank, qk_nope_head_dim), and `v_b_proj_dequant`, (heads / TP,
  v_head_dim, kv_lora_rank), both `dtype=self.dtype` (bf16, asserted); `load_weights` fills
  them with `weight_dequant`.

FP8 block scales means the checkpoint's quantization_config has a weight_block_size (DeepSeek-R1:
fp8, [128, 128]; tests/assets/hf_configs/deepseek-r1.json): kvplan takes attention stored in
8 bits on a deepseek_v3 spec as that. Booked only with pipeline parallel 1 (the PP split of the
embedding was not read) and where no measured weights are given.

Not booked (read, too small or not sized): the fp32 128 x 128 block scales of every fp8 weight
(1/4,096 of the fp8 bytes, about 0.02 GiB a rank for DeepSeek-R1 at TP 8, which kvplan counts
nowhere in fp8 weights); their SM100 re-layout (`resmooth_to_fp8_e8m0`,
`transform_sf_into_required_layout` in `load_weights`), whose size the index's copies of
quantization/utils/fp8_utils.py were not read for.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.mla_replicated import attention_bits, projection_params
from kvplan.units import ceil_div

MODEL_TYPES = ("deepseek_v3",)
# GPUs whose compute capability is 10.x (`is_sm_100f()` / `get_sm_version() == 100`)
SM100 = ("b200", "b100", "gb200", "b300", "gb300")
DEQUANT_BYTES = 2  # bf16 (`assert self.dtype == torch.bfloat16`)
SCALE_BLOCK = 128  # the checkpoint's weight_block_size
SCALE_BYTES = 4  # fp32


@dataclass(frozen=True)
class WholeRankWeights:
    """Bytes a rank holds beyond kvplan's even split, term by term (all 0 when none apply)."""

    embedding: int = 0
    fused_a: int = 0
    k_b_proj_trans: int = 0
    sm100_dequant: int = 0

    @property
    def total(self) -> int:
        return self.embedding + self.fused_a + self.k_b_proj_trans + self.sm100_dequant

    def how(self) -> str:
        parts = [(self.embedding, "the token embedding whole"),
                 (self.fused_a, "the MLA down-projections (fused_a) whole"),
                 (self.k_b_proj_trans, "k_b_proj_trans, a copy of kv_b_proj's key half"),
                 (self.sm100_dequant, "bf16 dequantized k/v up-projections (SM100)")]
        return ("TensorRT-LLM's DeepseekV3 on every TP rank: "
                + ", ".join(f"{what} {b:,} B" for b, what in parts if b))


def whole_rank_weights(req: SizeRequest, pytorch: bool) -> WholeRankWeights:
    """What the PyTorch backend's DeepseekV3ForCausalLM holds beyond kvplan's split.

    DeepSeek-R1 (fp8, block scales [128, 128]) at TP 8 on a B200, pipeline parallel 1:
    - embedding: 129,280 x 7,168 x 2 B = 1,853,358,080 B whole, booked 1,853,358,080 // 8 =
      231,669,760: 1,621,688,320 B;
    - fused_a: 7,168 x (1,536 + 512 + 64) x 61 = 923,467,776 fp8 B whole, booked
      115,433,472: 808,034,304 B;
    - k_b_proj_trans: 61 x (128 / 8 = 16 heads) x 512 x 128 x 1 B = 63,963,136, plus its scale
      61 x 16 x (512 / 128) x (128 / 128) x 4 B = 15,616: 63,978,752 B;
    - SM100 dequant: 61 x 16 x (512 x 128 + 128 x 512) x 2 B = 255,852,544 B;
    together 2,749,553,920 B (2.56 GiB).
    """
    m = req.model
    mla = m.attention.mla
    if (not pytorch or mla is None or m.model_type not in MODEL_TYPES or req.tp <= 1
            or req.pp != 1):
        return WholeRankWeights()
    tp = req.tp
    embed = m.vocab_size * m.hidden_size * 2
    bits = attention_bits(req)
    fused_a = projection_params(m) * bits // 8
    heads = m.num_attention_heads // tp
    block_scaled = bits == 8
    nope, v_dim = mla.qk_nope_head_dim or 0, mla.v_head_dim or 0
    k_half = heads * mla.kv_lora_rank * nope
    k_copy = k_half * (1 if block_scaled else 2)
    if block_scaled:
        k_copy += (heads * (mla.kv_lora_rank // SCALE_BLOCK)
                   * (nope // SCALE_BLOCK) * SCALE_BYTES)
    dequant = 0
    if block_scaled and req.gpu.name.lower().startswith(SM100):
        dequant = (k_half + heads * v_dim * mla.kv_lora_rank) * DEQUANT_BYTES
    return WholeRankWeights(embedding=embed - embed // tp, fused_a=fused_a - fused_a // tp,
                            k_b_proj_trans=k_copy * m.num_layers,
                            sm100_dequant=dequant * m.num_layers)


# DeepGemmFusedMoE.get_workspace(m_max, 128) (_torch/modules/fused_moe/fused_moe_deepgemm.py,
# code index id 1103741237): an fp8 workspace_0 of experts x m_max x fp8_dim, a bf16 workspace_1
# of experts x m_max x max(2 x intermediate / TP, hidden) and an int32 workspace_sf of experts x
# align(ceil(fp8_dim / 128), 4) / 4 x align(m_max, 4), fp8_dim = max(hidden, intermediate / TP),
# m_max = align(tokens, 128); held in DeepGemmFusedMoE.buffers between forwards
# (_torch/memory_buffer_utils.py Buffers.get_buffer, index id 935354619). Not booked: kvplan has
# no MoE-backend setting; calibrate names it where a log states moe_config backend DEEPGEMM.
DEEPGEMM_ROWS = 128


def deepgemm_workspace_bytes(req: SizeRequest, tokens: int) -> int:
    """The DeepGEMM MoE backend's workspace for one forward of `tokens` (0 for a dense model).

    DeepSeek-R1 at TP 8, EP 1, 8,192 tokens: 256 experts x 8,192 x 7,168 = 15,032,385,536 B
    (fp8) + 256 x 8,192 x max(2 x 2,048 / 8, 7,168) x 2 = 30,064,771,072 B (bf16) + 256 x
    (56 / 4 = 14) x 8,192 x 4 = 117,440,512 B (int32 scales): 45,214,597,120 B (42.11 GiB).
    """
    moe = req.model.moe
    if moe is None or not moe.moe_intermediate_size or tokens <= 0:
        return 0
    experts = moe.num_experts // (req.ep or 1)
    inter = moe.moe_intermediate_size // req.tp
    hidden = req.model.hidden_size
    m_max = ceil_div(tokens, DEEPGEMM_ROWS) * DEEPGEMM_ROWS
    fp8_dim = max(hidden, inter)
    scale_k = ceil_div(ceil_div(fp8_dim, SCALE_BLOCK), 4) * 4
    m_padded = ceil_div(m_max, 4) * 4
    return (experts * m_max * fp8_dim + experts * m_max * max(2 * inter, hidden) * 2
            + experts * (scale_k // 4) * m_padded * 4)


# FlashMLA's 64-token blocks (task trtleft). The PyTorch backend takes its tokens per block from
# the LLM API (0.17-0.21: the BuildConfig's plugin_config.tokens_per_block, which
# update_executor_config copies into executor_config.tokens_per_block, tensorrt_llm/_torch/
# pyexecutor/config.py, code index id 5653122518; from 1.0: KvCacheConfig.tokens_per_block), then,
# for an MLA model, replaces it: `if model_engine.model.model_config.enable_flash_mla:
# executor_config.tokens_per_block = 64` ("Change tokens_per_block to: 64 for using FlashMLA";
# py_executor_creator.py in the 0.19-0.21-era copies, index ids 6035230846, 2399938814; _util.py
# in 1.x, id 1083207948, the same rule on a local tokens_per_block). ModelConfig.enable_flash_mla
# (tensorrt_llm/_torch/model_config.py, ids 5907795105, 4218302881) is true under the TRTLLM
# attention backend (the default) when kv_lora_rank + qk_rope_head_dim == 576 and
# torch.cuda.get_device_capability() == (9, 0). FlashMLA came with 0.19 ("Added FlashMLA support
# for SM90", docs/source/release-notes.md at NVIDIA/TensorRT-LLM@001eaec, 0.19.0; 0.18.x are
# 0.17.0 with dependency updates only, the same notes). The override ignores a stated
# tokens_per_block.
FLASH_MLA_FROM = (0, 19)
FLASH_MLA_HEAD = 576  # kv_lora_rank + qk_rope_head_dim (DeepSeek-V2/V3/R1: 512 + 64)
FLASH_MLA_CAPABILITY = (9, 0)
FLASH_MLA_TOKENS = 64


def flash_mla_block(req: SizeRequest, pytorch: bool, version: tuple[int, ...]) -> int | None:
    """The tokens per block FlashMLA imposes on the PyTorch backend, or None where it does not
    run (another backend, a release before 0.19, not an MLA model of head 576, not an SM90 GPU;
    a GPU whose compute capability is unstated is taken as not SM90)."""
    mla = req.model.attention.mla
    if not pytorch or version < FLASH_MLA_FROM or mla is None:
        return None
    if mla.kv_lora_rank + mla.qk_rope_head_dim != FLASH_MLA_HEAD or \
            req.gpu.capability != FLASH_MLA_CAPABILITY:
        return None
    return FLASH_MLA_TOKENS
