"""The capacity arithmetic: pure functions from specs and settings to integer bytes and users."""

from kvplan.capacity.kv import Allocation, Precision, layer_bytes_per_token, stage_caches
from kvplan.capacity.plan import (
    Breakdown,
    FleetResult,
    SizeRequest,
    SizeResult,
    advise,
    fleet,
    size,
    weights_bytes_per_gpu,
)

__all__ = [
    "Allocation",
    "Breakdown",
    "FleetResult",
    "Precision",
    "SizeRequest",
    "SizeResult",
    "advise",
    "fleet",
    "layer_bytes_per_token",
    "size",
    "stage_caches",
    "weights_bytes_per_gpu",
]
