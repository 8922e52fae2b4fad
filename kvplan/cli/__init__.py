"""The command-line interface: assembles one module per command. Only this layer prints.

Start-up stays at the import floor: when kvplan runs as a program, only the invoked command's
module is imported and registered (typer's public API: `app.command(name)(function)`); `kvplan`
alone, `--help` and shell completion register them all.

As a program, kvplan also leaves pydantic's plugins unloaded (`PYDANTIC_DISABLE_PLUGINS`, unless
the environment sets it): looking for them reads the metadata of every installed distribution
(10-15 ms in an environment with torch), and kvplan's models are its own internal schemas; it
skips the plugin loader's import, and keeps start-up's objects out of the cyclic collector's way
(kvplan.cli.startup). Imported as a library, nothing changes.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

# first: as a program, kvplan.cli.startup tunes start-up before typer and pydantic load
from kvplan.cli.startup import PROGRAM

# isort: split
import typer

from kvplan import __version__
from kvplan.cli.common import EXIT_CODES_EPILOG, STATE
from kvplan.cli.globalopts import global_options
from kvplan.cli.helpfmt import SectionsCommand, WordsCommand

# name -> (module, function); `plot` is a group of its own
COMMANDS = {
    "size": ("kvplan.cli.size", "size_command"),
    "fleet": ("kvplan.cli.fleet", "fleet_command"),
    "models": ("kvplan.cli.catalog", "models_command"),
    "gpus": ("kvplan.cli.catalog", "gpus_command"),
    "import": ("kvplan.cli.import_cmd", "import_command"),
    "check": ("kvplan.cli.check", "check_command"),
    "explain": ("kvplan.cli.explain", "explain_command"),
    "calibrate": ("kvplan.cli.calibrate", "calibrate_command"),
    "plot": ("kvplan.cli.plot", "plot_app"),
}
# the long help pages: their options under headed sections (kvplan.cli.helpfmt)
SECTIONED = ("size", "fleet", "explain")
CONTEXT = {"help_option_names": ["-h", "--help"]}
# One line each in `kvplan --help`: click cuts a command's docstring at the width with "...",
# which left every line unfinished; these fit 80 columns whole (test_help_words)
SHORT_HELP = {
    "size": "Users per GPU for a model, GPU and context; where memory goes",
    "fleet": "Replicas, GPUs and cost for a peak of users",
    "models": "The model catalog: names, KV bytes per token, Hugging Face ids",
    "gpus": "The GPU catalog: names for --gpu, memory, bandwidth, price",
    "import": "Write a model spec YAML from a Hugging Face config.json",
    "check": "PASS/FAIL per deployment file or manifest: a CI gate",
    "explain": "The planned record and its arithmetic, step by step",
    "calibrate": "kvplan's predictions against engine start-up logs",
    "plot": "Pictures: users against context, memory, overflow risk",
    "users-vs-context": "Users per GPU against tokens per conversation",
    "memory": "Where one GPU's memory goes",
    "risk": "The open conversations' cache against the pool",
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kvplan {__version__}")
        raise typer.Exit()


def _root(
    ctx: typer.Context,
    debug: Annotated[
        bool, typer.Option("--debug", help="show the full traceback of an error (any position)")
    ] = False,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="plain output, no colours (any position)")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version")
    ] = False,
) -> None:
    STATE["debug"] = debug
    STATE["no_color"] = no_color
    if ctx.invoked_subcommand is None:  # `kvplan` alone: the help, and success
        typer.echo(ctx.get_help())
        raise typer.Exit()


def _invoked(argv: list[str]) -> str | None:
    """The command a program's arguments name (None: list them all)."""
    words = [a for a in argv if not a.startswith("-")]
    return words[0] if words and words[0] in COMMANDS else None


def build_app(only: str | None = None) -> typer.Typer:
    """The app with every command, or only `only` (the one a program run invokes)."""
    app = typer.Typer(
        name="kvplan",
        help="KV-cache capacity planner for LLM serving: users per GPU and GPUs per peak load.",
        invoke_without_command=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings=CONTEXT,
    )
    app.callback()(_root)
    for name, (module, attr) in COMMANDS.items():
        if only is not None and name != only:
            continue
        target = getattr(importlib.import_module(module), attr)
        if isinstance(target, typer.Typer):
            for info in target.registered_commands:  # the group's commands take them too
                info.callback = global_options(info.callback)  # type: ignore[arg-type]
                info.cls = WordsCommand
                info.short_help = SHORT_HELP.get(info.name or "")
            app.add_typer(target, name=name, context_settings=CONTEXT, epilog=EXIT_CODES_EPILOG,
                          short_help=SHORT_HELP[name])
        else:
            cls = SectionsCommand if name in SECTIONED else WordsCommand
            app.command(name, cls=cls, context_settings=CONTEXT, epilog=EXIT_CODES_EPILOG,
                        short_help=SHORT_HELP[name])(global_options(target))
    return app


app = build_app(_invoked(sys.argv[1:])) if PROGRAM else build_app()


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
    if PROGRAM:
        from kvplan.cli.startup import freeze_startup

        freeze_startup()
    try:
        app(args=args, prog_name="kvplan")
    except Exception as err:
        if debug_enabled():
            raise
        print(internal_error_line(err), file=sys.stderr)
        sys.exit(INTERNAL_EXIT)
