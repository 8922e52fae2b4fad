"""Spec loading and validation: model shapes and GPU profiles as validated data."""

from kvplan.specs.loader import (
    all_hardware,
    all_models,
    load_hardware,
    load_model,
    read_yaml,
    validate,
)
from kvplan.specs.schema import Attention, HardwareSpec, LayerKind, ModelAlias, ModelSpec

__all__ = [
    "Attention",
    "HardwareSpec",
    "LayerKind",
    "ModelAlias",
    "ModelSpec",
    "all_hardware",
    "all_models",
    "load_hardware",
    "load_model",
    "read_yaml",
    "validate",
]
