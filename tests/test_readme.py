"""README examples are real: every ```console block's `$ ...` output must match what runs.

A plain `kvplan ...` line runs through typer's CliRunner; a line with shell syntax (a pipe, a
glob, a loop) runs in bash with this interpreter's `kvplan` first on PATH. A line ending in a
backslash continues on the next. Regenerate with KVPLAN_REGEN_README=1 and review the diff.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import invoke

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)
SHELL = re.compile(r"[|;*&<>`$]")


def examples() -> list[tuple[str, str]]:
    found = []
    for block in BLOCK.findall(README.read_text()):
        cmd: str | None = None
        out: list[str] = []
        continuing = False
        for line in block.splitlines():
            if continuing and cmd is not None:
                cmd += "\n" + line
                continuing = line.endswith("\\")
            elif line.startswith("$ "):
                if cmd:
                    found.append((cmd, "\n".join(out)))
                cmd, out = line[2:], []
                continuing = line.endswith("\\")
            else:
                out.append(line)
        if cmd:
            found.append((cmd, "\n".join(out)))
    return found


def run(runner, cmd: str) -> str:  # noqa: ANN001 - CliRunner
    if not SHELL.search(cmd.replace("\\\n", " ")) and "\n" not in cmd:
        argv = shlex.split(cmd)
        assert argv[0] == "kvplan"
        return invoke(runner, *argv[1:]).stdout
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True)
    return proc.stdout


@pytest.mark.parametrize(("cmd", "expected"), examples(), ids=[c.split("\n")[0] for c, _ in examples()])
def test_readme_example(runner, cmd, expected):
    got = run(runner, cmd).rstrip("\n")
    if os.environ.get("KVPLAN_REGEN_README"):
        text = README.read_text()
        old = f"$ {cmd}\n{expected}".rstrip("\n") + "\n```"
        README.write_text(text.replace(old, f"$ {cmd}\n{got}\n```", 1))
        return
    assert got == expected.rstrip("\n"), f"README example drifted: {cmd}"
