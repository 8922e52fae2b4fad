"""The spec schema as Markdown tables, generated from the pydantic models themselves.

docs/specs.md carries these tables between `<!-- schema:NAME -->` markers, and a test checks
that they equal what this module generates, so the page cannot drift from the code: a field
added, removed, re-bounded or re-described changes the page (regenerate with
KVPLAN_REGEN_DOCS=1).
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo


def _bounds(metadata: list[Any], unit: str = "character(s)") -> str:
    """The bounds in words; `unit` is what a minimum length counts (a list's: items)."""
    low = high = None
    for item in metadata:
        if getattr(item, "gt", None) is not None:
            whole = item.gt == 0 and not isinstance(item.gt, float)  # an integer above 0
            low = "≥ 1" if whole else f"> {item.gt:,g}"
        if getattr(item, "ge", None) is not None:
            low = f"≥ {item.ge:,}"
        if getattr(item, "le", None) is not None:
            high = f"≤ {item.le:,}"
        if getattr(item, "min_length", None) is not None:
            low = f"at least {item.min_length} {unit}" if item.min_length > 1 else "not empty"
    return ", ".join(part for part in (low, high) if part)


def _unwrap(annotation: Any) -> tuple[Any, list[Any], bool]:
    """(the type, its constraint metadata, whether None is allowed)."""
    optional = False
    metadata: list[Any] = []
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        annotation = args[0]
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        for item in extra:
            metadata += item.metadata if isinstance(item, FieldInfo) else [item]
        annotation = inner
    return annotation, metadata, optional


def _type_words(annotation: Any) -> str:
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        inner, metadata, _ = _unwrap(item)
        bounds = _bounds(metadata)
        return f"list of {_type_words(inner)}" + (f", each {bounds}" if bounds else "")
    if typing.get_origin(annotation) is typing.Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "one of " + ", ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"`{annotation.__name__}` mapping"
    return {int: "integer", str: "text", bool: "true/false", float: "number"}.get(
        annotation, str(annotation))


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
        value = [v.value if isinstance(v, Enum) else v for v in value]
        return f"default `{value}`"
    if field.default is None:
        return "optional"
    return f"default `{str(field.default).lower() if isinstance(field.default, bool) else field.default}`"


def schema_table(model: type[BaseModel]) -> str:
    """One Markdown table: field, type (with bounds), required or default, meaning."""
    rows = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        annotation, metadata, optional = _unwrap(field.annotation)
        words = _type_words(annotation)
        unit = "items" if typing.get_origin(annotation) is list else "character(s)"
        bounds = _bounds([*metadata, *field.metadata], unit)
        if bounds:
            words += f" ({bounds})"
        if optional and field.is_required():
            words += " or null"
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | {words} | {_default(field)} | {meaning} |")
    return "\n".join(rows) + "\n"


def schema_tables() -> dict[str, str]:
    """Every spec block's table, by the marker name docs/specs.md uses."""
    from kvplan.specs.validators import (
        MLA,
        Attention,
        HardwareSpec,
        LinearState,
        Mamba2State,
        ModelAlias,
        ModelSpec,
        MoE,
        NVFP4Quant,
        WeightQuant,
    )

    models: dict[str, type[BaseModel]] = {
        "model": ModelSpec, "attention": Attention, "mla": MLA, "linear": LinearState,
        "mamba2": Mamba2State, "moe": MoE, "weight_quant": WeightQuant, "nvfp4": NVFP4Quant,
        "alias": ModelAlias,
        "hardware": HardwareSpec,
    }
    return {name: schema_table(model) for name, model in models.items()}
