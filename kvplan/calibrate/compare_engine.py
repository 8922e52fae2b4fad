"""What comparing a start-up log with kvplan's prediction reads differently per engine.

kvplan.calibrate.compare runs the same steps for every engine (the printed breakdown, the
breakdown-based tokens, the shapes-only profile, the token checks); each step that one engine's
log changes asks that engine's `EngineComparison`, found in compare.py's table keyed by engine
(task h50compare: these were 14 engine-name branches in compare.py). The defaults here are an
engine whose log adds nothing: its version as stated, no extra notes, no extra checks. The
engines' own readings are kvplan/calibrate/compare_vllm.py, compare_sglang.py and
compare_trtllm.py.
"""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.breakdown import Check
from kvplan.calibrate.compile_cache import CompileCache
from kvplan.calibrate.parse import Run
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import EngineResult, EngineSettings, Measured
from kvplan.specs.schema import ModelSpec


class EngineComparison:
    """One engine's readings of its start-up log (the defaults: none beyond the common ones)."""

    # the version a log that states none is modelled with
    default_version = ""

    def version(self, run: Run) -> tuple[str, str]:
        """(version, how it was chosen: stated | default | what the engine's reader says)."""
        version = run.version or self.default_version
        return version, "stated" if run.version else "default"

    def breakdown_request(self, run: Run, model: ModelSpec | None,
                          base: Path) -> SizeRequest | None:
        """The request the printed breakdown is checked with (None: it needs none)."""
        return None

    def log_notes(self, run: Run) -> list[str]:
        """Notes on what the log printed, made before the model is looked up."""
        return []

    def measured(self, run: Run, req: SizeRequest) -> Measured:
        """The numbers the breakdown basis takes from the log instead of modelling them (asked
        only where the log has one of the engine's `traits(...).log_measures`)."""
        return Measured()

    def free_memory_note(self, run: Run) -> str | None:
        """Where the shapes basis takes its memory from when no GPU is known (None: nowhere;
        the shapes basis is skipped)."""
        return None

    def free_memory(self, run: Run) -> Measured:
        """That memory, when `free_memory_note` named one."""
        return Measured()

    def shapes_checks(self, run: Run, res: EngineResult) -> tuple[list[Check], list[str]]:
        """Checks and notes the shapes basis adds beyond the token checks."""
        return [], []

    def shapes_notes(self, run: Run, req: SizeRequest, settings: EngineSettings) -> list[str]:
        """Notes after the shapes summary."""
        return []

    def counts_tokens(self, run: Run, res: EngineResult) -> bool:
        """Whether the log's KV tokens are checked (where it prints them)."""
        return True

    def pool_checks(self, basis: str, run: Run, res: EngineResult, target: float | None,
                    kv_logged: float | None) -> list[Check]:
        """Checks of the pool after the tokens and blocks."""
        return []

    def request_checks(self, basis: str, run: Run, res: EngineResult) -> list[Check]:
        """Checks of one request's needs after the concurrency."""
        return []

    def compile_cache(self, run: Run) -> CompileCache | None:
        """The run's torch.compile cache state as its lines give it (None: the engine's log has
        no such state to report; task h50coldreport)."""
        return None


NEUTRAL = EngineComparison()
