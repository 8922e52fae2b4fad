"""Imported by the check tests that compare whole lines: they run as outside CI (no folding at 80
columns, which `kvplan check` applies when CI is set)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


import re  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

_VERDICT = re.compile(r"^(PASS|FAIL|WARN|ERROR)(\s+)(?:line (\d+)|file)")


@dataclass
class Flat:
    """A CLI result whose text has each verdict line carry its file (`FAIL  path:10  ...`), as
    the older tests read it; `raw` is the output as printed (path once per file)."""

    exit_code: int
    output: str
    raw: str


def flat(result: Any) -> Flat:
    out, path = [], ""
    lines = result.output.splitlines()
    for i, line in enumerate(lines):
        m = _VERDICT.match(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if m:
            where = f"{path}:{m.group(3)}" if m.group(3) else path
            out.append(f"{m.group(1)}{m.group(2)}{where}{line[m.end():]}")
        elif line and not line.startswith(" ") and _VERDICT.match(nxt):
            path = line  # a file's heading
        else:
            out.append(line)
    return Flat(result.exit_code, "\n".join(out) + ("\n" if out else ""), result.output)
