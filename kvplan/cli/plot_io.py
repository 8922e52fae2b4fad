"""What every `kvplan plot` picture shares: the record it draws, and where the picture goes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kvplan.cli.common import terminal_width, use_color
from kvplan.cli.recordio import one, records_for

if TYPE_CHECKING:
    from rich.console import RenderableType

    from kvplan.capacity import SizeRequest
    from kvplan.deploy import PlannedDeployment

ImageOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="write a .png or .svg (needs matplotlib); "
                 "without it, bars in the terminal"),
]


def planned(target: str, params: dict[str, object]) -> tuple[PlannedDeployment, SizeRequest]:
    """The one record the plot draws (a model with options, or a deployment file), and the
    request it sizes: with the engine's KV pool when the record names an engine (said)."""
    from kvplan.plan.planner import pool_request, resolve

    record = one(records_for(target, params), "a plot")
    planned = resolve(record, need_load=False)
    req, note = pool_request(record, planned)
    if note is not None:
        typer.echo(f"note: {record.source}: {note}", err=True)
    return planned, req


def show(output: Path | None, picture: Callable[[Path], None],
          bars: Callable[[], Sequence[RenderableType]]) -> None:
    """A .png/.svg file with matplotlib, or the same numbers as terminal bars."""
    if output is not None:
        from kvplan.render import plots

        plots.check_path(output)
        picture(output)
        typer.echo(f"wrote {output}", err=True)
        return
    from kvplan.render.table import to_string

    typer.echo(to_string(bars(), width=terminal_width(), color=use_color()), nl=False)
