"""A deployment's model and GPU references resolved: catalog names (cached), aliases, hub ids
and spec paths, by kvplan.specs.resolve's rules."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from kvplan.specs.loader import load_hardware
from kvplan.specs.schema import HardwareSpec, ModelSpec


@lru_cache(maxsize=256)
def _catalog_model(ref: str) -> tuple[ModelSpec, str]:
    from kvplan.specs.resolve import resolve_model as resolve

    found = resolve(ref)
    return found.spec, found.note


@lru_cache(maxsize=256)
def _catalog_gpu(ref: str) -> HardwareSpec:
    return load_hardware(ref)


def resolve_model(ref: str, base_dir: Path | None) -> ModelSpec:
    """A catalog name, hf_id, alias or hub id, or a spec path (relative to the deployment
    file's folder first): kvplan.specs.resolve's rules."""
    return resolve_model_noted(ref, base_dir)[0]


def resolve_model_noted(ref: str, base_dir: Path | None) -> tuple[ModelSpec, str]:
    """The spec, and which rule resolved the name ('' for a plain catalog name)."""
    from kvplan.specs.resolve import looks_like_path
    from kvplan.specs.resolve import resolve_model as resolve

    if looks_like_path(ref):
        found = resolve(ref, base=base_dir if base_dir is not None and not Path(ref).is_absolute()
                        and (base_dir / ref).exists() else None)
        return found.spec, found.note
    return _catalog_model(ref)


def resolve_gpu(ref: str) -> HardwareSpec:
    """A GPU by catalog name or alias (cached), or a spec path."""
    if "/" in ref or ref.endswith((".yaml", ".yml")):
        return load_hardware(ref)
    return _catalog_gpu(ref)
