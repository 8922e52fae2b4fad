"""A TensorRT-LLM start-up log beside kvplan's prediction: what its log prints that the others do not.

A log that states no version is modelled as 1.0; the terms the engine printed before the pool are
noted (kvplan.calibrate.breakdown.printed_terms_note); the breakdown basis takes the free memory
after the load (total - peak + the temporary KV pool where the peak is printed, else the printed
available memory); a logged DEEPGEMM MoE backend gets a note of the workspace kvplan does not
book. Split out of kvplan/calibrate/compare.py (task h50compare).
"""

from __future__ import annotations

from kvplan.calibrate.breakdown import printed_terms_note
from kvplan.calibrate.compare_engine import EngineComparison
from kvplan.calibrate.parse import Run
from kvplan.calibrate.resolve import gib_bytes
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import EngineSettings, Measured
from kvplan.engines.trtllm import DEFAULT_MAX_NUM_TOKENS
from kvplan.engines.trtllm_mla import deepgemm_workspace_bytes
from kvplan.units import GIB


class TrtllmComparison(EngineComparison):
    default_version = "1.0"

    def log_notes(self, run: Run) -> list[str]:
        printed = printed_terms_note(run)
        return [printed] if printed else []

    def measured(self, run: Run, req: SizeRequest) -> Measured:
        v = run.values
        if "peak_gib" in v:
            return Measured(free_after_load_bytes=gib_bytes(v["total_gib"] - v["peak_gib"]
                                                       + v["tmp_kv_gib"]))
        return Measured(free_after_load_bytes=gib_bytes(v.get("available_gib")))

    def shapes_notes(self, run: Run, req: SizeRequest, settings: EngineSettings) -> list[str]:
        if run.settings.get("moe_backend") != "DEEPGEMM":
            return []
        tokens = settings.max_num_batched_tokens or DEFAULT_MAX_NUM_TOKENS
        ws = deepgemm_workspace_bytes(req, tokens)
        return [f"MoE backend DEEPGEMM (logged): its workspace at {tokens:,} tokens, "
                f"{ws:,} B ({ws / GIB:.2f} GiB) a GPU, is not booked (kvplan has no "
                "MoE-backend setting; kvplan.engines.trtllm_mla)"]


COMPARISON = TrtllmComparison()
