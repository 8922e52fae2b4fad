"""Shared CLI pieces: option types defined once, list parsing, the error boundary, output."""

from __future__ import annotations

import functools
import math
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from kvplan.cli import sections as s
from kvplan.errors import KvplanError, internal_error_line
from kvplan.render import OutputFormat
from kvplan.render.clip import clip_words

F = TypeVar("F", bound=Callable[..., Any])

STATE = {"debug": False, "no_color": False}


def debug_enabled() -> bool:
    return STATE["debug"] or os.environ.get("KVPLAN_DEBUG", "") not in ("", "0")


INTERNAL_EXIT = 3
EXIT_CODES_EPILOG = (
    "Exit codes: 0 ok; 1 a verdict of no (a failing check, a measurement past tolerance, "
    "nothing fits); 2 invalid input; 3 internal error (a bug: rerun with --debug and report it)."
)
NO_EXIT = 1  # a verdict of "no": check FAIL, --measure past tolerance, nothing fits


def _refuse_non_finite(kwargs: dict[str, Any]) -> None:
    """nan and inf parse as floats; no option of kvplan means them, so all are refused here."""
    for name, value in kwargs.items():
        if isinstance(value, float) and not math.isfinite(value):
            flag = "--" + name.replace("_", "-")
            raise typer.BadParameter(f"must be a finite number, got {value}", param_hint=f"'{flag}'")


def _flag(param: Any) -> str:
    """The name a user typed for a parameter: its long option (`--gpu`, not `-g`), or an
    argument's metavar."""
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    if opts:
        return max(opts, key=len)
    return str(param.human_readable_name)


def refuse_bad_value(err: typer.BadParameter) -> NoReturn:
    """A bad option value is one `error:` line and exit 2, as every other input error: not the
    parser's usage banner and `Error: Invalid value for ...` block. Used where typer raises it:
    an option's callback or type while the command line is parsed (helpfmt.WordsCommand) and
    the command's own body (cli_errors)."""
    hint = err.param_hint
    if isinstance(hint, (list, tuple)):
        hint = " / ".join(hint)
    if hint is None and err.param is not None:
        hint = _flag(err.param)
    where = f"{str(hint).strip(chr(39))}: " if hint else ""
    typer.echo(clip_words(f"error: {where}{err.message}"), err=True)
    raise typer.Exit(code=2)


def _refuse_unwritable(kwargs: dict[str, Any]) -> None:
    from kvplan.inputs.atomic import refuse_unwritable  # imported when a command runs, not at start

    refuse_unwritable(kwargs)


def cli_errors(fn: F) -> F:
    """The one place where an error becomes a message and an exit code: a KvplanError its own
    code (2 for invalid input), anything unexpected 3 with the bug-report line. --debug (or
    KVPLAN_DEBUG=1) lets the exception through with its traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _refuse_non_finite(kwargs)
            _refuse_unwritable(kwargs)
            return fn(*args, **kwargs)
        except typer.BadParameter as err:  # a refused value: kvplan's one line (exit 2)
            refuse_bad_value(err)
        except (typer.Exit, typer.Abort, typer.TyperException):  # typer's own: usage errors, exits
            raise
        except KvplanError as err:
            if debug_enabled():
                raise
            typer.echo(clip_words(f"error: {err}"), err=True)
            raise typer.Exit(code=err.exit_code) from None
        except Exception as err:
            if debug_enabled():
                raise
            typer.echo(internal_error_line(err), err=True)
            raise typer.Exit(code=INTERNAL_EXIT) from None

    return wrapper  # type: ignore[return-value]


def exit_for_fit(fits: bool, allow_no_fit: bool = False) -> None:
    """After size/fleet printed their result: exit 1 when nothing fits, unless --allow-no-fit."""
    if not fits and not allow_no_fit:
        raise typer.Exit(code=NO_EXIT)


FormatOpt = Annotated[
    OutputFormat, typer.Option("--format", "-f", rich_help_panel=s.OUTPUT,
                               help="table for people, json or csv for tools")
]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", rich_help_panel=s.OUTPUT,
                 help="write to FILE (atomically) instead of standard output"),
]


def emit(text: str, output: Path | None, option: str = "--output") -> None:
    """Print, or write a file atomically: a temporary file beside it renamed into place. A
    folder, a missing folder, no permission or a full disk is one line and exit 2; the old
    file is then left as it was."""
    if output is None:
        sys.stdout.write(text)
        return
    from kvplan.inputs.atomic import write_text_atomic  # tempfile: only when writing a file

    written = write_text_atomic(output, text, option)
    typer.echo(f"wrote {written}", err=True)


def terminal_width() -> int:
    """The terminal's width (COLUMNS wins), kept between 60 and 120 columns."""
    return max(60, min(shutil.get_terminal_size(fallback=(80, 24)).columns, 120))


def use_color() -> bool:
    """Colour on a terminal, unless --no-color, NO_COLOR set to a non-empty value
    (no-color.org: "present and not an empty string") or TERM=dumb, which draws no colours;
    until task srefirst TERM=dumb got ANSI codes and an empty NO_COLOR turned colour off."""
    return (sys.stdout.isatty() and not os.environ.get("NO_COLOR") and not STATE["no_color"]
            and os.environ.get("TERM") != "dumb")


