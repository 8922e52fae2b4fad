"""The long help pages (size, fleet, explain) group their options under headed sections.

`kvplan size --help` was 192 lines, `fleet --help` 218 and `explain --help` 206 of one flat
"Options:" list (task h49help). Each option now names its section with typer's public
`rich_help_panel=`; kvplan.cli.helpfmt prints them in kvplan.cli.sections.SECTIONS' order. The
whole size page is a golden (regenerate with KVPLAN_REGEN_GOLDEN=1 and review the diff); click's
test runner wraps help at 80 columns whatever the terminal (click.testing sets FORCED_WIDTH).
"""

from __future__ import annotations

import os
import re

import pytest
import typer
from typer.main import get_command

from kvplan.cli import SECTIONED, app, helpfmt
from kvplan.cli.sections import SECTIONS
from tests.conftest import GOLDEN

GLOBALS = {"--debug", "--no-color", "--help"}  # every command's: they stay under "Options:"


def _command(name: str):  # noqa: ANN202 - typer's command object
    root = get_command(app)
    return root.get_command(typer.Context(root), name)  # type: ignore[attr-defined]


def _headings(text: str) -> list[str]:
    """The section headings of a help page: unindented lines ending in a colon."""
    return [line[:-1] for line in text.splitlines() if re.fullmatch(r"[A-Z][^:]*(: [^:]+)?:", line)]


def test_the_sectioned_commands_are_the_long_ones() -> None:
    assert SECTIONED == ("size", "fleet", "explain")


@pytest.mark.parametrize("name", SECTIONED)
def test_every_option_belongs_to_a_named_section(name: str) -> None:
    """An option added to size, fleet or explain without `rich_help_panel=` (or with a name
    kvplan.cli.sections does not list) would fall to the bottom "Options:" list among the
    globals: refused here. The globals themselves carry no section."""
    unsectioned, unknown = [], []
    for param in _command(name).params:
        if param.param_type_name != "option":
            continue
        flag = max(param.opts, key=len)
        section = helpfmt.section_of(param)
        if flag in GLOBALS:
            assert section is None, flag
        elif section is None:
            unsectioned.append(flag)
        elif section not in SECTIONS:
            unknown.append(f"{flag}: {section}")
    assert not unsectioned, f"{name}: options without a help section: {unsectioned}"
    assert not unknown, f"{name}: sections kvplan.cli.sections does not list: {unknown}"


def test_the_docstring_lists_the_sections_in_their_order() -> None:
    """helpfmt's docstring documents the order: its numbered list must be SECTIONS itself."""
    listed = re.findall(r"^\d+\. (.+?): ", helpfmt.__doc__ or "", re.M)
    assert listed == list(SECTIONS)


def test_fleet_prints_its_sections_in_the_fixed_order(runner) -> None:
    """fleet uses every section but Measure (size's alone), so its headings are SECTIONS less
    Measure, between the argument and the globals."""
    text = runner.invoke(app, ["fleet", "--help"]).output
    assert _headings(text) == [
        "Arguments", "Model and context", "GPU and parallelism", "Memory", "Traffic", "Speed",
        "Cost", "Search", "Engine", "Engine (vLLM)", "Engine (SGLang)", "Engine (TensorRT-LLM)",
        "Output", "Options"]


def test_the_globals_stay_under_options(runner) -> None:
    text = runner.invoke(app, ["explain", "--help"]).output
    options = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in options.splitlines()] == ["--debug", "--no-color", "-h,"]


@pytest.mark.parametrize("words", [["plot", "memory"], ["check"], ["models"]], ids=" ".join)
def test_the_short_pages_keep_one_options_list(runner, words: list[str]) -> None:
    """plot's commands take size's option definitions (with their sections) and check/models
    --format/--output (Output): their pages keep the one "Options:" list they had."""
    text = runner.invoke(app, [*words, "--help"]).output
    assert [h for h in _headings(text) if h != "Arguments"] == ["Options"], text


def test_an_unlisted_section_comes_after_the_listed_ones() -> None:
    rows = [("--x", "x")]
    got = helpfmt.section_order({None: rows, "Zeta": rows, SECTIONS[2]: rows, SECTIONS[0]: rows})
    assert [t for t, _ in got] == [SECTIONS[0], SECTIONS[2], "Zeta", "Options"]


def test_size_help_whole_output(runner) -> None:
    result = runner.invoke(app, ["size", "--help"])
    assert result.exit_code == 0, result.output
    path = GOLDEN / "size-help.txt"
    if os.environ.get("KVPLAN_REGEN_GOLDEN"):
        path.write_text(result.stdout)
    assert result.stdout == path.read_text()
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
