"""Pieces several engine profiles share: weights, per-layer pages, users at the planned load."""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity import expert_quant
from kvplan.capacity.kv import Precision, layer_bytes_per_token, pipeline_stages
from kvplan.capacity.parallel import ep_weight_saving
from kvplan.capacity.plan import SizeRequest, SizeResult, weights_bytes_per_gpu
from kvplan.engines.interface import Steps
from kvplan.engines.mxfp4_hopper import LAYOUTS as TRITON_HOPPER_LAYOUTS
from kvplan.engines.mxfp4_hopper import triton_hopper_weights_bytes
from kvplan.specs.schema import LayerKind, ModelSpec
from kvplan.units import GIB, DType, ceil_div


@dataclass(frozen=True)
class LayerShape:
    """The cached layers of the heaviest pipeline stage, by kind, and bytes per token of one."""

    full_layers: int
    sliding_layers: int
    linear_layers: int
    bytes_per_token_per_layer: int  # one layer, this GPU (MLA: the latent, not split by TP)
    window: int | None

    @property
    def cached_layers(self) -> int:
        return self.full_layers + self.sliding_layers


def stage_shapes(model: ModelSpec, precision: Precision, tp: int, pp: int) -> list[LayerShape]:
    """The cache shape of every pipeline stage, first to last (vLLM's get_pp_indices split)."""
    kinds = model.layer_kinds()
    per_layer = layer_bytes_per_token(model, LayerKind.full, precision, tp)
    out = []
    for layers in pipeline_stages(model.num_layers, pp):
        stage = [kinds[i] for i in layers]
        out.append(LayerShape(
            full_layers=stage.count(LayerKind.full),
            sliding_layers=stage.count(LayerKind.sliding),
            linear_layers=stage.count(LayerKind.linear),
            bytes_per_token_per_layer=per_layer,
            window=model.attention.sliding_window_tokens,
        ))
    return out


def layer_shape(req: SizeRequest) -> LayerShape:
    """Per-layer cache shape of the pipeline stage with the most cached layers."""
    return stage_shape(req.model, Precision(req.kv_dtype, req.kv_group_size), req.tp, req.pp)


def stage_shape(model: ModelSpec, precision: Precision, tp: int = 1, pp: int = 1) -> LayerShape:
    """`layer_shape` without a request: the model, the cache precision and the parallelism (the
    first stage with the most cached layers)."""
    return max(stage_shapes(model, precision, tp, pp), key=lambda shape: shape.cached_layers)


# Quantized checkpoints (GPTQ/AWQ int4, int8, fp8) keep the token embeddings and the LM head in
# 16 bits, and int4 stores one 16-bit scale + a 4-bit zero point per group of 128 weights. int8
# stores one scale per output channel (the *-quantized.w8a8 checkpoints of logs 74, 105, 106, 108
# and 116: "Weights are quantized with a symmetric static per-channel scheme ... for each output
# channel dimension", https://huggingface.co/neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8;
# vLLM registers it as one float32 per row), under 0.1% of the weights: not counted (task
# h31fp8w; a 16-bit scale per 128 weights, 1.6% more, was charged before). TensorRT-LLM's
# weight-only int8 (log 151) is taken to be per channel too; not read.
# Checked: Qwen2.5-72B GPTQ-Int4 38.61 GiB modelled vs 38.53 logged; Phi-4 GPTQ 8.51 vs 8.51;
# Qwen3-235B-A22B-FP8 at TP 4 55.11 vs 55.19 (55.03 before the router, below).
QUANT_GROUP = 128
QUANT_EXTRA_BITS = {DType.int4: 16 + 4, DType.int8: 0, DType.fp8: 0}

# An MoE checkpoint's router (`mlp.gate`, hidden x experts in every MoE layer) is not quantized
# and every tensor-parallel rank holds all of it (issue #13 task h31fp8w). The checkpoint says
# so: Qwen/Qwen3-235B-A22B-FP8's and Qwen/Qwen3-30B-A3B-FP8's quantization_config lists each
# layer's `mlp.gate` in modules_to_not_convert (tests/assets/hf_configs/qwen3-235b-a22b-fp8.json,
# qwen3-30b-a3b-fp8.json); and vLLM builds it as `ReplicatedLinear(hidden_size, num_experts,
# bias=False, quant_config=None)` (vllm-project/vllm@002456df36fc7a63ca4463f335a49d05634ab2ab
# vllm/model_executor/models/qwen3_moe.py Qwen3MoeSparseMoeBlock; the same in mixtral.py and
# deepseek_v2.py), so a rank holds hidden x experts x 2 B per MoE layer whatever the TP size.
# Qwen3-235B-A22B: 94 x 4,096 x 128 x 2 B = 98,566,144 B on each GPU, where the 8-bit split
# priced 12,320,768 B at TP 4 and 6,160,384 B at TP 8.
ROUTER_BYTES = 2
# In 16 bits too (task h38router): the gate is built the same way whatever the dtype, so a bf16
# or fp16 MoE checkpoint's router is whole on every TP rank in the engines whose source was read
# (vLLM and SGLang pass whole16; TensorRT-LLM keeps the even split, no release read):
# - vLLM 0.8.5, vllm/model_executor/models/: `self.gate = ReplicatedLinear(config.hidden_size,
#   config.num_experts, bias=False, quant_config=None, ...)` in qwen3_moe.py:122 and
#   qwen2_moe.py:122, `ReplicatedLinear(config.hidden_size, config.n_routed_experts, ...)` in
#   deepseek_v2.py:112, `ReplicatedLinear(hidden_size, num_experts, ...)` in mixtral.py:80;
# - vLLM 0.33.0, the same files: `self.gate = GateLinear(...)` (qwen3_moe.py:170, qwen2_moe.py:142,
#   deepseek_v2.py:321, mixtral.py:111), and layers/fused_moe/router/gate_linear.py:22 `class
#   GateLinear(ReplicatedLinear)` (model dtype on Hopper/Blackwell; fp32 only for
#   force_fp32_compute without a specialised kernel, not modelled);
# - SGLang 0.5.21, sglang/srt/models/: `self.gate = ReplicatedLinear(config.hidden_size,
#   config.num_experts, ...)` in qwen3_moe.py:284 and qwen2_moe.py:345, mixtral.py:82; DeepSeek's
#   `MoEGate` (deepseek_v2.py:463) holds `nn.Parameter(torch.empty((n_routed_experts,
#   hidden_size)))` whole (fp32 only with config.router_fp32, not modelled).
# Releases between were not read and are taken to be the same; earlier ones keep the even split
# (vllm_flags ROUTER_WHOLE_16_FROM, sglang ROUTER_WHOLE_16_FROM).
# Qwen3-30B-A3B bf16 at TP 2: 48 x 2,048 x 128 x 2 B = 25,165,824 B whole on each GPU, where the
# even split booked 12,582,912 B.


# MXFP4 (gpt-oss): only the MoE experts are 4-bit, packed two per byte with one 8-bit (e8m0)
# scale per 32 weights; attention, router, embeddings and the experts' biases stay bf16. The
# engine pads each expert's intermediate size (per TP rank) and hidden size to its kernel's
# alignment (vLLM mxfp4.py create_weights): Marlin 128 / 256, FlashInfer on Blackwell 256 / 256,
# FlashInfer on Hopper 128 / 128, Triton 64 / 1 (hidden not padded); vLLM's Triton layout on
# Hopper swizzles and pads further (kvplan.engines.mxfp4_hopper, the kernels named there).
# Checked: gpt-oss-120b on one H100 with Marlin (vLLM 0.10.1) loads 65.9651 GiB (log 12);
# modelled 65.91 GiB.
MXFP4_BLOCK = 32
MXFP4_ALIGN = {"marlin": (128, 256), "flashinfer-sm100": (256, 256),
               "flashinfer-sm90": (128, 128), "triton": (64, 1), "none": (1, 1)}


def is_mxfp4(req: SizeRequest) -> bool:
    """gpt-oss checkpoints: MXFP4 experts (the catalog states them as int4 weights)."""
    m = req.model
    return (m.model_type == "gpt_oss" and m.moe is not None and m.moe.moe_intermediate_size is not None
            and req.effective_weight_dtype is DType.int4)


def mxfp4_weights_bytes(req: SizeRequest, kernel: str = "none") -> int:
    """Per-GPU bytes of an MXFP4 MoE checkpoint: padded 4-bit experts + scales, bf16 rest."""
    if kernel in TRITON_HOPPER_LAYOUTS:
        return triton_hopper_weights_bytes(req, TRITON_HOPPER_LAYOUTS[kernel])
    m = req.model
    assert m.moe is not None and m.moe.moe_intermediate_size is not None
    inter_align, hidden_align = MXFP4_ALIGN[kernel]
    tp = req.tp
    inter = -(-ceil_div(m.moe.moe_intermediate_size, tp) // inter_align) * inter_align
    hidden = -(-m.hidden_size // hidden_align) * hidden_align
    moe_layers = m.num_layers - m.moe.first_dense_layers
    # gate_up: 2I x H, down: H x I; 4 bits each + one byte of scale per 32
    per_expert = (2 * inter * hidden + hidden * inter) * (4 * MXFP4_BLOCK + 8) // (8 * MXFP4_BLOCK)
    experts = moe_layers * m.moe.num_experts * per_expert // req.pp
    expert_params = moe_layers * m.moe.num_experts * 3 * m.hidden_size * m.moe.moe_intermediate_size
    rest = max(0, m.params_total - expert_params) * 2
    return experts + -(-rest // req.gpus_per_replica)


def weights_bytes(req: SizeRequest, measured: int | None, mxfp4_kernel: str = "none",
                  whole16: bool = False) -> int:
    """Measured weights where a log gave them, else parameters x weight bytes / GPUs.

    Below 16 bits the embeddings and LM head (assumed untied: 2 x vocab x hidden) stay in 16
    bits and group scales are added; an MoE router stays in 16 bits, whole on every TP rank
    (ROUTER_BYTES), and in 16 bits too where the engine says so (`whole16`, router_whole).
    gpt-oss (MXFP4) is laid out as `mxfp4_weights_bytes`.
    """
    if measured is not None:
        return measured
    if expert_quant.applies(req.model, req.effective_weight_dtype):
        return expert_quant.weights_bytes(req.model, req.tp, req.pp, req.ep)
    return _modelled_weights(req, mxfp4_kernel, whole16) - ep_weight_saving(
        req.model, req.effective_weight_dtype.bits, req.tp, req.pp, req.ep)


def weights_how(req: SizeRequest, whole16: bool = False) -> str:
    """The explanation's words for modelled weights: parameters x bits / GPUs, or a ModelOpt
    NVFP4 checkpoint's layout (kvplan.capacity.nvfp4) where the spec states one."""
    m = req.model
    if m.nvfp4 is not None and expert_quant.applies(m, req.effective_weight_dtype):
        return (f"ModelOpt NVFP4 as published: {', '.join(m.nvfp4.quantized)} at 4 bits + one "
                f"fp8 scale per {m.nvfp4.group_size} + 8 B a tensor, the rest "
                f"{m.weight_dtype.value}, over {req.gpus_per_replica} GPU(s)")
    dtype = req.effective_weight_dtype
    how = f"{m.params_total:,} params x {dtype.bits} bits / {req.gpus_per_replica} GPU(s)"
    if dtype.bits < 16 and not (is_mxfp4(req) or expert_quant.applies(m, dtype)):
        # _modelled_weights: the embeddings and LM head stay 16-bit below 16 bits
        embed = min(m.params_total, 2 * m.vocab_size * m.hidden_size)
        how += f", the embeddings and LM head ({embed:,} params) in 16 bits"
        if QUANT_EXTRA_BITS.get(dtype, 0):
            how += (f", + {QUANT_EXTRA_BITS[dtype]} bits of scale and zero point per "
                    f"{QUANT_GROUP} weights")
    if router_whole(req, whole16):
        how += f", the MoE router ({router_params(m):,} params) in 16 bits on every GPU"
    return how


def router_whole(req: SizeRequest, whole16: bool = False) -> bool:
    """`weights_bytes` models the weights below 16 bits with the MoE router whole in 16 bits on
    every TP rank (ROUTER_BYTES), and 16-bit weights so where the engine builds the gate whole
    whatever the dtype (`whole16`: vLLM, SGLang; ROUTER_BYTES comment): not a GPTQ/AWQ, NVFP4 or
    routed-expert layout (priced as published) nor gpt-oss's MXFP4."""
    m, dtype = req.model, req.effective_weight_dtype
    return (router_params(m) > 0 and (dtype.bits < 16 or (whole16 and dtype.bits == 16))
            and not (is_mxfp4(req) or expert_quant.applies(m, dtype)))


def _modelled_weights(req: SizeRequest, mxfp4_kernel: str, whole16: bool = False) -> int:
    if is_mxfp4(req):
        return mxfp4_weights_bytes(req, mxfp4_kernel)
    dtype = req.effective_weight_dtype
    model = req.model
    if dtype.bits >= 16:
        if not router_whole(req, whole16):
            return weights_bytes_per_gpu(model, dtype, req.gpus_per_replica)
        router = min(router_params(model), model.params_total)
        return (ceil_div((model.params_total - router) * ROUTER_BYTES, req.gpus_per_replica)
                + ceil_div(router * ROUTER_BYTES, req.pp))
    embed = min(model.params_total, 2 * model.vocab_size * model.hidden_size)
    router = min(router_params(model), model.params_total - embed)
    body = model.params_total - embed - router
    bits = body * dtype.bits + body * QUANT_EXTRA_BITS.get(dtype, 0) // QUANT_GROUP
    total_bytes = embed * 2 + bits // 8
    return -(-total_bytes // req.gpus_per_replica) + ceil_div(router * ROUTER_BYTES, req.pp)


def router_params(model: ModelSpec) -> int:
    """The MoE router's parameters (hidden x routed experts in every MoE layer); 0 for a dense
    model. Kept in 16 bits and whole on every tensor-parallel rank (ROUTER_BYTES)."""
    moe = model.moe
    if moe is None:
        return 0
    return (model.num_layers - moe.first_dense_layers) * model.hidden_size * moe.num_experts


def quantized(req: SizeRequest) -> bool:
    """Weights stored below 8 bits, or as integers: dequantisation scratch is likely. A GPTQ/AWQ
    spec (`weight_quant`, priced as published) counts as its packed integer width, as an int4
    or int8 spec does; a dense fp8 one (compressed-tensors, fbgemm_fp8) as an fp8 spec does."""
    dtype = req.effective_weight_dtype
    if req.model.weight_quant is not None and expert_quant.applies(req.model, dtype):
        return req.model.weight_quant.weight_dtype in (DType.int4, DType.int8)
    return dtype in (DType.int4, DType.int8)


def users_steps(st: Steps, sized: SizeResult, pool_label: str, starts: bool,
                per_user_blocks: int | None = None, users_from: str | None = None) -> None:
    """The last lines of every explanation: bytes per sequence, users per replica and per GPU.

    With `per_user_blocks` the engine counts users in its own blocks (vLLM): GPU blocks // the
    blocks one sequence of the planned length takes.
    """
    q = sized.request
    if users_from is not None:
        st.op("users per replica", "sum", [users_from], "users", f"the {users_from}")
        st.given("GPUs per replica", q.gpus_per_replica, "GPUs", f"tp {q.tp} x pp {q.pp}")
        st.op("users per GPU", "ratio", ["users per replica", "GPUs per replica"], "users",
              "users per replica / GPUs per replica")
        return
    if per_user_blocks is not None:
        st.given("blocks per user", per_user_blocks, "blocks",
                 f"one sequence holding {q.tokens_held:,} tokens, as the engine allocates it")
        if starts:
            st.op("users per replica", "div", [pool_label, "blocks per user"], "users",
                  f"floor({pool_label} / blocks per user)")
        else:
            st.given("users per replica", 0, "users", "the engine does not start")
        st.given("GPUs per replica", q.gpus_per_replica, "GPUs", f"tp {q.tp} x pp {q.pp}")
        st.op("users per GPU", "ratio", ["users per replica", "GPUs per replica"], "users",
              "users per replica / GPUs per replica")
        return
    st.given(
        "KV bytes per sequence",
        sized.kv_bytes_per_sequence,
        "bytes",
        f"{q.tokens_held:,} tokens, {q.allocation.value} in {q.block_size_tokens}-token blocks, "
        "every cached layer on this GPU",
    )
    simple = starts and q.pp == 1 and not sized.shared_prefix_bytes and sized.kv_budget_bytes > 0
    if simple:
        st.op("users per replica", "div", [pool_label, "KV bytes per sequence"], "users",
              f"floor({pool_label} / KV bytes per sequence)")
    else:
        why = "the engine does not start" if not starts else "the tightest pipeline stage"
        st.given("users per replica", sized.users_per_replica, "users", f"{why}")
    st.given("GPUs per replica", q.gpus_per_replica, "GPUs", f"tp {q.tp} x pp {q.pp}")
    st.op("users per GPU", "ratio", ["users per replica", "GPUs per replica"], "users",
          "users per replica / GPUs per replica")


def bytes_per_token_steps(st: Steps, shape: LayerShape, label: str, why: str) -> None:
    """The per-token cache size as SGLang (`cell size`) and TensorRT-LLM (`KV bytes per token`)
    state it: one layer's K + V on this GPU times the cached layers, under the engine's label."""
    st.given("KV bytes per token per layer", shape.bytes_per_token_per_layer, "bytes",
             "K + V of one layer on this GPU")
    st.given("cached layers", shape.cached_layers, "layers", "every attention layer")
    st.op(label, "mul", ["KV bytes per token per layer", "cached layers"], "bytes", why)


def gib(n: int | float) -> str:
    return f"{n / GIB:.2f} GiB"
