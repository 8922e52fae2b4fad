"""Units and precisions: bits per stored value, exact byte conversions, human formatting.

Bytes are integers everywhere. Fractional inputs (GiB, utilisation) are turned into exact
`Fraction`s from their decimal text, so 0.9 means 9/10, not 0.900000000000000022.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from fractions import Fraction
from typing import TypeVar

KIB = 1024
MIB = 1024**2
GIB = 1024**3
TIB = 1024**4
_Choice = TypeVar("_Choice", bound=Enum)


class DType(str, Enum):
    """A storage precision for weights or cache values."""

    fp32 = "fp32"
    fp16 = "fp16"
    bf16 = "bf16"
    fp8 = "fp8"
    int8 = "int8"
    int4 = "int4"

    @property
    def bits(self) -> int:
        return _BITS[self]


_BITS = {
    DType.fp32: 32,
    DType.fp16: 16,
    DType.bf16: 16,
    DType.fp8: 8,
    DType.int8: 8,
    DType.int4: 4,
}

# Spellings seen in engine flags and Hugging Face configs.
DTYPE_ALIASES = {
    "float32": DType.fp32,
    "float": DType.fp32,
    "float16": DType.fp16,
    "half": DType.fp16,
    "bfloat16": DType.bf16,
    "fp8_e4m3": DType.fp8,
    "fp8_e5m2": DType.fp8,
    "fp8_e4m3fn": DType.fp8,
    "float8_e4m3fn": DType.fp8,
    "e4m3": DType.fp8,
    "uint4": DType.int4,
    "nf4": DType.int4,
}


_TOKEN_SCALE = {"": 1, "k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20, "g": 10**9, "G": 2**30}


def parse_tokens(text: str) -> int:
    """A length as vLLM's --max-model-len spells it (vllm/engine/arg_utils.py human_readable_int,
    0.10 on): digits (with `_` separators), or 32k / 1m (powers of 1000) and 32K / 1M (powers of
    1024). ValueError on anything else."""
    import re

    match = re.fullmatch(r"([-+]?\d[\d_]*)([kKmMgG]?)", text.strip())
    if not match:
        raise ValueError(text)
    return int(match.group(1).replace("_", "")) * _TOKEN_SCALE[match.group(2)]


def parse_choice(text: str, choices: type[_Choice], aliases: Mapping[str, _Choice],
                 what: str) -> _Choice:
    """One of an Enum's members by its value or an alias, any case, spaces around ignored.
    Raises ValueError naming `what` and the members' values."""
    key = text.strip().lower()
    if key in aliases:
        return aliases[key]
    try:
        return choices(key)
    except ValueError:
        names = ", ".join(str(c.value) for c in choices)
        raise ValueError(f"unknown {what} {text!r}; use one of {names}") from None


def parse_dtype(text: str) -> DType:
    """Parse a precision name (`fp16`, `bfloat16`, `fp8_e4m3`, ...). Raises ValueError."""
    return parse_choice(text, DType, DTYPE_ALIASES, "precision")


def exact(value: float | int | str | Fraction) -> Fraction:
    """An exact Fraction from the decimal text of a number (0.9 -> 9/10)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(str(value))


def gib_to_bytes(gib: float | int | str | Fraction) -> int:
    """GiB to whole bytes, rounding down (a budget is never overstated)."""
    return math.floor(exact(gib) * GIB)


def ceil_div(a: int, b: int) -> int:
    """Integer ceiling division for non-negative a and positive b."""
    return -(-a // b)


def fmt_bytes(n: int | float, digits: int = 2) -> str:
    """Binary units for people: 131072 -> '128 KiB', 1073741824 -> '1 GiB'."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit, size in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            value = n / size
            text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
            return f"{sign}{text} {unit}"
    return f"{sign}{int(n)} B"


def fmt_int(n: int) -> str:
    """Thousands separators: 131072 -> '131,072'."""
    return f"{n:,}"
