"""What every engine profile takes and returns: settings, measured overrides, steps, results.

An engine profile is a pure function `(SizeRequest, EngineSettings) -> EngineResult`. The result
carries the engine's own numbers (KV bytes, tokens, blocks, concurrency, whether it starts) and a
list of `Step`s: every intermediate number with its unit and the operation that produced it, so
`kvplan explain` can print the arithmetic and `verify_steps` can re-check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from kvplan.capacity.plan import Breakdown, SizeRequest, SizeResult, size
from kvplan.engines.release import parse_version  # the one release reader; imported from here too
from kvplan.engines.settings import (  # what a profile takes; imported from here too
    ENGINE_ONLY,
    TP_TRANSPORTS,
    Engine,
    EngineSettings,
    Measured,
    parse_engine,
)
from kvplan.engines.steps import (  # the arithmetic trail lives there; imported from here too
    Arg,
    Step,
    Steps,
    evaluate,
    verify_steps,
)

if TYPE_CHECKING:  # vllm_capture imports this module
    from kvplan.engines.vllm_capture import Capture

__all__ = [
    "ENGINE_ONLY",
    "TP_TRANSPORTS",
    "Arg",
    "Engine",
    "EngineResult",
    "EngineSettings",
    "Interval",
    "Measured",
    "Step",
    "Steps",
    "evaluate",
    "finish_size",
    "parse_engine",
    "parse_version",
    "verify_steps",
]


@dataclass(frozen=True)
class Interval:
    """A modelled quantity: best guess with the range it is likely in (bytes)."""

    best: int
    low: int
    high: int

    @staticmethod
    def exact(value: int) -> Interval:
        return Interval(value, value, value)


@dataclass(frozen=True)
class EngineResult:
    """An engine's start-up numbers for one request, per GPU of the tightest rank."""

    engine: Engine
    engine_version: str
    size: SizeResult  # the plain result with the engine's KV pool, for users / fleet / tables
    memory_bytes: int
    requested_bytes: int  # what the engine lets itself use
    weights_bytes: int
    activation_bytes: int
    activation_bytes_low: int
    activation_bytes_high: int
    non_torch_bytes: int
    cuda_graph_bytes: int
    kv_cache_bytes: int  # the KV pool the engine allocates (can be negative: it fails)
    kv_cache_bytes_low: int  # with the high activation estimate
    kv_cache_bytes_high: int  # with the low activation estimate
    kv_cache_tokens: int  # what the engine prints as its cache size in tokens
    kv_cache_tokens_low: int
    kv_cache_tokens_high: int
    blocks: int
    block_size_tokens: int
    max_model_len: int
    max_concurrency: Fraction  # requests of max_model_len tokens held at once
    starts: bool
    reason: str | None
    max_model_len_that_starts: int
    steps: tuple[Step, ...]
    assumptions: tuple[str, ...] = field(default=())
    log_lines: tuple[str, ...] = ()  # the lines the engine itself would print
    # vLLM: the CUDA graphs its profile booked the graph term for (kvplan.engines.vllm_capture;
    # `kvplan calibrate` checks them against the printed counts); None for the other engines
    graph_capture: Capture | None = None


def finish_size(
    req: SizeRequest,
    kv_bytes: int,
    overhead_bytes: int,
    requested_bytes: int,
    starts: bool,
    reason: str | None,
    max_len: int,
    assumptions: Sequence[str],
    weights_bytes: int | None = None,
    users_override: tuple[int, int] | None = None,
) -> SizeResult:
    """A plain SizeResult whose pool is the engine's KV pool; its breakdown adds up to memory.

    `users_override` = (users, KV bytes they use) where the engine counts users itself.
    """
    total = req.gpu.memory_bytes
    base = size(replace(req, kv_budget_bytes=None, reserve_bytes=0))
    weights = base.weights_bytes if weights_bytes is None else weights_bytes
    pool = max(kv_bytes, 0)
    if pool > 0:
        # The stated-budget path checks pool + catalog weights against memory; the engine's own
        # (possibly measured) numbers were already checked, so lift that check here.
        roomy = req.gpu.model_copy(update={"memory_bytes": total + pool + weights})
        sized = size(replace(req, gpu=roomy, kv_budget_bytes=pool, memory_utilization=Fraction(1)))
        users = sized.users_per_replica if starts else 0
        used = sized.breakdown.kv_used_bytes if starts else 0
    else:
        sized, users, used = base, 0, 0
    if users_override is not None and starts:
        users, used = users_override
    overhead = max(0, min(overhead_bytes, total - weights - pool))
    # Negative only when the weights alone exceed memory (as in the plain arithmetic): the
    # parts still add up to the total.
    unallocated = total - weights - pool - overhead
    breakdown = Breakdown(
        total_bytes=total,
        weights_bytes=weights,
        kv_used_bytes=used,
        kv_free_bytes=pool - used,
        reserve_bytes=overhead,
        unallocated_bytes=unallocated,
    )
    if starts and users == 0 and reason is None:
        reason = sized.reason
    return replace(
        sized,
        request=req,
        weights_bytes=weights,
        usable_bytes=requested_bytes,
        kv_budget_bytes=pool,
        users_per_replica=users,
        breakdown=breakdown,
        fits=starts and users > 0,
        reason=reason if not (starts and users > 0) else None,
        max_context_that_fits=None if (starts and users > 0) else max_len,
        assumptions=tuple(assumptions),
        suggestions=(),
    )
