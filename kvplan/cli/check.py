"""`kvplan check`: a CI gate. PASS / FAIL / ERROR per deployment; exit 0, 1 or 2."""

from __future__ import annotations

from typing import Annotated

import typer

from kvplan.cli.common import OutputOpt, cli_errors, emit

PathsArg = Annotated[
    list[str],
    typer.Argument(
        metavar="PATH",
        help="kvplan/v1 files, Kubernetes manifests, folders (searched recursively) or globs",
        show_default=False,
    ),
]


@cli_errors
def check_command(
    paths: PathsArg,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="text for people, json for tools, junit for CI reports, github for annotations",
        ),
    ] = "text",
    output: OutputOpt = None,
) -> None:
    """Fail the build when a deployment cannot carry its declared load.

    Exit code 0: every deployment passes; 1: one or more fail; 2: some input is invalid
    (every other file is still checked).
    """
    from kvplan.check import check_paths
    from kvplan.check.formats import CheckFormat, render

    try:
        chosen = CheckFormat(fmt)
    except ValueError:
        names = ", ".join(f.value for f in CheckFormat)
        raise typer.BadParameter(f"{fmt!r} is not one of {names}", param_hint="--format") from None
    report = check_paths(paths)
    emit(render(chosen, report), output)
    raise typer.Exit(code=report.exit_code)
