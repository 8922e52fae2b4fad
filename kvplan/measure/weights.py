"""`--measure` stage 1: the weights, built with random values on the device, and the cache
budget the later stages search within (kvplan's prediction is made against it)."""

from __future__ import annotations

import time

from kvplan.measure.compare import Figure, predict
from kvplan.measure.session import Session
from kvplan.measure.tensors import _cache_kw, _param_bytes, build_model


class WeightsStage(Session):
    """Builds the model and measures what its weights hold."""

    def build(self) -> None:
        t = self.t
        before = t.allocated()
        t0 = time.perf_counter()
        self.model = build_model(self.hf, self.dtype, t.device)
        t.sync()
        self.build_s = time.perf_counter() - t0
        after = t.allocated()
        self.weights_alloc = None if before is None or after is None else after - before
        self.weights_tensors = _param_bytes(self.model)
        self.cache_kw = _cache_kw(self.model)
        if self.opts.kv_budget_bytes is not None:
            self.budget = self.opts.kv_budget_bytes
            self.budget_source = "--kv-budget-gib"
        elif not t.cuda:
            self.budget, self.budget_source = self.default_budget()
        else:
            t.release()
            self.budget = t.free() or 0
            self.budget_source = "free device memory after the weights loaded (mem_get_info)"
        self.pred = predict(self.built_spec, self.dtype, self.context, self.budget)
        na_cpu = "" if t.cuda else "n/a on the CPU (no allocator counters)"
        self.figures += [
            Figure("weights_bytes", "resident weights (tensors)", "B", self.pred.weights_bytes,
                   self.weights_tensors,
                   note=f"{self.hf.params:,} parameters built in {self.build_s:.1f} s"),
            Figure("weights_bytes_allocator", "resident weights (allocator)", "B",
                   self.pred.weights_bytes, self.weights_alloc, note=na_cpu),
        ]
