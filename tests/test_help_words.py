"""Help names values in words (issue #15): no Python type names, no braces, 80 columns."""

from __future__ import annotations

import re

import pytest
import typer
from typer.main import get_command

from kvplan.cli import app
from kvplan.cli.helpfmt import help_name, usage_piece
from tests.conftest import invoke


def _commands() -> list[list[str]]:
    """Every command and subcommand of the app, found from typer's own tree."""
    root = get_command(app)
    found: list[list[str]] = [[]]
    ctx = typer.Context(root)
    for name in root.list_commands(ctx):  # type: ignore[attr-defined]
        cmd = root.get_command(ctx, name)  # type: ignore[attr-defined]
        found.append([name])
        if hasattr(cmd, "list_commands"):
            found += [[name, sub] for sub in cmd.list_commands(ctx)]
    return found


COMMANDS = _commands()


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"size", "fleet", "explain", "check", "calibrate", "import", "models", "gpus",
            "plot", "plot users-vs-context", "plot memory", "plot risk"} <= names


@pytest.mark.parametrize("words", COMMANDS, ids=lambda c: " ".join(c) or "kvplan")
def test_help_is_in_words(runner, words: list[str]) -> None:
    result = invoke(runner, *words, "--help")
    assert result.exit_code == 0, result.output
    text = result.output
    # typer's raw type names: <str>, <list[str]>, <path>, <float>, <int range>
    assert not re.search(r"<(str|int|float|path|Path|list\[[^\]]*\]|bool|int range|float range)>",
                         text), text
    # braces around a required argument in the usage line: {MODEL_OR_FILE}
    usage = text.splitlines()[0]
    assert "{" not in usage, usage
    assert max(len(line) for line in text.splitlines()) <= 80


def test_an_argument_loses_its_type_an_option_gets_a_word() -> None:
    class Arg:
        param_type_name = "argument"
        name = "target"

    class Opt:
        param_type_name = "option"
        name = "vendor"

    assert help_name(Arg(), "MODEL_OR_FILE <str>") == "MODEL_OR_FILE"
    assert help_name(Opt(), "--vendor <str>") == "--vendor VENDOR"
    assert help_name(Opt(), "-o, --output <path>") == "-o, --output FILE"
    assert help_name(Opt(), "-f, --format <table|json|csv>") == "-f, --format table|json|csv"
    assert help_name(Opt(), "--gpu GPU[,GPU...]") == "--gpu GPU[,GPU...]"  # its own metavar
    assert usage_piece("{PATH}...") == "PATH..."
    assert usage_piece("[QUERY]") == "[QUERY]"


@pytest.mark.parametrize(("words", "usage"), [
    (["check"], "Usage: kvplan check [OPTIONS] PATH..."),
    (["calibrate"], "Usage: kvplan calibrate [OPTIONS] LOGFILE..."),
    (["size"], "Usage: kvplan size [OPTIONS] MODEL_OR_FILE"),
    (["models"], "Usage: kvplan models [OPTIONS] [QUERY]"),
])
def test_the_usage_line_marks_an_argument_of_several_values(runner, words: list[str],
                                                            usage: str) -> None:
    # `...` after an argument that takes several values, whatever the typer version prints
    result = invoke(runner, *words, "--help")
    assert result.output.splitlines()[0] == usage


@pytest.mark.parametrize("words", [[], ["plot"]], ids=["kvplan", "plot"])
def test_the_command_list_has_whole_lines(runner, words: list[str]) -> None:
    """`kvplan --help` lists each command with one whole line: click cut the docstrings at the
    width with "..." ("How many concurrent sequences one GPU holds, and where its..."), so every
    command had an unfinished sentence; each now has its own short help, as written."""
    from kvplan.cli import SHORT_HELP

    text = invoke(runner, *words, "--help").output
    listed = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert listed, text
    for line in listed:
        name, short = line.split(None, 1)
        assert short == SHORT_HELP[name], line
        assert not short.endswith("..."), line


@pytest.mark.parametrize("words", [c for c in COMMANDS if c], ids=" ".join)
def test_every_option_says_what_it_is(words: list[str]) -> None:
    """An option's help begins with what it sets, not with its default: --weight-dtype's help was
    "[default: the model's published dtype]" alone, on size, fleet and explain."""
    cmd = get_command(app)
    for word in words:
        cmd = cmd.get_command(typer.Context(cmd), word)  # type: ignore[attr-defined]
    for param in cmd.params:
        if param.param_type_name != "option" or param.hidden:  # type: ignore[attr-defined]
            continue
        text = (param.help or "").strip()  # type: ignore[attr-defined]
        assert text and not text.startswith("["), (words, param.opts)


@pytest.mark.parametrize(("option", "default"), [
    ("--engine", "[default: ideal: utilization x memory - weights - --reserve-gib"),
    ("--engine-version", "[default: the newest release modelled"),
    ("--weight-dtype", "[default: the model's published dtype]"),
    ("--max-num-tokens", "[default: 8,192]"),  # thousands separated, as every other count
])
def test_the_engine_options_name_their_defaults(option: str, default: str) -> None:
    cmd = get_command(app)
    size = cmd.get_command(typer.Context(cmd), "size")  # type: ignore[attr-defined]
    helps = {o: p.help for p in size.params for o in p.opts}  # type: ignore[attr-defined]
    assert default in helps[option], helps[option]
