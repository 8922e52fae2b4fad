"""A folder walk is bounded (kvplan.inputs.limits.MAX_WALK_ENTRIES): `kvplan check /` walked the
whole filesystem without end (task freshuser). Past the bound the folder is one ERROR that says
what to name instead, and a file named beside it is still checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.inputs import limits

RECORD = ("apiVersion: kvplan/v1\nname: {name}\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: 1\n"
          "traffic:\n  peak_concurrent_users: 10\n")


def _tree(root: Path, count: int) -> None:
    root.mkdir()
    for i in range(count):
        (root / f"d{i}.yaml").write_text(RECORD.format(name=f"d{i}"), encoding="utf-8")


def test_a_walk_past_the_bound_is_one_error_and_hides_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 5)
    _tree(tmp_path / "big", 6)
    alone = tmp_path / "alone.yaml"
    alone.write_text(RECORD.format(name="alone"), encoding="utf-8")
    result = CliRunner().invoke(app, ["check", str(tmp_path / "big"), str(alone)],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    assert ("the folder holds more than 5 files and folders (not counting hidden ones); kvplan "
            "stopped walking it and checked none of them: name the folder or files that hold "
            "your deployments (a glob such as 'deploy/**/*.yaml' works too)") in result.output
    assert "d0.yaml" not in result.output  # none of the walked files was checked
    assert "PASS" in result.output and "alone" in result.output
    assert "2 checked in 2 file(s): 1 PASS, 0 FAIL, 1 ERROR" in result.output


def test_a_walk_within_the_bound_checks_every_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 6)
    _tree(tmp_path / "big", 6)
    result = CliRunner().invoke(app, ["check", str(tmp_path / "big")], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "6 checked in 6 file(s): 6 PASS, 0 FAIL, 0 ERROR" in result.output


def test_the_bound_is_far_above_a_real_repository() -> None:
    assert limits.MAX_WALK_ENTRIES == 50_000


# A glob kvplan expands (quoted, so the shell does not) is bounded the same way (task harden):
# '/**/*.yaml' matched every YAML file of the filesystem (more than 50,000 here, 11.6 s to find
# the first 50,001) and '/**/*.py' had each Python file read.
GLOB_ERROR = ("the glob matches more than 5 files and folders (not counting hidden ones); kvplan "
              "stopped expanding it and checked none of them: name the folder or files that hold "
              "your deployments (a narrower glob such as 'deploy/**/*.yaml' works too)")


def test_a_glob_past_the_bound_is_one_error_and_hides_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 5)
    _tree(tmp_path / "big", 3)
    _tree(tmp_path / "big" / "sub", 3)  # 6 YAML files, 3 of them a level down
    alone = tmp_path / "alone.yaml"
    alone.write_text(RECORD.format(name="alone"), encoding="utf-8")
    pattern = str(tmp_path / "big" / "**" / "*.yaml")
    result = CliRunner().invoke(app, ["check", pattern, str(alone)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert GLOB_ERROR in result.output
    assert pattern in result.output
    assert "d0.yaml" not in result.output  # none of the matched files was checked
    assert "2 checked in 2 file(s): 1 PASS, 0 FAIL, 1 ERROR" in result.output


def test_a_glob_within_the_bound_checks_every_match(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 6)
    _tree(tmp_path / "big", 3)
    _tree(tmp_path / "big" / "sub", 3)
    result = CliRunner().invoke(app, ["check", str(tmp_path / "big" / "**" / "*.yaml")],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "6 checked in 6 file(s): 6 PASS, 0 FAIL, 0 ERROR" in result.output
    assert "glob matches more than" not in result.output
