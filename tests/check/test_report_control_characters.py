"""A value a file gave is printed in `kvplan check`'s text and github reports with its control
characters escaped (task freshuser). A kvplan/v1 deployment named "ok\\nFAIL  line 1  forged"
printed a second verdict line of its own under a PASS, and an escape sequence in a name
recoloured the CI log; a name is now shown as `ok\\nFAIL ...` on its one line. json and junit
escape by their own format and are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()
NAME = "ok\nFAIL  line 1  forged\x1b[31m red"
SHOWN = "ok\\nFAIL  line 1  forged\\x1b[31m red"


def _deployment(tmp_path: Path, count: int, users: int) -> Path:
    path = tmp_path / "chat.yaml"
    path.write_text("apiVersion: kvplan/v1\n"
                    f"name: {json.dumps(NAME)}\n"  # a JSON string is a YAML double-quoted one
                    "model: llama-3-8b\nhardware:\n  gpu: h100\n"
                    f"  count: {count}\ntraffic:\n  peak_concurrent_users: {users}\n")
    return path


def test_a_name_cannot_forge_a_verdict_line(tmp_path: Path) -> None:
    path = _deployment(tmp_path, 4, 100)
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3  # the path, PASS, the summary
    assert lines[1] == (f"PASS  line 1  {SHOWN}: holds 216 users >= 100 required; starts: yes "
                        "(llama-3-8b on 4 replica(s) x 1 h100-sxm-80gb)")
    assert not any(line.startswith("FAIL") for line in lines)
    assert "\x1b" not in result.stdout


def test_github_annotations_escape_it_too(tmp_path: Path) -> None:
    path = _deployment(tmp_path, 1, 10_000)
    result = invoke(RUNNER, "check", str(path), "--format", "github")
    assert result.exit_code == 1, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"::error file={path},line=6,title=kvplan check FAIL%3A {SHOWN}::"
                            f"FAIL  {path}:6  {SHOWN}: holds 54 users < 10,000 required")
    assert "\x1b" not in result.stdout


def test_json_keeps_the_name_as_given(tmp_path: Path) -> None:
    path = _deployment(tmp_path, 4, 100)
    result = invoke(RUNNER, "check", str(path), "--format", "json")
    assert json.loads(result.stdout)["results"][0]["name"] == NAME


def test_footer_escapes_a_walked_file_name(tmp_path):
    """The summary footer names up to three scripts a walk could not read as text: a file
    name's escape sequence is written as its escape there too (left by task freshuser)."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    folder = tmp_path / "walk"
    folder.mkdir()
    (folder / "evil\x1b[31m.sh").write_bytes(b"#!/bin/sh\n\x00\x01\x02 vllm serve\n")
    (folder / "d.yaml").write_text(
        "apiVersion: kvplan/v1\nname: d\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: 1\n"
        "traffic:\n  peak_concurrent_users: 10\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["check", str(folder)], env={"COLUMNS": "300"})
    assert "\x1b" not in result.output, result.output
    assert "evil\\x1b[31m.sh" in result.output, result.output
