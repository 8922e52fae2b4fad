"""`--measure`'s prefill peak: how many prompts at the context fit while the whole prompt is
cached in every layer, searched around kvplan's prediction."""

from __future__ import annotations

from kvplan.measure.compare import Deadline, Figure, search_capacity
from kvplan.measure.session import Session
from kvplan.measure.tensors import _cache_bytes, _is_oom


class PrefillStage(Session):
    """Searches the largest batch of prompts whose prefill peak fits."""

    def prefill_capacity(self) -> None:
        """Sequences whose real prefill fits: sliding layers hold the whole prompt until the
        next append, so the peak right after the prompt's forward is every layer at full length.

        Measured only for models with sliding layers (otherwise it is the cache figure again).
        """
        cost = self.pred.decode_costs["dynamic"]
        if not cost.shape.sliding_layers or cost.prefill_cache_bytes <= cost.cache_bytes:
            return
        cache_only = self.opts.kv_budget_bytes is not None or not self.t.cuda
        per_seq = cost.prefill_cache_bytes if cache_only else cost.prefill_total_bytes
        predicted = self.budget // per_seq
        free = self.t.free()
        cap = (self.budget if free is None else min(self.budget, free)) // max(
            1, cost.prefill_cache_bytes)

        def holds(batch: int) -> bool:
            self.progress.say(f"  trial: a prefill of {batch:,} prompts of {self.context:,} tokens")
            cache = self._new_cache(static=False)
            try:
                out = self._forward(self._ids(batch, self.context), cache)
                del out
                self.t.sync()
                return _cache_bytes(cache) <= self.budget
            except self.t.oom_types():
                return False
            except RuntimeError as err:
                if not _is_oom(err):
                    raise
                return False
            finally:
                del cache
                self.t.release()

        found = search_capacity(predicted, cap, holds, Deadline(max(0.0, self.deadline.left_s)
                                                                 * 0.5))
        tried = ", ".join(f"{n}{'' if ok else 'x'}" for n, ok in found.tried)
        self.figures.append(Figure(
            "capacity_prefill", f"sequences at {self.context:,} tokens, prefill peak (growing)",
            "seqs", predicted, found.best,
            note=(f"budget / {per_seq:,} B per sequence: every layer holds the {self.context:,}-"
                  f"token prompt right after prefill (sliding layers until the next append); "
                  f"tried {tried}" + (" (cut short by --time-limit)" if found.cut_short else ""))))
