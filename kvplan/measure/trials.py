"""`--measure` stage 3: how many sequences at the context really hold and decode, searched around
kvplan's prediction (the prefill peak's capacity is kvplan.measure.prefill)."""

from __future__ import annotations

from typing import Any

from kvplan.measure.compare import Deadline, Figure, search_capacity
from kvplan.measure.session import Session, first_line
from kvplan.measure.tensors import _cache_bytes, _is_oom


class CapacityStage(Session):
    """Searches the largest batch that holds and decodes, growing and reserved."""

    def _fill(self, cache: Any, batch: int, tokens: int) -> int:
        """Fill every layer with `tokens` random cached tokens, one layer at a time.

        A growing sliding layer is given only the window - 1 tokens it keeps, and told it saw
        `tokens` (its `cumulative_length`): handing it all of them would allocate the whole
        prompt for every layer (its kept tokens are a view of the append) and run out of memory
        long before a decode would. Returns the cache's allocated bytes once filled.
        """
        torch = self.t.torch
        for i, s in enumerate(self.shapes):
            layer = cache.layers[i] if i < len(cache.layers) else None
            window = getattr(layer, "sliding_window", None)
            keep = tokens
            if (window and tokens > window - 1
                    and isinstance(getattr(layer, "cumulative_length", None), int)):
                keep = window - 1
            k = torch.empty((batch, s.k_heads, keep, s.k_dim), dtype=self.cache_dtype,
                            device=self.t.device).normal_()
            v = torch.empty((batch, s.v_heads, keep, s.v_dim), dtype=self.cache_dtype,
                            device=self.t.device).normal_()
            cache.update(k, v, i)
            del k, v
            if keep < tokens:
                cache.layers[i].cumulative_length += tokens - keep
        return _cache_bytes(cache)

    def _trial(self, static: bool, batch: int, times: dict[int, list[float]]) -> bool:
        """Does a cache of `batch` sequences at the target context hold and decode?"""
        t = self.t
        need = batch * self.pred.kv_bytes_per_sequence
        free = t.free()
        if need > self.budget or (free is not None and need > free):
            return False  # never request more than the budget or than is free
        self.progress.say(f"  trial: {batch:,} sequences of {self.context:,} tokens, "
                          f"{'reserved' if static else 'growing'} cache")
        try:
            step_s = self._decode_trial(static, batch)
        except self.t.oom_types():
            step_s = None
        except RuntimeError as err:  # cuBLAS and friends report a failed allocation this way
            if not _is_oom(err):  # another failure at this batch: it does not hold; say why
                if self.opts.debug:
                    raise
                self.notes.append(f"batch {batch:,} ({'reserved' if static else 'growing'}): "
                                  f"{type(err).__name__}: {first_line(err)}; counted as not "
                                  "holding")
            step_s = None
        t.release()  # the trial's frame (and any exception's) is gone: its memory is free
        if step_s is None:
            return False
        times[batch] = step_s
        return True

    def _decode_trial(self, static: bool, batch: int) -> list[float] | None:
        """Fill a cache to `steps` short of the context, decode `steps` tokens: step times."""
        steps = self.opts.decode_steps
        cache = self._new_cache(static, batch)
        peak = self._fill(cache, batch, self.context - steps)
        ids = self._ids(batch, 1)

        def step(c: Any = cache, x: Any = ids) -> None:
            self._forward(x, c)

        step_s = []
        for _ in range(steps):
            step_s.append(self.t.timed(step))
            peak = max(peak, _cache_bytes(cache))
        if peak > self.budget:  # the cache itself, at its largest, must fit the budget
            return None
        return step_s[1:]  # the first step is a warm-up

    def _capacity_prediction(self, cache: str) -> tuple[int, str]:
        """The batch to hold the search against, and where that number comes from.

        With the device's free memory as the budget, the allocator bounds the cache and every
        transient of a step, so the prediction is kvplan's transformers profile (what
        `kvplan size --engine transformers --engine-version dynamic|static` computes). With
        --kv-budget-gib, the budget bounds the cache tensors alone: budget / cache per sequence.
        """
        pred = self.pred
        if self.opts.kv_budget_bytes is not None or not self.t.cuda:
            return pred.users, "predicted: the cache budget / cache per sequence"
        cost = pred.decode_costs[cache]
        users = pred.users_transformers(cache, self.budget)
        return users, (
            f"predicted by kvplan's transformers profile ({cache}): "
            f"{cost.total_bytes:,} B per sequence = cache {cost.cache_bytes:,} + transient "
            f"{cost.transient_bytes:,} ({cost.transient_formula}) + activations "
            f"{cost.activation_bytes:,}; the cache alone would give {pred.users:,}"
        )

    def capacity(self) -> None:
        seq = self.pred.kv_bytes_per_sequence
        # each search gets a share of the time left; the token-cost timings keep the rest
        for static, key, label, share in (
            (True, "reserved", "StaticCache (reserved)", 0.35),
            (False, "growing", "DynamicCache (growing)", 0.5),
        ):
            predicted, basis = self._capacity_prediction("static" if static else "dynamic")
            free = self.t.free()
            room = self.budget if free is None else min(self.budget, free)
            cap = room // seq
            times: dict[int, list[float]] = {}
            found = search_capacity(
                predicted, cap, lambda n, s=static, tm=times: self._trial(s, n, tm),  # type: ignore[misc]
                Deadline(max(0.0, self.deadline.left_s) * share),
            )
            tried = ", ".join(f"{n}{'' if ok else 'x'}" for n, ok in found.tried)
            note = (f"{basis}; tried {tried}"
                    + (" (cut short by --time-limit)" if found.cut_short else ""))
            self.figures.append(
                Figure(f"capacity_{key}", f"sequences at {self.context:,} tokens, {label}",
                       "seqs", predicted, found.best, note=note)
            )
            if found.best:
                self._throughput(key, found.best, times[found.best])
