"""The command-line interface: assembles one module per command. Only this layer prints."""

from __future__ import annotations

from typing import Annotated

import typer

from kvplan import __version__
from kvplan.cli.calibrate import calibrate_command
from kvplan.cli.catalog import gpus_command, models_command
from kvplan.cli.check import check_command
from kvplan.cli.common import STATE
from kvplan.cli.explain import explain_command
from kvplan.cli.fleet import fleet_command
from kvplan.cli.import_cmd import import_command
from kvplan.cli.plot import plot_app
from kvplan.cli.size import size_command

app = typer.Typer(
    name="kvplan",
    help="KV-cache capacity planner for LLM serving: users per GPU and GPUs per peak load.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kvplan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", help="show the full traceback of an error")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version")
    ] = False,
) -> None:
    STATE["debug"] = debug


app.command("size")(size_command)
app.command("fleet")(fleet_command)
app.command("models")(models_command)
app.command("gpus")(gpus_command)
app.command("import")(import_command)
app.command("check")(check_command)
app.command("explain")(explain_command)
app.command("calibrate")(calibrate_command)
app.add_typer(plot_app, name="plot")


def main() -> None:
    """The console entry point: `--debug` is accepted anywhere before `--`, and an exception
    that escapes a command (in an option callback, say) is exit 3 with one line, never a
    traceback unless --debug."""
    import sys

    from kvplan.cli.common import INTERNAL_EXIT, debug_enabled, internal_error_line

    args = sys.argv[1:]
    cut = args.index("--") if "--" in args else len(args)
    if "--debug" in args[:cut]:
        args = ["--debug", *[a for a in args[:cut] if a != "--debug"], *args[cut:]]
        STATE["debug"] = True
    try:
        app(args=args, prog_name="kvplan")
    except Exception as err:
        if debug_enabled():
            raise
        print(internal_error_line(err), file=sys.stderr)
        sys.exit(INTERNAL_EXIT)
