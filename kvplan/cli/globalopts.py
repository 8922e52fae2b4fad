"""Global options (--debug, --no-color) accepted after a command as well as before it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from kvplan.cli.common import STATE

_GLOBALS = {
    "debug": Annotated[bool, typer.Option("--debug", help="show the full traceback of an error")],
    "no_color": Annotated[bool, typer.Option("--no-color", help="plain output, no colours")],
}


def global_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The command with --debug and --no-color accepted after it too (they set STATE)."""
    if getattr(fn, "_kvplan_globals", False):
        return fn
    sig = inspect.signature(fn, eval_str=True)
    extra = [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=False, annotation=t)
             for k, t in _GLOBALS.items() if k not in sig.parameters]

    @functools.wraps(fn)
    def command(*args: Any, **kwargs: Any) -> Any:
        for p in extra:
            if kwargs.pop(p.name, False):
                STATE[p.name] = True
        return fn(*args, **kwargs)

    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in sig.parameters.values()]
    command.__signature__ = sig.replace(parameters=[*params, *extra])  # type: ignore[attr-defined]
    # the annotations as evaluated above: typer reads them again (get_type_hints), and
    # evaluating a command's fifty strings twice is start-up time
    command.__annotations__ = {p.name: p.annotation for p in [*params, *extra]}
    if sig.return_annotation is not inspect.Signature.empty:
        command.__annotations__["return"] = sig.return_annotation
    command._kvplan_globals = True  # type: ignore[attr-defined]
    return command
