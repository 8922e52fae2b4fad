"""Shared CLI pieces: option types defined once, list parsing, the error boundary, output."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from kvplan.errors import KvplanError
from kvplan.render import OutputFormat

F = TypeVar("F", bound=Callable[..., Any])

STATE = {"debug": False, "no_color": False}


def debug_enabled() -> bool:
    return STATE["debug"] or os.environ.get("KVPLAN_DEBUG", "") not in ("", "0")


def cli_errors(fn: F) -> F:
    """The one place where a domain error becomes a message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KvplanError as err:
            if debug_enabled():
                raise
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(code=err.exit_code) from None

    return wrapper  # type: ignore[return-value]


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


def positive(value: float | None) -> float | None:
    if value is not None and value <= 0:
        raise typer.BadParameter(f"must be positive, got {value:g}")
    return value


def non_negative(value: float | None) -> float | None:
    if value is not None and value < 0:
        raise typer.BadParameter(f"must not be negative, got {value:g}")
    return value


def utilization(value: float) -> float:
    if not 0 < value <= 1:
        raise typer.BadParameter(f"must be in (0, 1], got {value:g} (0.9 means 90%)")
    return value


FormatOpt = Annotated[
    OutputFormat, typer.Option("--format", "-f", help="table for people, json or csv for tools")
]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="write to FILE (atomically) instead of standard output"),
]


def emit(text: str, output: Path | None) -> None:
    """Print, or write a file atomically: a temporary file renamed into place."""
    if output is None:
        sys.stdout.write(text)
        return
    output = output.expanduser()
    folder = output.parent if str(output.parent) else Path(".")
    if not folder.is_dir():
        raise typer.BadParameter(f"folder {folder} does not exist", param_hint="--output")
    fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, output)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    typer.echo(f"wrote {output}", err=True)


def terminal_width() -> int:
    """The terminal's width (COLUMNS wins), kept between 60 and 120 columns."""
    return max(60, min(shutil.get_terminal_size(fallback=(80, 24)).columns, 120))


def use_color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and not STATE["no_color"]


