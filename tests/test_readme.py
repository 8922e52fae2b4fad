"""README examples are real: every ```console block's `$ kvplan ...` output must match the CLI's."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import invoke

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    found = []
    for block in BLOCK.findall(README.read_text()):
        cmd, out = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd:
                    found.append((cmd, "\n".join(out)))
                cmd, out = line[2:], []
            else:
                out.append(line)
        if cmd:
            found.append((cmd, "\n".join(out)))
    return found


@pytest.mark.parametrize(("cmd", "expected"), examples(), ids=[c for c, _ in examples()])
def test_readme_example(runner, cmd, expected):
    argv = shlex.split(cmd)
    assert argv[0] == "kvplan"
    result = invoke(runner, *argv[1:])
    got = result.stdout.rstrip("\n")
    if os.environ.get("KVPLAN_REGEN_README"):
        text = README.read_text()
        old = f"$ {cmd}\n{expected}".rstrip("\n") + "\n```"
        README.write_text(text.replace(old, f"$ {cmd}\n{got}\n```", 1))
        return
    assert got == expected.rstrip("\n"), f"README example drifted: {cmd}"
