"""`--measure` stages 4 and 5: decode throughput against the bandwidth bound, and the cost of a
new token with and without the cache."""

from __future__ import annotations

import statistics
from typing import Any

from kvplan.measure.compare import Check, Figure, bandwidth_bound_tokens_per_s
from kvplan.measure.session import Session
from kvplan.units import fmt_bytes


class SpeedStage(Session):
    """Times decode steps and single tokens."""

    def _throughput(self, key: str, batch: int, step_s: list[float]) -> None:
        step = statistics.median(step_s)
        measured = batch / step
        bound = None
        note = f"batch {batch}, median of {len(step_s)} steps: {step * 1000:.1f} ms per step"
        if self.hardware is not None:
            bound = bandwidth_bound_tokens_per_s(
                self.pred.weights_bytes, self.pred.kv_bytes_per_sequence, batch,
                self.hardware.memory_bandwidth_bytes_per_s,
            )
            note += (f"; the bound reads {fmt_bytes(self.pred.weights_bytes)} of weights + "
                     f"{fmt_bytes(batch * self.pred.kv_bytes_per_sequence)} of cache per step at "
                     f"{self.hardware.memory_bandwidth_bytes_per_s / 1e12:g} TB/s: "
                     f"{batch / bound * 1000:.1f} ms; measured is {measured / bound:.0%} of it")
        else:
            note += "; bound n/a (no hardware spec)"
        self.figures += [
            Figure(f"decode_tokens_per_s_{key}", f"decode tokens/s, {key} (vs bound)",
                   "tok/s", None if bound is None else round(bound, 1), round(measured, 1),
                   Check.at_most, note),
            Figure(f"decode_tokens_per_s_per_seq_{key}", f"  per sequence ({key})", "tok/s",
                   None if bound is None else round(bound / batch, 2), round(1 / step, 2),
                   Check.info),
        ]

    # -- 5. the cost of a new token, with and without the cache --------------------------------

    def token_cost(self) -> None:
        t = self.t
        lengths = sorted({max(1, self.context // 16), max(1, self.context // 4), self.context - 1})
        for length in lengths:
            if self.deadline.passed:
                self.notes.append(f"cost of a token at {length:,}+ tokens: skipped (--time-limit)")
                return
            # the cached steps run at length - repeats .. length tokens (no crop: a sliding
            # cache past its window cannot be rolled back)
            cache = self._new_cache(static=False)
            self._forward(self._ids(1, max(1, length - self.repeats - 1)), cache)
            one = self._ids(1, 1)
            full = self._ids(1, length + 1)

            def cached(c: Any = cache, x: Any = one) -> None:
                self._forward(x, c)

            with_cache = self._median(cached)
            def uncached(f: Any = full) -> None:
                self._forward(f, None)

            without = self._median(uncached)
            del cache
            t.release()
            self.figures += [
                Figure(f"token_ms_cached_{length}", f"new token after {length:,}: with cache",
                       "ms", None, round(with_cache * 1000, 3), Check.info),
                Figure(f"token_ms_uncached_{length}", f"new token after {length:,}: no cache",
                       "ms", None, round(without * 1000, 3), Check.info,
                       f"{without / with_cache:.1f}x the cached step"),
            ]
