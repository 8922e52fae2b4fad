"""A vLLM start-up log beside kvplan's prediction: what vLLM's log prints that the others do not.

The version is inferred from the log's lines (kvplan.calibrate.resolve.infer_vllm_version); the
breakdown basis takes the logged KV memory (per pipeline stage where ranks print it) or else the
printed weights, activation peak, non-torch and CUDA-graph terms; the shapes basis adds the
printed graph estimate and counts (task h43oldgraph), and the token checks add the KV memory,
the hybrid block size and one request's KV. Split out of kvplan/calibrate/compare.py (h50compare).
"""

from __future__ import annotations

from kvplan.calibrate.breakdown import BREAKDOWN_TARGET, Check, rounding
from kvplan.calibrate.compare_engine import EngineComparison
from kvplan.calibrate.compile_cache import CompileCache, compile_cache_of
from kvplan.calibrate.graph_checks import graph_checks
from kvplan.calibrate.parse import Run
from kvplan.calibrate.resolve import gib_bytes, infer_vllm_version
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import EngineResult, Measured
from kvplan.units import GIB


class VllmComparison(EngineComparison):
    def version(self, run: Run) -> tuple[str, str]:
        return infer_vllm_version(run)

    def compile_cache(self, run: Run) -> CompileCache:
        """cold / warm / eager / unknown with the deciding line (kvplan.calibrate.compile_cache,
        task h43cold's reading; reported since task h50coldreport)."""
        return compile_cache_of(run)

    def measured(self, run: Run, req: SizeRequest) -> Measured:
        v = run.values
        # the printed terms are read first, also where the KV memory replaces them (a value too
        # large to count in bytes fails here, as it did before the split)
        terms = _printed_terms(run)
        if "kv_gib" not in v and "kv_in_use_gib" not in v:
            return terms
        kv = v.get("kv_gib", v.get("kv_in_use_gib"))
        stages = None
        if run.ranks and req.pp > 1:
            per_stage: dict[int, float] = {}
            for rank, gib in run.ranks.items():
                s = rank // req.tp
                per_stage[s] = min(per_stage.get(s, gib), gib)
            stages = tuple(int(per_stage[s] * GIB) for s in sorted(per_stage))
        return Measured(kv_cache_bytes=gib_bytes(kv), stage_kv_bytes=stages)

    def shapes_checks(self, run: Run, res: EngineResult) -> tuple[list[Check], list[str]]:
        """The printed graph estimate and counts (task h43oldgraph)."""
        assert res.graph_capture is not None  # vLLM's profile books one on every run
        return graph_checks(run, list(res.steps), res.graph_capture)

    def counts_tokens(self, run: Run, res: EngineResult) -> bool:
        """V0 with its blocks printed: the blocks are the figure checked, not the tokens."""
        return not ("blocks" in run.values and "V0" in res.engine_version)

    def pool_checks(self, basis: str, run: Run, res: EngineResult, target: float | None,
                    kv_logged: float | None) -> list[Check]:
        v = run.values
        out = []
        if basis == "shapes" and kv_logged is not None:
            out.append(Check(basis, "KV memory", kv_logged, res.kv_cache_bytes / GIB, "GiB",
                             None, target))
        if "hybrid_block" in v:
            out.append(Check(basis, "block size", v["hybrid_block"], res.block_size_tokens,
                             "tokens", None, 0.0))
        return out

    def request_checks(self, basis: str, run: Run, res: EngineResult) -> list[Check]:
        v = run.values
        if "needed_gib" not in v:
            return []
        need = next((s.value for s in res.steps if s.label == "blocks per request"), 0)
        per = next((s.value for s in res.steps if s.label == "bytes per block"), 0)
        return [Check(basis, "KV for one request", v["needed_gib"], float(need * per) / GIB,
                      "GiB", rounding(1, v["needed_gib"]), BREAKDOWN_TARGET)]


def _printed_terms(run: Run) -> Measured:
    """Weights, activation peak, non-torch and CUDA graphs as the log printed them."""
    v = run.values
    act = v.get("activation_gib")
    weights = v.get("consumed_gib", v.get("weights_gib"))
    nt = 0.0 if "consumed_gib" in v else v.get("non_torch_gib")
    if "peak_torch_gib" in v and "weights_gib" in v:
        act = v["peak_torch_gib"] - v["weights_gib"]
    return Measured(
        weights_bytes=gib_bytes(weights), activation_bytes=gib_bytes(act), non_torch_bytes=gib_bytes(nt),
        cuda_graph_bytes=gib_bytes(v.get("cuda_graph_gib")),
    )


COMPARISON = VllmComparison()
