"""MLA's low-rank down-projections, held whole on every tensor-parallel rank (vLLM).

DeepSeek-V2/V3/R1-style attention projects the hidden state down to the query latent
(`q_a_proj`, hidden -> q_lora_rank, only where the config has a q_lora_rank) and to the KV latent
with the rope key (`kv_a_proj_with_mqa`, hidden -> kv_lora_rank + qk_rope_head_dim). vLLM does
not shard them (issue #13 task h38mlarep, read in the wheels, not fitted):
- 0.7.3, vllm/model_executor/models/deepseek_v2.py: `DeepseekV2Attention.__init__` and
  `DeepseekV2MLAAttention.__init__` build both as `ReplicatedLinear(self.hidden_size, ...,
  quant_config=quant_config)` (lines 217 and 238; 374 and 395);
- 0.33.0, the same file: `DeepseekV2MLAAttention.__init__` fuses them as `fused_qkv_a_proj =
  DeepSeekV2FusedQkvAProjLinear(...)` (line 1052), a `MergedColumnParallelLinear` built with
  `disable_tp=True` (class at line 953; layers/linear.py `LinearBase.__init__` and
  `MergedColumnParallelLinear.__init__` then take tp_size 1, whole on every rank), and without a
  q_lora_rank keeps `kv_a_proj_with_mqa = ReplicatedLinear(...)` (line 1059).
Releases between were not read and are taken to be the same; releases before 0.7.3 were not read
and keep the even split (`REPLICATED_FROM`).

The projections carry the checkpoint's quantization (`quant_config`): an fp8 DeepSeek-R1 holds
them in fp8, with one fp32 scale per 128 x 128 block that kvplan counts nowhere in fp8 weights
(kvplan.engines.common QUANT_EXTRA_BITS): (12 x 56 + 5 x 56) x 4 B = 3,808 B a layer, 232,288 B
for 61 layers, under 0.001 GiB; not booked. The MoE router, also replicated, is booked by
`weights_bytes` below 16 bits (kvplan.engines.common router_whole), and in 16 bits from vLLM
0.8.5 (vllm_flags.ROUTER_WHOLE_16_FROM, task h38router; DeepSeek-V2-Lite: 26 x 2,048 x 64 x 2 B =
6,815,744 B whole, half of it booked at TP 2 before). SGLang books the same projections and its
router in kvplan.engines.sglang `replicated_bytes`. TensorRT-LLM's PyTorch-backend DeepseekV3 holds its
`fused_a` whole too, booked with the embedding and the k_b_proj copies in
kvplan.engines.trtllm_mla (task h39trt12).
"""

from __future__ import annotations

from kvplan.capacity import expert_quant
from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.specs.schema import ModelSpec

REPLICATED_FROM = (0, 7, 3)  # the oldest wheel read (see the module docstring)


def projection_params(model: ModelSpec) -> int:
    """Parameters of the down-projections over every layer: hidden x (q_lora_rank +
    kv_lora_rank + qk_rope_head_dim) a layer (no q_lora_rank: the KV one alone); 0 without MLA."""
    mla = model.attention.mla
    if mla is None:
        return 0
    width = (mla.q_lora_rank or 0) + mla.kv_lora_rank + mla.qk_rope_head_dim
    return model.hidden_size * width * model.num_layers


def attention_bits(req: SizeRequest) -> int:
    """Bits a weight the checkpoint stores attention in: the spec's weight_dtype under a
    routed-expert or NVFP4 layout (only the experts are quantized), else the effective dtype."""
    dtype = req.effective_weight_dtype
    return (req.model.weight_dtype if expert_quant.applies(req.model, dtype) else dtype).bits


def replicated_extra_bytes(req: SizeRequest, version: str) -> int:
    """Bytes a GPU holds beyond the even split for the whole down-projections: the projections
    of its pipeline stage (1/pp of the layers) less the 1/(tp x pp) share already booked, at
    the width the checkpoint stores attention in (a routed-expert or NVFP4 layout keeps
    attention in the spec's weight_dtype). 0 with one TP rank, without MLA, or before
    REPLICATED_FROM.

    DeepSeek-R1 (fp8) at TP 8: 7,168 x (1,536 + 512 + 64) x 61 = 923,467,776 params = 923,467,776
    B; held 923,467,776, booked 923,467,776 // 8 = 115,433,472; 808,034,304 B (0.75 GiB).
    """
    m, tp, pp = req.model, req.tp, req.pp
    proj = projection_params(m)
    if tp <= 1 or proj == 0 or (parse_version(version) or ())[:3] < REPLICATED_FROM:
        return 0
    total = proj * attention_bits(req) // 8
    return max(total // pp - total // (tp * pp), 0)
