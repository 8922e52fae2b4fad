"""Parallelism the serving engines accept, checked before anything is sized.

vLLM (and SGLang, TensorRT-LLM alike) shard attention by heads:
- tensor parallelism (TP) must divide the query heads;
- with at least as many KV heads as TP, the KV heads must divide by TP; with fewer, TP must
  divide by the KV heads, each KV head then replicated on TP / kv GPUs (vLLM's
  `total_num_kv_heads % tp == 0` else `tp % total_num_kv_heads == 0`). Latent attention
  (MLA) keeps one latent per layer and has no KV-head rule;
- with expert parallelism (EP), the experts must divide by EP;
- TP beyond the GPUs of one node (8 unless the GPU spec's `gpus_per_node` says otherwise)
  runs across nodes, which needs a stated node count (a GB200/GB300 NVL72 tray is a node of 4;
  its NVLink domain of 72 lets TP span trays as one multi-node engine);
- a stated node count must hold the whole replica, TP x PP GPUs (a replica of TP 8 x PP 2 on
  one node of 8 GPUs cannot start), and divide it: the engines place tp x pp / nodes ranks on
  each node (uneven_nodes).
"""

from __future__ import annotations

from kvplan.errors import InputError
from kvplan.inputs.limits import MAX_PARALLEL
from kvplan.specs.schema import ModelSpec

DEFAULT_GPUS_PER_NODE = 8


def tp_problem(model: ModelSpec, tp: int) -> str | None:
    """Why `tp` cannot shard `model`'s attention, or None when it can."""
    heads = model.num_attention_heads
    if tp < 1:
        return f"tensor parallelism must be a positive integer, got {tp}"
    if tp > MAX_PARALLEL:
        return f"tensor parallelism {tp:,} is beyond the limit of {MAX_PARALLEL:,}"
    if heads % tp:
        return f"tensor parallelism {tp} does not divide {model.name}'s {heads} attention heads"
    kv = model.attention.num_kv_heads
    if model.attention.mla is None:
        if kv >= tp and kv % tp:
            return f"tensor parallelism {tp} does not divide {model.name}'s {kv} KV heads"
        if kv < tp and tp % kv:
            return (f"tensor parallelism {tp} is not a multiple of {model.name}'s {kv} KV heads "
                    "(each KV head must be replicated a whole number of times)")
    return None


def valid_tps(model: ModelSpec, limit: int | None = None) -> list[int]:
    """Every TP the engines accept for `model`, up to `limit` (default: the query heads)."""
    top = min(model.num_attention_heads, limit or model.num_attention_heads, MAX_PARALLEL)
    return [tp for tp in range(1, top + 1) if tp_problem(model, tp) is None]


def check_parallelism(
    model: ModelSpec,
    tp: int,
    *,
    gpus_per_node: int = DEFAULT_GPUS_PER_NODE,
    nodes: int | None = None,
    ep: int | None = None,
    attention_dp: int = 1,
    nvlink_domain: int | None = None,
    pp: int = 1,
) -> None:
    """Raise InputError naming the rule broken and the valid choices. With SGLang's
    data-parallel attention (`attention_dp` = its --dp-size) the heads are sharded over
    tp / attention_dp GPUs (sglang srt/layers/dp_attention.py compute_dp_attention_world_info,
    `attn_tp_size = tp_size // dp_size`), and a dp that does not divide tp is refused as SGLang
    asserts (kvplan.check.startup.shape_refusals cites both). `nvlink_domain` is the GPU spec's
    nvlink_domain_gpus (a GB200/GB300 NVL72 rack joins 72 GPUs over trays of 4): tensor
    parallelism beyond one tray but inside the domain is refused without a node count as
    elsewhere, and the refusal says the trays can be spanned with one. The node count a hint
    asks for is the servers the whole replica spans, tensor x pipeline (`pp`) GPUs over
    gpus_per_node (--nodes is "servers one replica spans"; kvplan.check.startup places
    gpus_per_replica / nodes GPUs on each; task h58launch: TP 8 x PP 2 on trays of 4 was told 2,
    where the replica's 16 GPUs span 4)."""
    if attention_dp < 1:
        raise InputError(f"--dp-size must be a positive integer, got {attention_dp}")
    if tp % attention_dp:
        raise InputError(f"--dp-size {attention_dp} with --enable-dp-attention does not divide "
                         f"tensor parallelism {tp}; SGLang refuses it")
    problem = tp_problem(model, tp // attention_dp)
    if problem is not None and attention_dp > 1:
        raise InputError(f"{problem} (attention runs at tp {tp} / --dp-size {attention_dp} with "
                         "--enable-dp-attention); SGLang refuses it")
    if problem is not None:
        valid = ", ".join(map(str, valid_tps(model)))
        raise InputError(f"{problem}; vLLM refuses it; valid --tp values: {valid}")
    node = f"{gpus_per_node} GPU{'s' if gpus_per_node != 1 else ''}"
    if tp > gpus_per_node and nodes is None:
        most = f"--tp {gpus_per_node}" + (" or less" if gpus_per_node > 1 else "")
        if nvlink_domain is not None and tp <= nvlink_domain:
            need = -(-tp // gpus_per_node)
            whole = -(-(tp * pp) // gpus_per_node)
            span = (f"; with pipeline parallelism {pp} a replica of {tp * pp} GPUs spans {whole} "
                    "trays" if pp > 1 else "")
            raise InputError(
                f"tensor parallelism {tp} spans more than one node of {node}: one compute tray "
                f"(one host) holds {gpus_per_node} GPUs, and the NVLink domain of {nvlink_domain} "
                f"GPUs lets tensor parallelism span {need} trays as one multi-node engine{span}; "
                f"state the node count ({whole}), or use {most} with more replicas"
            )
        raise InputError(
            f"tensor parallelism {tp} spans more than one node of {node}; "
            f"state the node count, or use {most} with more replicas"
        )
    if nodes is not None and tp > nodes * gpus_per_node:
        need = -(-(tp * pp) // gpus_per_node)  # the replica's servers, tensor x pipeline
        raise InputError(f"tensor parallelism {tp} needs more than {nodes} "
                         f"node{'s' if nodes != 1 else ''} of {node}; state {need} nodes, or "
                         f"use --tp {nodes * gpus_per_node} or less")
    if nodes is not None and tp * pp > nodes * gpus_per_node:
        need = -(-(tp * pp) // gpus_per_node)
        raise InputError(f"a replica of {tp * pp} GPUs (tensor parallelism {tp} x pipeline "
                         f"parallelism {pp}) needs more than {nodes} "
                         f"node{'s' if nodes != 1 else ''} of {node}; state {need} nodes, or "
                         "use fewer GPUs a replica")
    if nodes is not None and nodes <= tp * pp and (tp * pp) % nodes:  # more: kvplan.plan.moot
        raise InputError(uneven_nodes(tp, pp, nodes, gpus_per_node))
    if ep is not None and (ep > 1 or model.moe is not None):
        if model.moe is None:
            raise InputError(f"expert parallelism applies to mixture-of-experts models; "
                             f"{model.name} has no experts")
        experts = model.moe.num_experts
        if ep < 1 or experts % ep:
            raise InputError(f"expert parallelism {ep} does not divide {model.name}'s {experts} "
                             "experts; choose a divisor of the expert count")
        if ep % tp and tp % ep:
            raise InputError(f"expert parallelism {ep} and tensor parallelism {tp} do not divide "
                             "one another: vLLM's expert-parallel size is tp x dp (a multiple of "
                             "tp), SGLang's and TensorRT-LLM's divide tp")
        if ep > tp and expert_params(model) is None:
            raise InputError(f"{model.name}'s spec states no moe_intermediate_size, so its "
                             "experts' share of the weights is unknown; expert parallelism "
                             "beyond tp cannot be planned")


def uneven_nodes(tp: int, pp: int, nodes: int, gpus_per_node: int) -> str:
    """Why a replica of tp x pp GPUs cannot be spread over `nodes` servers: the engines split a
    replica's ranks evenly over its nodes. vLLM 0.29.0 vllm/engine/arg_utils.py:2179 raises
    "`--nnodes N` must evenly divide the total world size" (dp x pp x tp), and SGLang 0.5.23
    srt/arg_groups/validation_hook.py:179 asserts `(tp_size * pp_size) % nnodes == 0`; started
    over Ray instead (no --nnodes), the ranks fill whole nodes and the rest hold none. The hint
    is the fewest nodes that divide the replica with at most gpus_per_node GPUs on each (task
    h59nodes: TP 8 x PP 2 on 3 nodes of 8 was accepted)."""
    gpus = tp * pp
    fewest = -(-gpus // gpus_per_node)
    fit = next(n for n in range(fewest, gpus + 1) if gpus % n == 0)
    return (f"a replica of {gpus} GPUs (tensor parallelism {tp} x pipeline parallelism {pp}) "
            f"does not split evenly over {nodes} nodes: vLLM refuses --nnodes {nodes} (it must "
            "evenly divide the world size, vllm/engine/arg_utils.py:2179 in 0.29.0) and SGLang "
            "asserts (tp_size * pp_size) % nnodes == 0 (srt/arg_groups/validation_hook.py:179 in "
            f"0.5.23); over Ray the ranks fill whole nodes and GPUs of the rest hold none; state "
            f"{fit} node{'s' if fit != 1 else ''} ({gpus // fit} GPUs each), or a tensor x "
            f"pipeline size that {nodes} divides")


def expert_params(model: ModelSpec) -> int | None:
    """Parameters of the routed experts: MoE layers x experts x a gated MLP (gate, up, down:
    3 x hidden x moe_intermediate_size). None when the spec does not state the expert width."""
    moe = model.moe
    if moe is None or moe.moe_intermediate_size is None:
        return None
    layers = model.num_layers - moe.first_dense_layers
    return layers * moe.num_experts * 3 * model.hidden_size * moe.moe_intermediate_size


def ep_weight_saving(model: ModelSpec, bits: int, tp: int, pp: int, ep: int | None) -> int:
    """Bytes per GPU expert parallelism takes off the weights: beyond tp, each GPU keeps
    experts / ep whole experts instead of 1 / tp of every expert (vLLM with data parallelism:
    ep = tp x dp). Up to tp the experts are split over the same GPUs either way: 0."""
    experts = expert_params(model)
    if ep is None or ep <= tp or experts is None:
        return 0
    return -(-experts * bits // (8 * tp * pp)) + (-experts * bits // (8 * ep * pp))
