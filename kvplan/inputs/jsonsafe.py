"""Safe JSON: finite numbers of bounded length, no duplicate keys, bounded nesting."""

from __future__ import annotations

import json
import math
from typing import Any

from kvplan.inputs.errors import InputFileError
from kvplan.inputs.limits import MAX_NUMBER_DIGITS


class _Refused(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key!r}; keep one")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a finite number; give a finite value")


class NonFinite:
    """A NaN, Infinity or -Infinity kept as a marker, not a float, by `loads_json(...,
    keep_non_finite=True)`: the reader that asked for it refuses it wherever it would read a
    number, and can say what a file is first (SGLang's bench_serving summary writes
    `"request_rate": Infinity` for an unlimited rate)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Refused(f"a number with {len(text.lstrip('-'))} digits; no count kvplan reads "
                       f"has more than {MAX_NUMBER_DIGITS}")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text} is too large to be a finite number")
    return value


def loads_json(text: str, source: str, line: int | None = None, *,
               keep_non_finite: bool = False) -> Any:
    """Parse JSON text; any problem becomes one InputFileError naming `source` and the line.
    NaN/Infinity are refused, or with `keep_non_finite` kept as NonFinite markers (never a
    float) for a reader that refuses them where it reads a number."""
    try:
        return json.loads(text, object_pairs_hook=_pairs,
                          parse_constant=NonFinite if keep_non_finite else _constant,
                          parse_int=_int, parse_float=_float)
    except json.JSONDecodeError as err:
        at = err.lineno if line is None else line
        raise InputFileError(source, f"not valid JSON: {err.msg}", at) from None
    except _Refused as err:
        raise InputFileError(source, str(err), line) from None
    except RecursionError:
        raise InputFileError(source, "JSON nested too deeply; flatten it", line) from None
