"""Option values: comma lists, whole numbers, finite and bounded floats (typer callbacks)."""

from __future__ import annotations

import math

import typer


def split_list(text: str, what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise typer.BadParameter(f"no {what} given")
    return items


def int_list(text: str, what: str) -> list[int]:
    out = []
    for item in split_list(text, what):
        try:
            value = int(item.replace("_", ""))
        except ValueError:
            raise typer.BadParameter(f"{item!r} is not a whole number of {what}") from None
        if value <= 0:
            raise typer.BadParameter(f"{what} must be positive, got {value}")
        out.append(value)
    return out


def token_count(text: str) -> int:
    """A length in tokens: digits, or vLLM's 32k (x1000) / 32K (x1024) spellings."""
    from kvplan.units import parse_tokens

    try:
        value = parse_tokens(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a whole number of tokens (vLLM's spellings "
                                 "are taken too: 32k = 32,000, 32K = 32,768)") from None
    if value <= 0:
        raise typer.BadParameter(f"must be positive, got {value}")
    return value


def finite(value: float | None) -> float | None:
    """Refuse nan and inf, which float options otherwise accept."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, got {value}")
    return value


def positive(value: float | None) -> float | None:
    if finite(value) is not None and value is not None and value <= 0:
        raise typer.BadParameter(f"must be positive, got {value:g}")
    return value


def non_negative(value: float | None) -> float | None:
    if finite(value) is not None and value is not None and value < 0:
        raise typer.BadParameter(f"must not be negative, got {value:g}")
    return value


def _gib_bound(value: float | None) -> float | None:
    """A memory size in GiB at most 1 PiB (kvplan.inputs.limits.MAX_MEMORY_BYTES, the bound of
    a device's memory): 1e308 printed a 300-digit TiB figure (task freshuser)."""
    from kvplan.inputs.limits import MAX_MEMORY_BYTES

    limit = MAX_MEMORY_BYTES / 2**30
    if value is not None and value > limit:
        raise typer.BadParameter(f"{value:g} GiB is beyond the limit of {limit:,.0f} GiB "
                                 "(1 PiB, docs/limits.md)")
    return value


def positive_gib(value: float | None) -> float | None:
    return _gib_bound(positive(value))


def non_negative_gib(value: float | None) -> float | None:
    return _gib_bound(non_negative(value))


def utilization(value: float) -> float:
    if not math.isfinite(value) or not 0 < value <= 1:
        raise typer.BadParameter(f"must be in (0, 1], got {value:g} (0.9 means 90%)")
    return value


def mm_count(text: str) -> int:
    """--limit-mm-per-prompt as vLLM spells it: a count, `image=2,video=1` or a JSON object of
    modality -> count (or -> {"count": n}); the items are summed, as `kvplan check` reads it in
    a manifest."""
    from kvplan.check.manifests.pool_flags import mm_items

    try:
        total = mm_items(text)
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is not a count, MODALITY=N[,MODALITY=N...] or a JSON object of counts "
            "(vLLM's forms, e.g. 2, image=2,video=1 or '{\"image\": 2}')") from None
    if total < 0:
        raise typer.BadParameter(f"must not be negative, got {total}")
    return total

