"""Plain frozen records: the objects kvplan computes with, without pydantic's machinery.

Specs (kvplan.specs.schema) and deployments (kvplan.deploy.schema) are instances of these
classes. pydantic stays the validator of record: `Cls.model_validate(data)` and `Cls(**values)`
validate through the pydantic class of the same name in the module `_VALIDATORS` names (imported
only then), and the validated object is converted field by field. What comes from kvplan's own
validated index, or from a fast acceptor proven equal to pydantic (kvplan.deploy.fast), is built
with `model_construct`, as pydantic's own `model_construct` would be: so `size` on a catalog
model never imports pydantic's model machinery (about a third of its start-up; issue #14).

The subset of pydantic's interface kvplan uses is kept with the same meaning: attribute access,
`model_fields_set` (the fields a file or flag stated), `model_copy(update=...)` (no validation;
updated fields become stated), `model_dump(mode, exclude_unset, exclude_none)`,
`model_dump_json()`, equality on type and values, hashing, and frozen instances.
tests/schema/test_plain.py checks each class against its validator: the same fields, in the
same order, with the same defaults, and the same objects for the same data.
"""

from __future__ import annotations

import json
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

P = TypeVar("P", bound="Plain")


class Factory:
    """A default made fresh for each object (pydantic's default_factory)."""

    __slots__ = ("make",)

    def __init__(self, make: Any) -> None:
        self.make = make


class Plain:
    """Base of the plain records. A subclass lists `_FIELDS` (name -> default; `REQUIRED` for
    none, a `Factory` for a fresh one) in the order pydantic declares them, sets
    `__slots__ = tuple(_FIELDS)` (plain attributes: no lookup cost on the hot paths), and names
    `_VALIDATORS`, the module whose class of the same name validates it."""

    __slots__ = ("_stated",)
    _FIELDS: ClassVar[dict[str, Any]] = {}
    _VALIDATORS: ClassVar[str] = ""
    if TYPE_CHECKING:
        _stated: frozenset[str]

    def __init__(self, **values: Any) -> None:  # validates, as pydantic's constructor does
        other = type(self).model_validate(values)
        for name, value in other._items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_stated", other._stated)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def model_construct(cls: type[P], _fields_set: set[str] | None = None, **values: Any) -> P:
        """Set each field as given, defaults for the rest; no validation."""
        obj = object.__new__(cls)
        put = object.__setattr__
        for name, default in cls._FIELDS.items():
            if name in values:
                put(obj, name, values[name])
            elif default is not REQUIRED:  # as pydantic's: an unset required field is absent
                put(obj, name, default.make() if type(default) is Factory else default)
        stated = frozenset(values) if _fields_set is None else frozenset(_fields_set)
        object.__setattr__(obj, "_stated", stated & cls._FIELDS.keys())
        return obj

    @classmethod
    def validator(cls) -> Any:
        """The pydantic class that validates this one (imported on first use)."""
        import importlib

        return getattr(importlib.import_module(cls._VALIDATORS), cls.__name__)

    @classmethod
    def model_validate(cls: type[P], data: Any) -> P:
        """Validate with pydantic (raising its ValidationError) and convert. A plain record
        inside `data` is given to pydantic as the fields it states."""
        return from_model(cls.validator().model_validate(_unplain(data)))

    # -- the interface kvplan uses ------------------------------------------------------------
    def _items(self) -> list[tuple[str, Any]]:
        """(field, value) for every field that is set, in declaration order."""
        out = []
        for name in self._FIELDS:
            try:  # noqa: SIM105 - cheaper than contextlib.suppress on every dump and compare
                out.append((name, object.__getattribute__(self, name)))
            except AttributeError:  # a required field model_construct was not given
                pass
        return out

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: use model_copy(update=...)")

    __delattr__ = __setattr__  # type: ignore[assignment]

    @property
    def model_fields_set(self) -> set[str]:
        return set(self._stated)

    def model_copy(self: P, update: dict[str, Any] | None = None) -> P:
        values = dict(self._items())
        stated = set(self._stated)
        if update:
            values.update(update)
            stated.update(update)
        return type(self).model_construct(_fields_set=stated, **values)

    def model_dump(self, mode: str = "python", exclude_unset: bool = False,
                   exclude_none: bool = False, include: set[str] | None = None,
                   exclude: set[str] | None = None) -> dict[str, Any]:
        """pydantic's dump; `include` and `exclude` name top-level fields."""
        out = {}
        for name, value in self._items():
            if (include is not None and name not in include) or (exclude and name in exclude):
                continue
            if exclude_unset and name not in self._stated:
                continue
            if exclude_none and value is None:
                continue
            out[name] = _dump(value, mode, exclude_unset, exclude_none)
        return out

    def model_dump_json(self) -> str:
        """pydantic's compact JSON, byte for byte (UTF-8 text, no spaces)."""
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._items() == other._items()

    def __hash__(self) -> int:
        return hash((type(self), tuple(v for _, v in self._items())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._items())
        return f"{type(self).__name__}({inner})"

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy and pickle
        return (_rebuild, (type(self), dict(self._items()), tuple(self._stated)))


class _Required:
    __slots__ = ()

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


def _rebuild(cls: type[P], values: dict[str, Any], stated: tuple[str, ...]) -> P:
    return cls.model_construct(_fields_set=set(stated), **values)


def _dump(value: Any, mode: str, exclude_unset: bool, exclude_none: bool) -> Any:
    if isinstance(value, Plain):
        return value.model_dump(mode, exclude_unset, exclude_none)
    if type(value) is list:  # the records hold lists, no tuples or dicts
        return [_dump(v, mode, exclude_unset, exclude_none) for v in value]
    if mode == "json" and isinstance(value, Enum):
        return value.value
    return value


def _unplain(data: Any) -> Any:
    if isinstance(data, Plain):
        return data.model_dump(exclude_unset=True)
    if type(data) is dict:
        return {k: _unplain(v) for k, v in data.items()}
    if type(data) is list:
        return [_unplain(v) for v in data]
    return data


def from_model(model: Any) -> Any:
    """A validated pydantic object as the plain record of the same name (recursively)."""
    import importlib

    cls = type(model)
    plain = getattr(importlib.import_module(_PLAIN_MODULES[cls.__module__]), cls.__name__)
    values = {name: _convert(getattr(model, name)) for name in type(model).model_fields}
    return plain.model_construct(_fields_set=set(model.model_fields_set), **values)


def _convert(value: Any) -> Any:
    if type(value).__module__ in _PLAIN_MODULES:
        return from_model(value)
    if type(value) is list:
        return [_convert(v) for v in value]
    return value


# validator module -> the module of the plain records it validates
_PLAIN_MODULES = {
    "kvplan.specs.validators": "kvplan.specs.schema",
    "kvplan.specs.validators_quant": "kvplan.specs.schema",  # split from validators
    "kvplan.deploy.validators": "kvplan.deploy.schema",
}
