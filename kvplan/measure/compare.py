"""Predictions from kvplan.capacity, the capacity search, and predicted-vs-measured comparison.

Pure: no torch. The measuring side (`run.py`) hands in callbacks and numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from kvplan.capacity import Allocation, Precision, stage_caches, weights_bytes_per_gpu
from kvplan.capacity.kv import held_tokens, sequence_bytes
from kvplan.engines.transformers import CACHES, BatchCost, batch_cost
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType


class Check(str, Enum):
    """How a measured figure is held against its prediction."""

    equal = "equal"  # |measured - predicted| / predicted <= tolerance
    at_most = "at_most"  # a bound: measured may fall short, but not exceed it by > tolerance
    info = "info"  # reported, never fails the run


@dataclass(frozen=True)
class Figure:
    """One row of the report: what kvplan predicted, what the device did."""

    key: str
    label: str
    unit: str
    predicted: float | int | None
    measured: float | int | None
    check: Check = Check.equal
    note: str = ""

    @property
    def error_pct(self) -> float | None:
        """(measured - predicted) / predicted, in percent; None when either side is missing."""
        if self.predicted is None or self.measured is None or self.predicted == 0:
            return None
        return float((Fraction(self.measured) - Fraction(self.predicted)) / Fraction(self.predicted)
                     * 100)

    def passes(self, tolerance_pct: float) -> bool | None:
        """Whether the figure is within tolerance (None when it is not checked)."""
        err = self.error_pct
        if self.check is Check.info or err is None:
            return None
        if self.check is Check.at_most:
            return err <= tolerance_pct
        return abs(err) <= tolerance_pct


@dataclass
class MeasureReport:
    """Everything one `--measure` run found, ready for the renderers."""

    model: str
    device: str
    device_name: str
    hardware: str | None
    versions: dict[str, str]
    weight_dtype: str
    context_tokens: int
    num_layers: int
    kv_budget_bytes: int
    budget_source: str
    tolerance_pct: float
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)  # measurements that broke off, and why

    @property
    def failures(self) -> list[Figure]:
        return [f for f in self.figures if f.passes(self.tolerance_pct) is False]

    @property
    def passed(self) -> bool:
        return not self.failures and not self.errors


@dataclass(frozen=True)
class Prediction:
    """What kvplan.capacity says for the built model at the target context."""

    weights_bytes: int
    kv_bytes_per_token: int  # every cached layer, while inside every window
    tokens_held_per_sliding_layer: int | None  # at the target context
    kv_bytes_per_sequence: int  # at the target context, the whole context reserved
    users: int  # floor(budget / per-sequence bytes)
    # what one more sequence costs transformers itself (kvplan's transformers profile:
    # cache + the largest one-layer transient + activations), by cache kind
    decode_costs: dict[str, BatchCost] = field(default_factory=dict)

    def users_transformers(self, cache: str, budget_bytes: int) -> int:
        """The batch kvplan's transformers profile predicts when the budget is all memory."""
        return budget_bytes // self.decode_costs[cache].total_bytes


def predict(spec: ModelSpec, dtype: DType, context_tokens: int, budget_bytes: int) -> Prediction:
    """The plan for one GPU with no parallelism, the cache in the model's dtype."""
    stage = stage_caches(spec, Precision(dtype), tp=1, pp=1)[0]
    seq = sequence_bytes(stage, spec, context_tokens, Allocation.reserved, 1)
    window = spec.attention.sliding_window_tokens
    held = (held_tokens(context_tokens, window, True, Allocation.reserved, 1)
            if stage.sliding_layers else None)
    return Prediction(
        weights_bytes=weights_bytes_per_gpu(spec, dtype, 1),
        kv_bytes_per_token=stage.bytes_per_token,
        tokens_held_per_sliding_layer=held,
        kv_bytes_per_sequence=seq,
        users=budget_bytes // seq if seq else 0,
        decode_costs={c: batch_cost(spec, context_tokens, Precision(dtype), c) for c in CACHES},
    )


def bandwidth_bound_tokens_per_s(
    weights_bytes: int, kv_bytes_per_sequence: int, batch: int, bandwidth_bytes_per_s: int
) -> float:
    """Decode tokens/s if every step only had to read the weights and the batch's cache once."""
    step_bytes = weights_bytes + batch * kv_bytes_per_sequence
    return batch * bandwidth_bytes_per_s / step_bytes


class Deadline:
    """A wall-clock budget shared by the measurements (monotonic clock)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._end = clock() + seconds

    @property
    def left_s(self) -> float:
        return self._end - self._clock()

    @property
    def passed(self) -> bool:
        return self.left_s <= 0


@dataclass(frozen=True)
class SearchResult:
    """The largest batch that held, and how the search went."""

    best: int  # 0 when not even one sequence held
    tried: tuple[tuple[int, bool], ...]  # (batch, held) in the order tried
    cut_short: bool  # the deadline stopped the search: `best` is a lower bound


def search_capacity(
    predicted: int, cap: int, holds: Callable[[int], bool], deadline: Deadline | None = None
) -> SearchResult:
    """The largest n in [1, cap] with holds(n), starting at the prediction.

    Assumes holding is monotonic (if n holds, fewer do too). Goes up from the prediction by
    doubling steps while batches hold, down by halving steps while they fail, then bisects.
    Never calls holds(n) for n > cap: the caller sets cap so no request exceeds free memory.
    """
    tried: list[tuple[int, bool]] = []
    known: dict[int, bool] = {}

    def test(n: int) -> bool:
        if n not in known:
            known[n] = holds(n)
            tried.append((n, known[n]))
        return known[n]

    def out_of_time() -> bool:
        return deadline is not None and deadline.passed

    if cap <= 0:
        return SearchResult(0, (), False)
    start = min(max(predicted, 1), cap)
    lo, hi = 0, cap + 1  # lo holds (0 trivially), hi fails (cap + 1 is never asked)
    if test(start):
        lo, step = start, 1
        while lo < cap and not out_of_time():
            n = min(lo + step, cap)
            if not test(n):
                hi = n
                break
            lo, step = n, step * 2
    else:
        hi, step = start, 1
        while hi - step >= 1 and not out_of_time():
            n = hi - step
            if test(n):
                lo = n
                break
            hi, step = n, step * 2
    while hi - lo > 1 and not out_of_time():
        mid = (lo + hi) // 2
        if test(mid):
            lo = mid
        else:
            hi = mid
    return SearchResult(lo, tuple(tried), hi - lo > 1)
