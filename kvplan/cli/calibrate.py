"""`kvplan calibrate`: kvplan's prediction beside every number real start-up logs printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.errors import InputError
from kvplan.render import OutputFormat
from kvplan.render.calibration import records, text_report

LogsArg = Annotated[
    list[Path],
    typer.Argument(metavar="LOGFILE", help="start-up log files (vLLM, SGLang, TRT-LLM), or "
                   "directories of *.log files"),
]


@cli_errors
def calibrate_command(
    logs: LogsArg,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """Parse engine start-up logs and compare kvplan's predictions with what they printed.

    Each vLLM run also shows its torch.compile cache state as its lines give it (cold, warm,
    eager or not stated; `compile_cache` in JSON and CSV rows): kvplan's vLLM figure assumes a
    warm cache.
    """
    from kvplan.calibrate.compare import calibrate_files

    for path in logs:
        if not path.exists():
            raise InputError(f"{path}: no such log file or directory")
    from kvplan.cli.progress import StatusLine

    problems: list[InputError] = []
    with StatusLine("kvplan calibrate") as line:
        reports = calibrate_files(list(logs), problems,
                                  progress=lambda i, n: line.update(f"{i}/{n} log files"))
    if fmt is OutputFormat.json:
        text = json.dumps(records(reports), indent=2) + "\n"
    elif fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        text = csvfmt.render(records(reports))
    else:
        text = text_report(reports, terminal_width(), use_color() and output is None)
    if reports or not problems:
        emit(text, output)
    for err in problems:  # after the readable logs' results, never instead of them
        typer.echo(f"error: {err}", err=True)
    if problems:
        raise typer.Exit(code=2)
