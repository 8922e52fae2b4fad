"""An SGLang start-up log beside kvplan's prediction: what SGLang's log prints that the others do not.

Its breakdown is checked with the request its profile sizes for (the model is needed for SGLang's
fraction); the breakdown basis takes the printed free memory before and after the load and the
weights; without a known GPU the shapes basis still runs on the start-up free memory the log
printed. Split out of kvplan/calibrate/compare.py (task h50compare).
"""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.breakdown import breakdown_request
from kvplan.calibrate.compare_engine import EngineComparison
from kvplan.calibrate.parse import Run
from kvplan.calibrate.resolve import gib_bytes
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Measured
from kvplan.engines import sglang as sglang_profile
from kvplan.specs.schema import ModelSpec


class SglangComparison(EngineComparison):
    default_version = sglang_profile.DEFAULT_VERSION

    def breakdown_request(self, run: Run, model: ModelSpec | None,
                          base: Path) -> SizeRequest | None:
        return breakdown_request(run, model, base) if model is not None else None

    def measured(self, run: Run, req: SizeRequest) -> Measured:
        v = run.values
        return Measured(free_before_load_bytes=gib_bytes(v.get("before_gib")),
                        free_after_load_bytes=gib_bytes(v.get("after_gib")),
                        weights_bytes=gib_bytes(v.get("weights_gib")))

    def free_memory_note(self, run: Run) -> str | None:
        return "SGLang's start-up free memory from the log" if "before_gib" in run.values else None

    def free_memory(self, run: Run) -> Measured:
        return Measured(free_before_load_bytes=gib_bytes(run.values.get("before_gib")))


COMPARISON = SglangComparison()
