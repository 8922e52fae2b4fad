"""Validated specs as plain data and back: the catalog index stores each spec as pydantic
validated it, and a later run rebuilds the very same objects without validating them again.

`encode` turns a validated spec into values `marshal` holds (dicts, lists, tuples, strings,
numbers); `decode` builds the plain records back (kvplan.plain) with `model_construct`, which
sets each field as given, without pydantic (every field is stored, and the set of fields the
file stated, so `model_fields_set`, `model_dump(exclude_unset=True)`, equality and hashing are
those of the validated spec). Only
the classes of kvplan.specs.schema are encoded or decoded; anything else raises
`NotEncodable`, and the spec is validated from its file's data where it is loaded, as without
an index. A plain tuple never stands for a value: tuples are the tags below.

    ("m", class name, {field: value, ...}, (stated field, ...))   a model
    ("e", class name, value)                                       an enum member
    ("t", [value, ...])                                            a tuple
    ("d", {key: value, ...})                                       a dict
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from kvplan.specs import schema
from kvplan.units import DType

_MODELS: dict[str, Any] = {cls.__name__: cls for cls in schema.SPEC_CLASSES}
_ENUMS: dict[str, type[Enum]] = {cls.__name__: cls for cls in (schema.LayerKind, DType)}
_PLAIN = (str, int, float, bool, type(None))


class NotEncodable(TypeError):
    """A value of a type the index does not store (the spec is validated on load instead)."""


def encode(value: Any) -> Any:
    """A validated spec (or any value inside one) as plain data."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return [encode(v) for v in value]
    if kind is tuple:
        return ("t", [encode(v) for v in value])
    if kind is dict:
        return ("d", {k: encode(v) for k, v in value.items()})
    name = kind.__name__
    if _MODELS.get(name) is kind:
        fields = {k: encode(getattr(value, k)) for k in kind._FIELDS}
        return ("m", name, fields, tuple(sorted(value.model_fields_set)))
    if _ENUMS.get(name) is kind:
        return ("e", name, value.value)
    raise NotEncodable(f"{kind.__module__}.{kind.__qualname__}")


def decode(data: Any) -> Any:
    """The objects `encode` was given, rebuilt without validation. Data of another shape (a
    damaged index) raises NotEncodable, ValueError or TypeError."""
    kind = type(data)
    if kind is list:
        return [decode(v) for v in data]
    if kind is not tuple:
        return data
    tag = data[0]
    if tag == "m":
        _, name, fields, stated = data
        if name not in _MODELS:
            raise NotEncodable(f"unknown model {name!r}")
        values = {k: decode(v) for k, v in fields.items()}
        return _MODELS[name].model_construct(_fields_set=set(stated), **values)
    if tag == "e":
        if data[1] not in _ENUMS:
            raise NotEncodable(f"unknown enum {data[1]!r}")
        return _ENUMS[data[1]](data[2])
    if tag == "t":
        return tuple(decode(v) for v in data[1])
    if tag == "d":
        return {k: decode(v) for k, v in data[1].items()}
    raise NotEncodable(f"unknown tag {tag!r}")
