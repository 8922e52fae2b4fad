"""Traffic-aware planning: length distributions, Little's law, overflow risk, speed and cost."""

from kvplan.traffic.decode import decode_step_time_s, slo_batch, ttft_s
from kvplan.traffic.lengths import (
    Empirical,
    LengthDistribution,
    LogNormal,
    PointMass,
    fit_lognormal,
    load_sample,
)
from kvplan.traffic.little import concurrency
from kvplan.traffic.plan import Traffic, TrafficPlan, plan_traffic
from kvplan.traffic.risk import (
    RiskEstimate,
    SequenceLattice,
    overflow_probability,
    overflow_probability_poisson,
    users_at_risk,
)

__all__ = [
    "Empirical",
    "LengthDistribution",
    "LogNormal",
    "PointMass",
    "RiskEstimate",
    "SequenceLattice",
    "Traffic",
    "TrafficPlan",
    "concurrency",
    "decode_step_time_s",
    "fit_lognormal",
    "load_sample",
    "overflow_probability",
    "overflow_probability_poisson",
    "plan_traffic",
    "slo_batch",
    "ttft_s",
    "users_at_risk",
]
