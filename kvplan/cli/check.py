"""`kvplan check`: a CI gate. PASS / FAIL / ERROR per deployment; exit 0, 1 or 2."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kvplan.cli.common import OutputOpt, cli_errors, debug_enabled, emit


def progress_text(done: int, total: int, outcomes: list[Any]) -> str:
    """'12/150 files, 3 FAIL, 1 ERROR' (the counts only once there are some)."""
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.verdict] = counts.get(outcome.verdict, 0) + 1
    tail = "".join(f", {counts[s]} {s}" for s in ("FAIL", "ERROR") if counts.get(s))
    return f"{done}/{total} files{tail}"


def _width(output: object) -> int | None:
    """Fold text at the terminal's width; at 80 columns in CI logs (CI set); else not at all."""
    import os
    import shutil
    import sys

    if output is None and sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return 80 if os.environ.get("CI") else None


PathsArg = Annotated[
    list[str],
    typer.Argument(
        metavar="PATH",
        help="kvplan/v1 files, Kubernetes manifests, launch scripts, Python scripts or "
             "notebooks, folders (searched recursively: YAML, and the shell scripts and .py / "
             ".ipynb files that start an engine; the others are counted) or globs",
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
            metavar="text|json|junit|github",
            help="text for people, json for tools, junit for CI reports, github for annotations",
        ),
    ] = "text",
    output: OutputOpt = None,
    gpu: Annotated[
        str | None,
        typer.Option("--gpu", help="the GPU of manifests that name none (catalog name)"),
    ] = None,
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
    if gpu is not None:
        from kvplan.deploy import resolve_gpu
        from kvplan.errors import InputError

        try:
            gpu = resolve_gpu(gpu).name
        except InputError as err:
            raise typer.BadParameter(str(err), param_hint="--gpu") from None
    from kvplan.cli.progress import StatusLine

    with StatusLine("kvplan check") as line:
        report = check_paths(paths, default_gpu=gpu,
                             progress=lambda i, n, done: line.update(progress_text(i, n, done)),
                             debug=debug_enabled())
    # only when a deployment named its own GPU: a run where nothing got that far (every file an
    # ERROR: unrendered, unreadable) prints those errors rather than a usage error about --gpu
    if gpu is not None and not report.default_gpu_used and any(o.gpu for o in report.outcomes):
        raise typer.BadParameter(
            "every deployment checked names its own GPU, so it applied to none (it sets "
            "only the GPU of manifests and scripts that name none); drop it, or change a "
            "manifest's GPU with the annotation kvplan.io/gpu, a script's with `gpu:` in its "
            "side file", param_hint="--gpu")
    emit(render(chosen, report, _width(output)), output)
    raise typer.Exit(code=report.exit_code)
