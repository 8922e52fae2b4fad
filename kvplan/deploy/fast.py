"""The fast acceptor: a kvplan/v1 document that is plainly valid, built without pydantic.

`accept(data)` returns the Deployment pydantic would return for `data`, or None. None is not a
refusal: it sends the document to pydantic, the validator of record, which refuses it with its
own message or accepts what only its lax conversions take (a count written 3.0, a number in a
string). So the acceptor takes only values of the exact type a field holds (a whole number
that is not true/false, a finite number, a string, true/false, one of a literal's strings),
within the field's bounds, and a document whose cross-field rules (kvplan.deploy.schema.RULES)
hold; anything else is left to pydantic.

Why: pydantic's model machinery costs `kvplan size` about a third of its start-up (issue #14),
and a command line's record, or a hand-written file, is nearly always plainly valid.
tests/schema/test_fast.py checks, over generated documents valid and broken, that whatever the
acceptor takes pydantic takes too and builds the same records, fields stated included.
"""

from __future__ import annotations

import math
from typing import Any

from kvplan.deploy import schema
from kvplan.plain import REQUIRED, Plain


class _Decline(Exception):
    """Left to pydantic."""


def accept(data: Any) -> schema.Deployment | None:
    """The validated Deployment, or None when pydantic must judge the document."""
    try:
        return _record(schema.Deployment, data)  # type: ignore[return-value]
    except _Decline:
        return None


def _record(cls: type[Plain], data: Any) -> Plain:
    if type(data) is not dict:
        raise _Decline
    types: dict[str, tuple[Any, ...]] = cls.TYPES  # type: ignore[attr-defined]
    values = {}
    for key, value in data.items():
        kind = types.get(key)
        if kind is None:  # an unknown field (or a key that is not a string)
            raise _Decline
        values[key] = _value(kind, value)
    for name, default in cls._FIELDS.items():
        if default is REQUIRED and name not in values:
            raise _Decline
    record = cls.model_construct(**values)
    for rule in schema.RULES.get(cls.__name__, ()):
        if rule(record) is not None:
            raise _Decline
    return record


def _value(kind: tuple[Any, ...], value: Any) -> Any:
    tag = kind[0]
    if tag == "optional":
        return None if value is None else _value(kind[1], value)
    if tag == "int":
        if type(value) is not int:
            raise _Decline
        return _bounded(kind, value)
    if tag == "float":
        if type(value) is int:
            try:
                value = float(value)  # pydantic's lax conversion, rounding as float() does
            except OverflowError:  # beyond a float: pydantic refuses it
                raise _Decline from None
        elif type(value) is not float or not math.isfinite(value):
            raise _Decline
        return _bounded(kind, value)
    if tag == "str":
        if type(value) is not str:
            raise _Decline
        return value
    if tag == "bool":
        if type(value) is not bool:
            raise _Decline
        return value
    if tag == "literal":
        if type(value) is not str or value not in kind[1]:
            raise _Decline
        return value
    if tag == "model":
        return _record(schema.RECORDS[kind[1]], value)
    raise AssertionError(f"unknown field kind {tag!r}")  # pragma: no cover - schema.TYPES


def _bounded(kind: tuple[Any, ...], value: Any) -> Any:
    _, gt, ge, lt, le = kind
    if ((gt is not None and not value > gt) or (ge is not None and not value >= ge)
            or (lt is not None and not value < lt) or (le is not None and not value <= le)):
        raise _Decline
    return value
