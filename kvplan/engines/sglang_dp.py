"""SGLang's data-parallel attention (`--enable-dp-attention --dp-size D`, 0.5.23's `--attn-dp-size
D`): how the layers are sharded, what each GPU holds and how many pools a replica has (task
h100sgldp). Read in the 0.4.6.post1, 0.5.1, 0.5.5 and 0.5.23 wheels, boundaries in every wheel
from 0.4.5 to 0.5.23:

- attention runs over attn_tp = tp / D GPUs (srt/layers/dp_attention.py
  compute_dp_attention_world_info :227-236 in 0.5.5, `attn_tp_size = tp_size // dp_size`); its
  projections are built at that size (models/deepseek_v2.py :1119-1212 in 0.5.5, `tp_size=
  attn_tp_size`; :2084-2161 in 0.5.23, `parallel_group="attn_tp"`; qwen3_moe.py :288-329 in
  0.5.5), so each GPU holds D times the attention share of plain TP.
- the KV pool: each GPU's pool holds the KV heads of its attention-TP rank,
  `get_num_kv_heads(get_attention_tp_size())` (model_executor/model_runner.py:702 in 0.4.6.post1,
  :1311 in 0.5.5; model_executor/pool_configurator.py:356/:492 in 0.5.23, `tp_size =
  get_parallel().attn_tp_size`), and each of the D attention-DP ranks schedules its own requests
  into its own pool: a replica of tp GPUs holds D pools (an MLA latent is whole on every rank
  either way).
- the input embedding is whole on every GPU (`VocabParallelEmbedding(..., enable_tp=not
  is_dp_attention_enabled())`, deepseek_v2.py:1374-1377 in 0.4.6.post1, :2814-2817 in 0.5.5),
  then split over the attention-TP group (`use_attn_tp_group=is_dp_attention_enabled()`,
  deepseek_v2.py:2520-2523 in 0.5.8; layers/vocab_parallel_embedding.py:166-185
  get_embedding_tp_kwargs in 0.5.23), by model file (EMBED_RULES): deepseek_v2.py (DeepSeek-V2/
  V3/R1, Kimi-K2) whole in every wheel from 0.4.0 to 0.5.7, over attn_tp from 0.5.8; glm4_moe.py
  whole to 0.5.8, over attn_tp from 0.5.9; qwen2_moe.py (Qwen3-MoE's model reuses it) over tp to
  0.4.6.post4, whole from 0.4.6.post5 (read as 0.4.7: a post release is not told apart) to 0.5.8,
  over attn_tp from 0.5.9.
- the LM head is split over the attention-TP group with `--enable-dp-lm-head`, else over tp
  (`ParallelLMHead(..., use_attn_tp_group=enable_dp_lm_head)`, deepseek_v2.py:3034-3039 in 0.5.5,
  :3291-3297 in 0.5.23; qwen3_moe.py:679-685 in 0.5.5).
- the dense MLP layers of the DeepSeek-V2 family (first_k_dense_replace) are whole on every GPU
  with `--moe-dense-tp-size 1` (deepseek_v2.py:2624-2633 in 0.5.5, `enable_moe_dense_fully_dp()`
  -> tp_size 1; :2665 in 0.5.23, `"replicated" if is_dense_ffn_fully_dp()`; glm4_moe.py:672 in
  0.5.5), else split over tp.
- the shared experts of that family are whole on every GPU with DeepEP (`--moe-a2a-backend
  deepep`, before 0.5.0rc0 `--enable-deepep-moe`): deepseek_v2.py:659-670 in 0.5.5 (`tp_size=1 if
  get_moe_a2a_backend().is_deepep()`), :874-896 in 0.5.23 (`parallel_group="replicated"`),
  glm4_moe.py:407 in 0.5.5; and DeepEP sets the expert-parallel size to tp (server_args.py:
  1427-1434 in 0.5.5, `self.ep_size = self.tp_size`; :309-314 in 0.4.6.post1 for
  --enable-deepep-moe), each expert whole on one GPU.

Refused as the release refuses it (server_args.py asserts at start-up):
- `--moe-dense-tp-size` other than 1 (or unset) up to 0.5.12: "moe_dense_tp_size only support 1
  and None currently" (server_args.py:248-251 in 0.4.6.post1, :3704-3707 in 0.5.5; the flag from
  0.4.5.post2); 1, unset or tp from 0.5.13: "moe_dense_tp_size only supports None, 1, or tp_size
  currently" (server_args.py:7439 in 0.5.13; arg_groups/validation_hook.py:207-211 in 0.5.23).
- `--enable-dp-lm-head` without data-parallel attention: with one DP rank SGLang turns it off
  (server_args.py:1375-1377 in 0.5.5; arg_groups/overrides.py:1366-1370 in 0.5.23), noted; with
  --dp-size > 1 and no --enable-dp-attention it asserts "Please enable dp attention when setting
  enable_dp_lm_head." (server_args.py:1387-1390 in 0.5.5; 0.5.23 overrides.py:1424-1426,
  "--enable-dp-lm-head requires attention DP (--attn-dp-size).").

Weights are planned for the first pipeline stage (it holds the embedding and the dense layers).
Other architectures under data-parallel attention: the KV pool and the D pools as above, the
weights at the plain tensor-parallel split, said in the assumptions. Not modelled: the KV heads
replicated where an attention-TP rank has fewer than one (booked at one head a rank), DP
attention's extra graph reserve (kvplan.engines.sglang_defaults), the expert-location
redundancy of EPLB (--ep-num-redundant-experts), and DeepEP's NVSHMEM buffers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.fp8_blocks import Split
from kvplan.engines.interface import EngineSettings, parse_version
from kvplan.engines.mla_replicated import attention_bits
from kvplan.engines.sglang_defaults import DEFAULT_VERSION
from kvplan.engines.steps import Steps
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec

# deepseek_v2.py, glm4_moe.py: the embedding, dense-MLP and shared-expert rules above. Kimi-K2.5
# (kimi_k25, from SGLang 0.5.9) builds its text model as deepseek_v2.py's DeepseekV3ForCausalLM
# (kimi_k25.py:35, :676 in 0.5.9; :41, :693 in 0.5.23), so the same rules hold for it
DEEPSEEK_FAMILY = ("deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25", "glm4_moe")
# qwen2_moe.py (Qwen3-MoE reuses its model): the embedding rule; no dense layers, no shared
# experts in Qwen3-MoE
QWEN_MOE = ("qwen2_moe", "qwen3_moe")
# model_type: (whole on every GPU from, over the attention-TP group from); before both, over tp
EMBED_RULES = {"deepseek_v2": ((0,), (0, 5, 8)), "deepseek_v3": ((0,), (0, 5, 8)),
               "kimi_k2": ((0,), (0, 5, 8)), "kimi_k25": ((0,), (0, 5, 8)),
               "glm4_moe": ((0,), (0, 5, 9)),
               "qwen2_moe": ((0, 4, 7), (0, 5, 9)), "qwen3_moe": ((0, 4, 7), (0, 5, 9))}
DENSE_TP_WIDE_FROM = (0, 5, 13)  # --moe-dense-tp-size may equal tp
DEEPEP_BACKENDS = ("deepep",)
A2A_BACKENDS = ("none", "deepep", "mooncake")


@dataclass(frozen=True)
class Layout:
    """The size each kind of layer is split over on one GPU of a replica."""

    dp: int  # attention data-parallel ranks (1: plain tensor parallelism)
    attn_tp: int
    embed_tp: int
    lm_head_tp: int
    dense_tp: int  # the dense MLP layers
    shared_tp: int  # the shared experts
    ep: int | None  # expert-parallel size (DeepEP: tp)
    modelled: bool  # the architecture's shards were read (DEEPSEEK_FAMILY, QWEN_MOE)


def _ver(version: str | None) -> tuple[int, ...]:
    return (parse_version(version or DEFAULT_VERSION) or ())[:3]


def deepep(s: EngineSettings) -> bool:
    return s.moe_a2a_backend in DEEPEP_BACKENDS


def layout(req: SizeRequest, s: EngineSettings) -> Layout:
    """How `req` is sharded under SGLang `s` (module docstring). Without data-parallel
    attention every layer is split over tp, but for --moe-dense-tp-size 1's dense MLP and
    DeepEP's expert parallelism (ep = tp) and whole shared experts."""
    return shard_layout(req.model, req.tp, req.ep, req.attention_dp, s)


def shard_layout(model: ModelSpec, tp: int, ep: int | None, attention_dp: int,
                 s: EngineSettings) -> Layout:
    """`layout` from the model and the parallel sizes (kvplan check, the block-fp8 notes)."""
    dp = max(attention_dp, 1)
    model_type = model.model_type
    family = model_type in DEEPSEEK_FAMILY
    ep = tp if deepep(s) and model.moe is not None else ep
    shared = 1 if family and deepep(s) else tp
    dense = 1 if family and s.moe_dense_tp_size == 1 else tp
    if dp == 1:
        return Layout(1, tp, tp, tp, dense, shared, ep, True)
    attn = tp // dp
    embed = tp
    if model_type in EMBED_RULES:
        whole, over_attn = EMBED_RULES[model_type]
        ver = _ver(s.version)
        embed = attn if ver >= over_attn else 1 if ver >= whole else tp
    return Layout(dp, attn, embed, attn if s.enable_dp_lm_head else tp, dense, shared, ep,
                  family or model_type in QWEN_MOE)


def block_split(lay: Layout) -> Split:
    """The shards kvplan.engines.fp8_blocks checks (its Split; the check's era by release)."""
    return Split(lay.attn_tp, lay.dense_tp, lay.shared_tp, False)


def layout_of(model: ModelSpec, tp: int, ep: int | None, attention_dp: int, block: object,
              ) -> Layout:
    """`shard_layout` from a kvplan/v1 engine block's SGLang keys."""
    s = EngineSettings(version=getattr(block, "version", None),
                       moe_dense_tp_size=getattr(block, "moe_dense_tp_size", None),
                       enable_dp_lm_head=getattr(block, "enable_dp_lm_head", None) or None,
                       moe_a2a_backend=getattr(block, "moe_a2a_backend", None))
    return shard_layout(model, tp, ep, attention_dp, s)


def refusal(tp: int, s: EngineSettings) -> str | None:
    """Why the release refuses these settings at tensor parallel size `tp` (module
    docstring), or None."""
    dense = s.moe_dense_tp_size
    if dense is None:
        return None
    if _ver(s.version) < DENSE_TP_WIDE_FROM and dense != 1:
        return (f"SGLang {s.version or DEFAULT_VERSION} would not start: --moe-dense-tp-size "
                f"{dense}: \"moe_dense_tp_size only support 1 and None currently\" (server_args.py"
                ":3704-3707 in 0.5.5); use --moe-dense-tp-size 1 or leave it unset")
    if dense not in (1, tp):
        return (f"SGLang {s.version or DEFAULT_VERSION} would not start: --moe-dense-tp-size "
                f"{dense} with --tp {tp}: \"moe_dense_tp_size only supports None, 1, or "
                "tp_size currently\" (arg_groups/validation_hook.py:207-211 in 0.5.23); use 1, "
                f"{tp} or leave it unset")
    return None


def check_settings(s: EngineSettings) -> None:
    """Values no release takes (one line each)."""
    if s.moe_dense_tp_size is not None and s.moe_dense_tp_size < 1:
        raise InputError(f"moe_dense_tp_size must be a positive integer, got {s.moe_dense_tp_size}")
    if s.moe_a2a_backend is not None and s.moe_a2a_backend not in A2A_BACKENDS:
        raise InputError(f"moe_a2a_backend must be one of {', '.join(A2A_BACKENDS)} (SGLang 0.5.5's "
                         f"choices), got {s.moe_a2a_backend!r}")


def _attention_params(req: SizeRequest, split: int) -> tuple[int, int]:
    """(every layer's sharded attention parameters, what one GPU holds of them at `split`): the
    MLA up-projections (q_b or q_proj, kv_b) and o_proj, or q/k/v and o (the KV heads at least
    one a rank). The MLA down-projections are whole on every rank (sglang_weights)."""
    m = req.model
    att, layers, hidden = m.attention, m.num_layers, m.hidden_size
    heads = m.num_attention_heads
    mla = att.mla
    if mla is not None:
        nope = mla.qk_nope_head_dim or 0
        v = mla.v_head_dim or nope
        per_head = (mla.q_lora_rank or hidden) * (nope + mla.qk_rope_head_dim) \
            + mla.kv_lora_rank * (nope + v) + v * hidden
        return layers * heads * per_head, layers * (heads // split) * per_head
    d, dv = att.head_dim, att.value_head_dim
    total = layers * hidden * (heads * d + att.num_kv_heads * (d + dv) + heads * dv)
    kv = max(1, att.num_kv_heads // split)
    held = layers * hidden * ((heads // split) * (d + dv) + kv * (d + dv))
    return total, held


def parts(req: SizeRequest, lay: Layout) -> list[tuple[str, int, int]]:
    """(what, bytes one GPU of the first stage holds, bytes the even split booked) for each part
    sharded otherwise than over tp x pp; empty where every part is (no DP attention and no
    DeepEP shared experts)."""
    m, tp, pp = req.model, req.tp, req.pp
    gpus = tp * pp
    bits = attention_bits(req)
    out: list[tuple[str, int, int]] = []
    if lay.dp > 1 and lay.modelled:
        total, held = _attention_params(req, lay.attn_tp)
        out.append((f"attention over attn_tp {lay.attn_tp}", held * bits // 8 // pp,
                    total * bits // 8 // gpus))
        emb = m.vocab_size * m.hidden_size * (2 if bits < 16 else bits // 8)
        out.append((f"embedding over {lay.embed_tp}", -(-emb // lay.embed_tp), emb // gpus))
        out.append((f"LM head over {lay.lm_head_tp}", -(-emb // lay.lm_head_tp) if pp == 1 else 0,
                    emb // gpus))
    moe = m.moe
    if lay.dense_tp != tp and moe is not None and moe.first_dense_layers and m.intermediate_size:
        dense = moe.first_dense_layers * 3 * m.hidden_size * m.intermediate_size * bits // 8
        out.append((f"dense MLP over {lay.dense_tp}", dense // lay.dense_tp, dense // gpus))
    if lay.shared_tp != tp and moe is not None and moe.num_shared_experts and \
            moe.moe_intermediate_size:
        shared = (m.num_layers - moe.first_dense_layers) * moe.num_shared_experts * 3 \
            * m.hidden_size * moe.moe_intermediate_size * bits // 8
        out.append((f"shared experts over {lay.shared_tp}", shared // lay.shared_tp // pp,
                    shared // gpus))
    return out


def extra_bytes(req: SizeRequest, lay: Layout) -> int:
    """Bytes one GPU holds beyond the even split (`parts`), never below 0 in all."""
    return max(sum(held - booked for _, held, booked in parts(req, lay)), 0)


def describe(req: SizeRequest, lay: Layout) -> str:
    """The weights step's words for the parts `extra_bytes` adds."""
    return "; ".join(f"{what}: {held:,} B held where the split booked {booked:,}"
                     for what, held, booked in parts(req, lay))


def assumptions(req: SizeRequest, s: EngineSettings, lay: Layout) -> list[str]:
    out: list[str] = []
    dp_lm = s.enable_dp_lm_head and lay.dp == 1
    if dp_lm:
        out.append("--enable-dp-lm-head without data-parallel attention: SGLang turns it off with "
                   "one DP rank (server_args.py:1375-1377 in 0.5.5) and refuses it with "
                   "--dp-size > 1 but no --enable-dp-attention (\"Please enable dp attention when "
                   "setting enable_dp_lm_head.\", :1387-1390); planned without it")
    if s.moe_dense_tp_size == 1 and req.model.model_type not in DEEPSEEK_FAMILY:
        out.append("--moe-dense-tp-size 1 applies to the DeepSeek-V2-family models (deepseek_v2.py, "
                   f"glm4_moe.py); {req.model.name} builds its MLP at tp {req.tp}")
    elif s.moe_dense_tp_size == 1 and lay.dp == 1:
        out.append("--moe-dense-tp-size 1 without data-parallel attention: the dense MLP is whole "
                   "on every GPU all the same (deepseek_v2.py:2624-2633 in 0.5.5)")
    if deepep(s) and req.model.moe is None:
        out.append(f"--moe-a2a-backend deepep: {req.model.name} has no experts; nothing moves")
    if lay.dp == 1:
        return out
    out.append(f"data-parallel attention: {lay.dp} ranks of attention over {lay.attn_tp} GPU(s) "
               f"each; every GPU's pool holds its rank's KV heads, and a replica holds {lay.dp} "
               "pools (sglang model_runner.py:1311 in 0.5.5, pool_configurator.py:356 in 0.5.23)")
    if not lay.modelled:
        out.append(f"data-parallel attention: the weights of {req.model.name} "
                   f"({req.model.model_type}) are planned at the plain tensor-parallel split; "
                   "SGLang's shards were read for the DeepSeek-V2 family and Qwen-MoE models")
    return out


def rank_request(req: SizeRequest, lay: Layout) -> SizeRequest:
    """The request as one attention-DP rank sees its pool: attention over attn_tp GPUs (its KV
    heads, its users); `req` itself without data-parallel attention. The node checks are the
    replica's (done on `req`), so the rank's GPU spec holds the rank on one node."""
    if lay.dp == 1:
        return req
    gpu = req.gpu.model_copy(update={"gpus_per_node": max(req.gpu.gpus_per_node,
                                                          lay.attn_tp * req.pp)})
    return replace(req, tp=lay.attn_tp, attention_dp=1, ep=None, nodes=None, gpu=gpu)


def pools(st: Steps, req: SizeRequest, lay: Layout, pool: int, held: int, requested: int,
          starts: bool, reason: str | None, largest: int, notes: list[str],
          weights: int) -> tuple[int, int, int] | None:
    """(users of the replica's D pools, the KV bytes one GPU's users take, one sequence's KV
    bytes on a GPU) under data-parallel attention, with its steps; None without it (the
    replica's one pool)."""
    if lay.dp == 1:
        return None
    from kvplan.engines.interface import finish_size

    # finish_size checks the stated pool beside the plain arithmetic's weights at the rank's
    # attn_tp (up to the whole model): the rank's GPU is given room for them, only users are read
    rank = rank_request(req, lay)
    rank = replace(rank, gpu=rank.gpu.model_copy(update={
        "memory_bytes": req.gpu.memory_bytes * req.tp * req.pp + pool}))
    one = finish_size(rank, pool, held, requested, starts, reason, largest, notes,
                      weights_bytes=weights)
    st.given("KV bytes per sequence", one.kv_bytes_per_sequence, "bytes",
             f"{req.tokens_held:,} tokens, the KV heads of one attention-TP rank of "
             f"{lay.attn_tp} GPU(s) on this GPU")
    st.given("users per attention-DP rank", one.users_per_replica, "users",
             "its own pool, the KV pool of each of its GPUs")
    st.given("attention-DP ranks", lay.dp, "ranks", f"--dp-size {lay.dp}: tp {req.tp} / "
             f"attn_tp {lay.attn_tp}")
    st.op("users (every attention-DP rank)", "mul", ["users per attention-DP rank",
                                                     "attention-DP ranks"], "users",
          "users per attention-DP rank x attention-DP ranks")
    return one.users_per_replica * lay.dp, one.breakdown.kv_used_bytes, one.kv_bytes_per_sequence


def cap_users(cap: int | None, dp: int, version: str | None, ranks: tuple[int, int, int] | None,
              per_seq: int) -> tuple[int, tuple[int, int], str]:
    """A stated (or speculative decoding's) running cap `cap` on the users: (the users it allows
    a replica, the users and the KV bytes a GPU's users take under it, the assumption's words
    for the ranks); with data-parallel attention (`ranks`, from `pools`) each rank takes its
    share (`rank_cap`)."""
    if cap is None:
        return 1 << 62, (0, 0), ""
    if ranks is None:
        return cap, (cap, cap * per_seq), ""
    per = rank_cap(cap, dp, version)
    return per * dp, (per * dp, per * ranks[2]), f", {per:,} on each of the {dp} attention-DP ranks"


def rank_cap(cap: int, dp: int, version: str | None) -> int:
    """The running requests one attention-DP rank takes of a stated --max-running-requests, as
    its request-to-token map does (kvplan.engines.sglang_req_map.max_num_reqs): the whole count
    before 0.5.10, cap // dp from 0.5.10, at least 1 in 0.5.23."""
    from kvplan.engines.sglang_req_map import PER_WORKER_FLOOR_FROM, RESOLVED_FROM

    ver = _ver(version)
    if ver < RESOLVED_FROM:
        return cap
    return cap // dp if ver < PER_WORKER_FLOOR_FROM else max(1, cap // dp)


def moot_refusals(dep: Any, req: SizeRequest, refuse: Callable[[str, str], None]) -> None:
    """Call `refuse(field, why)` for each of these settings a command line gives that cannot
    move this plan (kvplan.plan.moot, through kvplan.engine_traits)."""
    e, tp, model = dep.engine, req.tp, req.model
    if dep.parallel.attention_dp == 1:
        refuse("parallel.attention_dp", "one attention data-parallel rank is plain tensor "
               "parallelism (SGLang turns data-parallel attention off at --dp-size 1); give "
               "more ranks or drop the option")
    if e.enable_dp_lm_head and req.attention_dp <= 1:
        refuse("engine.enable_dp_lm_head", "without data-parallel attention SGLang turns it "
               "off (server_args.py:1375-1377 in 0.5.5); add --attention-dp or drop the option")
    moe = model.moe
    dense = moe is not None and moe.first_dense_layers and model.model_type in DEEPSEEK_FAMILY
    if e.moe_dense_tp_size == 1 and tp > 1 and not dense:
        refuse("engine.moe_dense_tp_size", f"{model.name} has no dense MLP layers that SGLang "
               "builds by it (the DeepSeek-V2 family's first_k_dense_replace layers: "
               "deepseek_v2.py, glm4_moe.py); drop the option")
    elif e.moe_dense_tp_size is not None and (tp == 1 or e.moe_dense_tp_size == tp):
        refuse("engine.moe_dense_tp_size", f"the dense MLP is split over tp {tp} either way; "
               "give 1 with more tensor parallelism, or drop the option")
    if e.moe_a2a_backend is not None and (moe is None or e.moe_a2a_backend == "none"):
        refuse("engine.moe_a2a_backend", f"{model.name} has no experts" if moe is None else
               "none is SGLang's default; drop the option")
