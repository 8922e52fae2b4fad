"""Whether a server starts, and what it holds, from the model, the GPU and the engine options
alone (no traffic needed).

It cannot start when the engine refuses its command line (an option it does not know), when
max_model_len is above the model's limit, when tensor parallelism does not divide the
attention heads, when the KV heads and the tensor size do not divide as vLLM asserts
(kv % tp == 0 when kv >= tp, else tp % kv == 0), when the weights do not fit, or when one
max_model_len sequence does not fit the KV pool, or the engine stops for a term beside its pool
(SGLang's request-to-token map, kvplan.engines.sglang_req_map; the last three:
kvplan.check.numbers.evaluate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kvplan.check.numbers import Numbers, Setup, evaluate
from kvplan.deploy import PlannedDeployment
from kvplan.engines.deployment import deployment_engine_settings
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import fmt_bytes


def shape_refusals(model: ModelSpec, tp: int, max_model_len: int | None,
                   attention_dp: int = 1, attention_flag: str = "") -> list[str]:
    """What the engine asserts about the model's shape before it allocates anything: the
    context limit, then the heads rule (heads_refusals)."""
    out = []
    if max_model_len is not None and max_model_len > model.max_context_tokens:
        out.append(f"would not start: max_model_len {max_model_len:,} is above {model.name}'s "
                   f"limit of {model.max_context_tokens:,} tokens")
    return out + heads_refusals(model, tp, attention_dp, attention_flag)


def heads_refusals(model: ModelSpec, tp: int, attention_dp: int = 1,
                   attention_flag: str = "") -> list[str]:
    """Whether tensor parallelism `tp` shards the model's heads as the engine asserts; the one
    rule `kvplan check` refuses a command line by and picks a fix's TP by (kvplan.check.fixes).

    With SGLang's data-parallel attention (`attention_dp` = D: `--enable-dp-attention --dp-size
    D`, or 0.5.23's `--attn-dp-size D` / `--attention-data-parallel-size D`, named by
    `attention_flag`) attention runs over tp / D GPUs: sglang srt/layers/dp_attention.py
    compute_dp_attention_world_info, `attn_tp_size = tp_size // dp_size` (0.5.5 :231; 0.5.23
    :454 through srt/runtime_context.py:73-76 derive_attn_tp_size, `tp_size // attn_dp_size //
    attn_cp_size`), so the heads are divided by that; a D that does not divide tp is refused as
    SGLang asserts it (0.5.5 server_args.py:1381 `assert self.tp_size % self.dp_size == 0`;
    0.5.23 srt/arg_groups/parallel_hook.py:326 `assert cfg.tp_size % cfg.attn_dp_size == 0` in
    handle_data_parallelism, and :162 with attention context parallelism)."""
    out = []
    old = attention_flag in ("", "--dp-size")
    said = (f"--dp-size {attention_dp} with --enable-dp-attention" if old
            else f"{attention_flag} {attention_dp}")
    if attention_dp > 1 and tp % attention_dp:
        rule = ("SGLang asserts tp_size % dp_size == 0" if old else "SGLang 0.5.23 asserts "
                "tp_size % attn_dp_size == 0, srt/arg_groups/parallel_hook.py:326")
        out.append(f"would not start: {said} does not divide tensor parallel size {tp} ({rule})")
        return out
    what = "tensor parallel size"
    if attention_dp > 1:
        what = (f"the attention tensor parallel size (tp {tp} / --dp-size {attention_dp}, "
                "--enable-dp-attention)" if old else
                f"the attention tensor parallel size (tp {tp} / {said})")
        tp //= attention_dp
    heads = model.num_attention_heads
    if heads % tp:
        out.append(f"would not start: {what} {tp} does not divide {model.name}'s "
                   f"{heads} attention heads")
    kv = model.attention.num_kv_heads
    if (kv >= tp and kv % tp) or (kv < tp and tp % kv):
        out.append(f"would not start: {model.name}'s {kv} KV heads and {what} "
                   f"{tp} do not divide one another")
    return out


@dataclass(frozen=True)
class Startup:
    numbers: Numbers
    pool_tokens: int  # tokens the KV pool holds: per-GPU pool / per-GPU bytes of a token (past
    # every sliding window, where a model has them)


def startup(planned: PlannedDeployment, gpus: int, engines_per_unit: int = 1,
            gpu: HardwareSpec | None = None) -> Startup:
    """The start-up numbers at the deployment's settings (on `gpu` when given)."""
    from dataclasses import replace

    from kvplan.capacity.plan import size
    from kvplan.engines import run_engine
    from kvplan.errors import InputError

    dep = planned.deployment
    req = planned.request if gpu is None else replace(planned.request, gpu=gpu)
    engine = deployment_engine_settings(dep.engine)
    setup = Setup(gpus, req, dep.engine.max_num_seqs, engines_per_unit, engine, None)
    numbers = evaluate(setup, 1, None)
    tokens = 0
    if numbers.would_start:
        try:
            if engine is not None:
                # the engine's own count ("GPU KV cache size: N tokens"): whole blocks, and
                # past every sliding window where a model has them
                tokens = run_engine(req, engine).kv_cache_tokens
            else:
                res = size(req)
                # a token past every sliding window costs only the global layers' share
                per = res.kv_bytes_per_token_beyond_window or res.kv_bytes_per_token
                tokens = res.kv_budget_bytes // max(per, 1)
        except InputError:
            tokens = 0
    return Startup(numbers, tokens)


def _dtype_refused(planned: PlannedDeployment) -> Callable[[HardwareSpec], bool]:
    """Whether the engine refuses the deployment's compute dtype on a GPU by its compute
    capability (kvplan.engines.dtype_support: vLLM's and TensorRT-LLM's bfloat16 below 8.0, SGLang
    below 7.5), as
    a named GPU's verdict FAILs it (kvplan.check.gpu_dtype; task h82docs saw a V100 listed as a
    GPU an SGLang server starts on)."""
    from kvplan.plan.gpu_dtype import rule_on

    def refused(gpu: HardwareSpec) -> bool:
        ruled = rule_on(planned.deployment, None, planned.request.model, gpu)
        return ruled is not None and ruled[0].refusal is not None
    return refused


def starts_on(planned: PlannedDeployment, gpus: int, catalog: Sequence[HardwareSpec],
              engines_per_unit: int = 1) -> tuple[list[str], list[str], str | None]:
    """(catalog GPUs it starts on, those it does not, a note naming those where it starts short)
    at the deployment's settings. Starting short is SGLang's start without room for one
    max_model_len request (short_pool): the server is up and refuses longer requests, as the
    verdict on a named GPU says (a WARN, not a FAIL), so the GPU is one it starts on (blind round
    blind-2026-12-06-r4, task h52checkround: a compose file's --max-total-tokens 8192 under a
    262,144-token context was listed as starting on no GPU, where a named one was a WARN).

    A GPU whose server holds fewer GPUs (its spec's gpus_per_node: 1 for a single-device board,
    DGX Spark's GB10 and Jetson AGX Thor) than one node of the engine asks for is one it does
    not start on: the pod cannot be scheduled there (task h53checkgaps: Kimi-K2.5 at tensor
    parallel 8 was listed as starting on gb10 and jetson-thor)."""
    yes, no, short = [], [], []
    longest = 0
    req = planned.request
    per_node = -(-req.gpus_per_replica // (req.nodes or 1))  # GPUs one node of a replica holds
    refused = _dtype_refused(planned)
    for gpu in catalog:
        if per_node > gpu.gpus_per_node or refused(gpu):
            no.append(gpu.name)
            continue
        numbers = startup(planned, gpus, engines_per_unit, gpu).numbers
        if numbers.would_start:
            yes.append(gpu.name)
        elif short_pool(planned, numbers, gpu) is not None:
            yes.append(gpu.name)
            short.append(gpu.name)
            longest = numbers.max_model_len
        else:
            no.append(gpu.name)
    note = None
    if short:
        where = "every GPU it starts on" if short == yes else ", ".join(short)
        from kvplan.engine_traits import traits

        name = traits(planned.deployment.engine.name).said
        note = (f"on {where} a {longest:,}-token request cannot be served: the pool holds fewer "
                f"tokens ({name} starts, and refuses longer requests)")
    return yes, no, note


def short_pool(planned: PlannedDeployment, n: Numbers,
               gpu: HardwareSpec | None = None) -> int | None:
    """The pool's tokens when the engine starts without room for one max_model_len request
    (SGLang: `max_total_num_tokens > 0`), on `gpu` when given; None when that is not the case."""
    from dataclasses import replace

    from kvplan.engine_traits import traits
    from kvplan.engines import run_engine
    from kvplan.errors import InputError

    if n.would_start or n.limited_by == "weights" or n.kv_pool_bytes <= 0:
        return None
    engine = deployment_engine_settings(planned.deployment.engine)
    if engine is None or not traits(engine.engine).starts_short:
        return None
    req = planned.request if gpu is None else replace(planned.request, gpu=gpu)
    try:
        res = run_engine(req, engine)
    except InputError:
        return None
    return res.kv_cache_tokens if res.starts and res.kv_cache_tokens > 0 else None


def sequences(n: int) -> str:
    """'1 sequence', '6 sequences'."""
    return f"{n:,} sequence" + ("" if n == 1 else "s")


def pass_text(s: Startup) -> str:
    n = s.numbers
    # the engine's batch cap (engine.max_num_seqs: vLLM --max-num-seqs, SGLang
    # --max-running-requests, TensorRT-LLM max_batch_size) below what the pool holds: the pool
    # is not the concurrency a user gets, so both are said
    cap = (f"; at most {n.users_per_replica:,} run at once (engine.max_num_seqs)"
           if n.limited_by == "max_num_seqs" else "")
    return (f"starts; holds {sequences(n.kv_users_per_replica)} of {n.max_model_len:,} tokens "
            f"per replica ({s.pool_tokens:,} tokens in the pool){cap}; capacity against traffic "
            "not checked")


def shared_gpu_note(planned: PlannedDeployment, numbers: Numbers) -> str | None:
    """Where the vLLM release counts memory other processes hold on the GPU against its own
    budget (kvplan.engines.vllm_nontorch.counts_other_processes: V1 before 0.9.1, V0 0.6.4 and
    0.2.5-0.3.0), how much they may hold before one max_model_len request no longer fits: the
    verdict assumes the GPUs run nothing else (vllm-project/vllm#17431: the same command started
    under V0 and failed under 0.8.5's V1 at utilization 0.4 on a shared A800)."""
    from kvplan.engines.vllm_nontorch import settings_count_other_processes

    s = deployment_engine_settings(planned.deployment.engine)
    counted = settings_count_other_processes(s) if s is not None else None
    if counted is None or not numbers.would_start:
        return None
    version, rule = counted
    room = numbers.kv_pool_bytes - numbers.max_sequence_bytes
    return (f"vLLM {version} counts memory any other process holds on a GPU against its "
            f"budget ({rule}); kvplan assumes the GPUs run nothing else: it starts while "
            f"others hold under {fmt_bytes(room)} a GPU")
