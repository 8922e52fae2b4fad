"""PASS or FAIL for one planned deployment, the deciding numbers, and verified fixes.

A deployment passes when the engine would start (one max_model_len sequence fits in the KV
pool of a replica), it holds at least the required users, and its max_model_len covers the
p95 conversation when one is given. Every suggested fix is re-checked with the same arithmetic.
The numbers of one setup are kvplan.check.numbers.evaluate's, the fixes kvplan.check.fixes';
`judge` puts them together for a planned deployment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.fixes import (
    MAX_TP,
    Fix,
    _bigger_gpu,
    _fp8_cache,
    _gpus_for,
    _hourly,
    _max_model_len,
    _max_num_seqs,
    _more_gpus,
    _relative_cost,
    _tp_options,
    fixes,
)
from kvplan.check.numbers import (
    _LATTICES,
    _MODEL_KEYS,
    _PLANS,
    Numbers,
    Setup,
    TrafficBasis,
    _model_key,
    _size,
    _traffic_basis,
    evaluate,
)
from kvplan.deploy import PlannedDeployment
from kvplan.engines.deployment import deployment_engine_settings
from kvplan.specs.schema import HardwareSpec

# The numbers live in kvplan.check.numbers and the fix search in kvplan.check.fixes; their
# names are importable from here as before (tests call the fix search's parts, and
# tests/traffic/test_speed_paths.py swaps them here for a frozen copy: `judge` calls
# `evaluate` and `fixes` through this module's names).
__all__ = [
    "MAX_TP",
    "Fix",
    "Numbers",
    "Setup",
    "TrafficBasis",
    "Verdict",
    "_LATTICES",
    "_MODEL_KEYS",
    "_PLANS",
    "_bigger_gpu",
    "_fp8_cache",
    "_gpus_for",
    "_hourly",
    "_max_model_len",
    "_max_num_seqs",
    "_model_key",
    "_more_gpus",
    "_relative_cost",
    "_size",
    "_tp_options",
    "_traffic_basis",
    "deployment_traffic",
    "evaluate",
    "fixes",
    "judge",
]


@dataclass(frozen=True)
class Verdict:
    numbers: Numbers
    fixes: tuple[Fix, ...] = field(default=())

    @property
    def passes(self) -> bool:
        return self.numbers.passes


def deployment_traffic(planned: PlannedDeployment) -> Any:
    """The deployment's traffic as `kvplan fleet` plans it: the planner's one rule."""
    from kvplan.plan.planner import traffic_of

    return traffic_of(planned)


def judge(
    planned: PlannedDeployment,
    gpus: int,
    catalog: Sequence[HardwareSpec],
    engines_per_unit: int = 1,
) -> Verdict:
    """Numbers for the deployment as written, and for a FAIL the verified fixes."""
    dep = planned.deployment
    ctx = dep.traffic.context_tokens
    p95 = ctx.p95 if ctx else None
    engine = deployment_engine_settings(dep.engine)
    traffic = deployment_traffic(planned) if planned.judged_by_traffic else None
    setup = Setup(gpus, planned.request, dep.engine.max_num_seqs, engines_per_unit, engine,
                  traffic)
    required = planned.required_users
    numbers = evaluate(setup, required, p95)
    if numbers.passes:
        return Verdict(numbers)
    return Verdict(numbers, fixes(setup, required, p95, catalog))
