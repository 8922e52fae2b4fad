"""Deployment files (kvplan/v1): read, validate, and turn into sizing requests."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import DEFAULT_RESERVE_BYTES, SizeRequest
from kvplan.deploy.schema import API_VERSION, Deployment
from kvplan.engines.deployment import check_engine_block
from kvplan.errors import InputError, SpecError
from kvplan.specs.loader import load_hardware, load_model, read_yaml, validate
from kvplan.units import exact, gib_to_bytes, parse_dtype

__all__ = ["API_VERSION", "Deployment", "PlannedDeployment", "is_deployment", "load_deployment"]


@dataclass(frozen=True)
class PlannedDeployment:
    """A validated deployment with its specs resolved."""

    path: str
    deployment: Deployment
    request: SizeRequest
    peak_users: int
    headroom: Fraction


def is_deployment(path: Path) -> bool:
    """True when a YAML file declares `apiVersion: kvplan/v1`."""
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    data = read_yaml(path)
    return isinstance(data, dict) and "apiVersion" in data


def peak_users(dep: Deployment) -> int:
    """Peak concurrency, stated or by Little's law: rate x duration x peak-to-mean (ceil)."""
    t = dep.traffic
    if t.peak_concurrent_users is not None:
        return t.peak_concurrent_users
    assert t.arrival_rate_per_s is not None and t.mean_duration_s is not None
    return math.ceil(exact(t.arrival_rate_per_s) * exact(t.mean_duration_s) * exact(t.peak_to_mean))


def load_deployment(path: Path) -> PlannedDeployment:
    """Read and resolve one deployment file. Errors name the file and the field."""
    data = read_yaml(path)
    if isinstance(data, dict) and data.get("apiVersion") not in (None, API_VERSION):
        raise SpecError(
            str(path), [f"apiVersion: {data.get('apiVersion')!r} is not supported; use {API_VERSION}"]
        )
    dep = validate(Deployment, data, str(path))
    try:
        model_ref = dep.model
        if ("/" in model_ref or model_ref.endswith((".yaml", ".json"))) and not Path(
            model_ref
        ).is_absolute():
            candidate = path.parent / model_ref
            if candidate.exists():
                model_ref = str(candidate)
        model = load_model(model_ref)
        gpu = load_hardware(dep.hardware.gpu)
        e = dep.engine
        check_engine_block(e)  # engine profiles live in kvplan.engines
        weight_dtype = parse_dtype(e.weight_dtype) if e.weight_dtype else None
        kv_dtype = (
            (weight_dtype or model.weight_dtype)
            if e.kv_cache_dtype == "auto"
            else parse_dtype(e.kv_cache_dtype)
        )
        context = e.max_model_len or model.max_context_tokens
        mean = dep.traffic.context_tokens.mean if dep.traffic.context_tokens else None
        req = SizeRequest(
            model=model,
            gpu=gpu,
            context_tokens=context,
            kv_dtype=kv_dtype,
            allocation=Allocation(e.allocation),
            avg_context_tokens=mean,
            weight_dtype=weight_dtype,
            block_size_tokens=e.block_size,
            tp=dep.parallel.tensor,
            pp=dep.parallel.pipeline,
            memory_utilization=exact(e.gpu_memory_utilization),
            reserve_bytes=gib_to_bytes(e.reserve_gib)
            if e.reserve_gib is not None
            else DEFAULT_RESERVE_BYTES,
            kv_budget_bytes=gib_to_bytes(e.kv_budget_gib) if e.kv_budget_gib else None,
            shared_prefix_tokens=dep.traffic.shared_prefix_tokens
            if e.enable_prefix_caching
            else 0,
        )
        req.check()
    except ValueError as err:  # dtype names
        raise SpecError(str(path), [f"engine: {err}"]) from None
    except SpecError:
        raise
    except InputError as err:
        raise SpecError(str(path), [str(err)]) from None
    peak = peak_users(dep)
    if dep.requirement.min_users is not None:
        peak = max(peak, dep.requirement.min_users)
    return PlannedDeployment(
        path=str(path),
        deployment=dep,
        request=req,
        peak_users=peak,
        headroom=exact(dep.requirement.headroom_pct) / 100,
    )
