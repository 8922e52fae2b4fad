"""Flags that set a field the plan would never read: refused with the reason, never dropped.

`kvplan.plan.record` refuses a flag the record's engine never reads (`--page-size` for vLLM);
the rules here need the resolved record (the cache precision `auto` becomes, the lengths):
a flag given on the command line that cannot change this plan is one line and exit 2, so that
a user who typed it learns why nothing moved. Values a file states are not refused here
(kvplan.deploy notes the engine settings a profile never reads).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.engine_traits import traits

if TYPE_CHECKING:
    from kvplan.deploy import PlannedDeployment
    from kvplan.plan.record import Record

# engines whose profile never reads max_num_seqs in size, fleet and explain (the plain
# arithmetic has no scheduler; transformers' cache holds the batch it is given)
_NO_SEQUENCE_CAP = ("ideal", "transformers")


# kvplan.capacity.parallel's refusals, by how they begin -> the field whose value they refuse
_PARALLEL_CHECKS = (("expert parallelism", "parallel.expert"),
                    ("tensor parallelism", "parallel.tensor"),
                    ("a replica of", "parallel.nodes"))


def on_flag_field(record: Record, p: Problem) -> Problem:
    """A parallelism the engines refuse is reported on `engine` (the request's own check);
    when a flag set it, the problem moves to that flag's field, so that its line names it."""
    if p.field != "engine":
        return p
    for prefix, fld in _PARALLEL_CHECKS:
        if p.message.startswith(prefix) and _flag(record, fld) is not None:
            return Problem(fld, p.message, p.line)
    return p


def _flag(record: Record, dotted: str) -> str | None:
    origin = record.origins.get(dotted, "")
    return origin if origin.startswith("--") else None


def moot_problems(record: Record, planned: PlannedDeployment) -> list[Problem]:
    """Each flag of `record` whose field this plan does not read, with the reason and the fix."""
    from kvplan.units import DType

    dep, req = planned.deployment, planned.request
    out: list[Problem] = []

    def refuse(dotted: str, message: str) -> None:
        flag = _flag(record, dotted)
        if flag is not None:
            out.append(Problem(f"{dotted} ({flag})", message))

    if req.kv_dtype is not DType.int4:
        refuse("engine.kv_group_size", f"only an int4 cache has groups of values sharing a "
               f"scale; this cache is {req.kv_dtype.value}; add --kv-dtype int4 or drop the "
               "option")
    t = dep.traffic
    if t.arrival_rate_per_s is None:
        refuse("traffic.peak_to_mean", "it scales a mean arrival rate to the peak; this load "
               "is a peak of concurrent users already; give --arrival-rate with "
               "--mean-duration-s, or drop the option")
    ctx = t.context_tokens
    if not (ctx is not None and ctx.has_spread):
        refuse("traffic.risk", "an overflow risk needs a spread of lengths; with a mean alone "
               "every conversation holds the mean and nothing is left to chance; add "
               "--context-p95 (or --context-p99, --context-sample) or drop the option")
    elif req.allocation.value == "reserved":
        refuse("traffic.risk", "a reserved cache sets aside the full context for every "
               "conversation, so the pool never overflows; drop the option or use "
               "--allocation paged")
    if req.allocation.value == "reserved" and t.shared_prefix_tokens:
        refuse("traffic.shared_prefix_tokens", "a reserved cache sets aside the whole context "
               "for every conversation, so a shared prefix saves nothing; use --allocation "
               "paged or drop the option")
    p = dep.parallel
    nodes = p.nodes
    if nodes is not None and nodes > p.tensor * p.pipeline:
        refuse("parallel.nodes", f"a replica of {p.tensor * p.pipeline} GPU(s) (tensor "
               f"{p.tensor} x pipeline {p.pipeline}) cannot span {nodes} servers: each server "
               "holds at least one of its GPUs; raise --tp/--pp or lower --nodes")
    ep = p.expert
    from kvplan.plan.block_fp8 import block_reason

    e = dep.engine
    if ep is not None and ep <= p.tensor and req.model.moe is not None and (  # not moot where
            block_reason(e.name, e.version, req.model, p.tensor, ep)  # a block-fp8 checkpoint's
            == block_reason(e.name, e.version, req.model, p.tensor, None)):  # TP rule moves
        refuse("parallel.expert", f"up to the tensor-parallel size ({p.tensor}) the experts are "
               "split over the same GPUs either way, so the memory plan is the same; give more "
               "ranks than --tp (vLLM's expert parallelism is tp x dp) or drop the option")
    if p.tensor == 1:  # vLLM's TP term: NCCL's and custom all-reduce's buffers
        for dotted in ("engine.tp_transport", "engine.disable_custom_all_reduce"):
            refuse(dotted, "it sets vLLM's tensor-parallel buffers; this replica has tensor "
                   "parallelism 1, which opens no NCCL channel and no custom all-reduce; add "
                   "--tp or drop the option")
    elif dep.engine.tp_transport == "host":
        refuse("engine.disable_custom_all_reduce", "the host transport (no P2P, or across "
               "nodes) already runs without custom all-reduce, so nothing moves; drop the option")
    engine = dep.engine.name
    own = traits(engine).hook("moot_refusals")  # vLLM: sampler, entry point; transformers: prefix
    if own is not None:
        own(dep, req, refuse)
    if engine in _NO_SEQUENCE_CAP:
        refuse("engine.max_num_seqs", f"the {engine} profile never caps the sequences (only "
               "vllm, sglang and trtllm read it); add --engine or drop the option")
    prompt = t.prompt_tokens
    if prompt is not None and prompt > req.context_tokens:  # stated anywhere: never possible
        label = f"traffic.prompt_tokens ({_flag(record, 'traffic.prompt_tokens')})" \
            if _flag(record, "traffic.prompt_tokens") else "traffic.prompt_tokens"
        out.append(Problem(label, f"{prompt:,} tokens is longer than the longest sequence the "
                           f"engine accepts (max_model_len {req.context_tokens:,})"))
    return out


# flags a reserved cache never reads: each sequence sets aside its whole context, in no blocks.
# Refused only when every combination is reserved (an `--allocation paged,reserved` sweep reads
# them on its paged rows), so before any record is planned. Until task h100review both were
# taken and dropped in silence: `size llama-3-8b --context 8192 --avg-context 2000 --allocation
# reserved` reported avg_context_tokens 8192, and --block-size 1000 moved nothing
# (1,048,576,000 B a sequence at 8,000 tokens with 16 or 1,000).
_RESERVED_MOOT = (
    ("traffic.context_tokens.mean", "a reserved cache sets aside the full context for every "
     "sequence, so the average length moves nothing; drop the option or use --allocation "
     "paged"),
    ("engine.block_size", "a reserved cache sets aside the whole context for every sequence "
     "in one piece, not in blocks; drop the option or use --allocation paged"),
)


def refuse_moot_all_reserved(records: list[Record]) -> None:
    """Raise on the first flag of _RESERVED_MOOT when every record plans a reserved cache."""
    if not records or any(r.deployment.engine.allocation != "reserved" for r in records):
        return
    rec = records[0]
    ctx = rec.deployment.traffic.context_tokens
    for dotted, why in _RESERVED_MOOT:
        if dotted == "traffic.context_tokens.mean" and ctx is not None and ctx.has_spread:
            continue  # with percentiles the mean shapes the fit, whose mean sets TTFT and decode
        flag = _flag(rec, dotted)
        if flag is not None:
            raise DeploymentError(rec.source, [Problem(f"{dotted} ({flag})", why)])


def refuse_moot(record: Record, planned: PlannedDeployment) -> None:
    """Raise one error naming every flag that cannot change this plan (see module docstring)."""
    problems = moot_problems(record, planned)
    if problems:
        raise DeploymentError(record.source, problems)
