"""The measuring side of `--measure`: a random-weight model on the device, a real cached decode.

The same code runs on a GPU and on the CPU; on the CPU the allocator's counters and the
bandwidth bound are n/a. The run's state lives in kvplan.measure.session; each stage in its own
module (weights: the build and the budget; kv: bytes per token; trials: capacity; prefill: the
prefill peak's capacity; speed: throughput and the cost of a token).
"""

from __future__ import annotations

from collections.abc import Callable

from kvplan.capacity import weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.measure.compare import MeasureReport
from kvplan.measure.kv import KvStage
from kvplan.measure.prefill import PrefillStage
from kvplan.measure.session import DEFAULT_CONTEXT_TOKENS, MeasureOptions, first_line
from kvplan.measure.speed import SpeedStage
from kvplan.measure.tensors import build_model
from kvplan.measure.trials import CapacityStage
from kvplan.measure.weights import WeightsStage
from kvplan.specs.schema import ModelSpec
from kvplan.units import fmt_bytes

__all__ = ["DEFAULT_CONTEXT_TOKENS", "MeasureOptions", "build_model", "measure"]


class _Session(WeightsStage, KvStage, CapacityStage, PrefillStage, SpeedStage):
    """One run with every stage."""


def measure(spec: ModelSpec, opts: MeasureOptions) -> MeasureReport:
    """Build, measure 1-5, and compare each figure with kvplan's prediction.

    A measurement that breaks off (an error the device or a library raises) is reported in
    `errors` with what broke, and the others still run: one failure never hides the rest.
    With `opts.debug`, it is raised instead, for its traceback.
    """
    s = _Session(spec, opts)
    s.announce()
    s.progress.say(f"building {s.hf.params:,} parameters with random weights")
    try:
        s.build()
    except s.t.oom_types() as err:
        raise InputError(
            f"{spec.name}: the weights ({fmt_bytes(weights_bytes_per_gpu(s.built_spec, s.dtype, 1))}"
            f") do not fit in {s.info.device}'s free memory ({fmt_bytes(s.info.free_bytes or 0)})"
            f": build fewer layers with --layers N ({first_line(err)})"
        ) from None
    phases: list[tuple[str, Callable[[], None]]] = [
        ("KV bytes per token", s.kv_per_token),
        ("capacity and decode throughput", s.capacity),
        ("prefill-bound capacity", s.prefill_capacity),
        ("cost of a token", s.token_cost),
    ]
    for name, phase in phases:
        if name != "KV bytes per token" and not hasattr(s, "shapes"):
            s.errors.append(f"{name}: not measured (needs the KV bytes per token first)")
            continue
        s.progress.say(name)
        try:
            phase()
        except Exception as err:  # noqa: BLE001 - reported as a failed measurement
            if opts.debug:
                raise
            s.errors.append(f"{name}: {type(err).__name__}: {first_line(err)}")
            s.t.release()
    s.progress.say("done")
    return s.report()


