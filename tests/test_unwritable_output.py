"""A file kvplan cannot write is refused before the work (task uxfix). `fleet --save` to a
path in a folder that takes no new file printed the whole plan, then the one-line error; now
every option that writes a file (-o/--output on every command, size/fleet --save, import -o,
plot -o) is checked first: one line on stderr, nothing on stdout, exit 2. /proc takes no new
file (Linux), whoever runs the test: root ignores permission bits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

BAD = "/proc/kvplan-uxfix-test.yaml"
PLAN = ["llama-3-8b", "--gpu", "h100", "--context", "8192"]

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")


@pytest.mark.parametrize("args", [
    ["fleet", *PLAN, "-n", "100", "--save", BAD],
    ["fleet", *PLAN, "-n", "100", "-o", BAD],
    ["fleet", "llama-3-8b", "-n", "100", "--search", "--search-gpus", "h100", "--save", BAD],
    ["size", *PLAN, "--save", BAD],
    ["size", *PLAN, "-f", "json", "-o", BAD],
    ["explain", *PLAN, "-o", BAD],
    ["models", "-o", BAD],
    ["gpus", "-f", "csv", "-o", BAD],
    ["check", "examples/support-chatbot.yaml", "-o", BAD],
    ["calibrate", "tests/assets/logs/01-vllm-llama3.1-8b-rtx3090-v0.log", "-o", BAD],
    ["import", "tests/assets/no-such-config.json", "-o", BAD],
    ["plot", "users-vs-context", "llama-3-8b", "--gpu", "h100", "-o", BAD],
], ids=lambda a: " ".join(a[:1] + [x for x in a if x.startswith("-") and x != "-n"][-1:]))
def test_an_unwritable_file_is_refused_before_the_work(args: list[str]) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    option = "--save" if "--save" in args else "--output"
    assert res.stderr.splitlines() == [
        f"error: {BAD}: cannot write: No such file or directory; choose another path"], option
    assert not os.path.exists(BAD)


def test_a_missing_folder_is_refused_before_the_work(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "plan.yaml"
    res = CliRunner().invoke(app, ["fleet", *PLAN, "-n", "100", "--save", str(target)])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [
        f"error: {target}: folder {target.parent} does not exist; create it first"]


def test_a_writable_file_is_written_and_nothing_left_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "plan.yaml"
    res = CliRunner().invoke(app, ["fleet", *PLAN, "-n", "100", "--save", str(target)])
    assert res.exit_code == 0, res.output
    assert "apiVersion: kvplan/v1" in target.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.yaml"]  # the probe is gone
