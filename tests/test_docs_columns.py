"""Every column `size` and `fleet` write as CSV has its row in docs/fleet.md's column table
(task srefirst: `pp`, `fits`, `memory_utilization`, `headroom_fraction`,
`context_distribution` and others were named in no doc; tests/test_docs_json_keys.py only
finds a key's word somewhere in the docs). A row names its columns in backticks in its first
cell; `x` (`_low`/`_high`) names x_low and x_high too. The CSV has one header line, the same
columns for every row, and no markup."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

DOC = Path(__file__).resolve().parents[1] / "docs" / "fleet.md"
RUNS = [
    ["size", "llama-3-8b", "--gpu", "h100,h200", "--context", "8192", "--avg-context", "2000"],
    ["size", "llama-3.1-8b", "--engine", "vllm", "--context", "8192"],
    ["fleet", "llama-3-8b", "-n", "100", "--context", "8192", "--context-p50", "1000",
     "--context-p95", "4000", "--min-tokens-per-s-per-user", "30"],
    ["fleet", "llama-3.1-8b", "-n", "100", "--engine", "sglang", "--context", "8192"],
    ["fleet", "llama-3-8b", "-n", "100", "--context", "8192", "--search", "--search-gpus",
     "h100,a40"],
]


def _table() -> set[str]:
    text = DOC.read_text()
    section = text[text.index("## CSV and JSON columns"):]
    named: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        names = re.findall(r"`([a-z][a-z0-9_]*)`", cell)
        named |= set(names)
        for base in re.findall(r"`([a-z][a-z0-9_]*)` \(`_low`/`_high`\)", cell):
            named |= {f"{base}_low", f"{base}_high"}
    return named


@pytest.mark.parametrize("args", RUNS, ids=lambda a: " ".join(a[:2] + a[-1:]))
def test_every_csv_column_has_its_row(args: list[str]) -> None:
    res = CliRunner().invoke(app, [*args, "-f", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    header = rows[0]
    assert len(rows) > 1 and all(len(row) == len(header) for row in rows)
    assert not any(ch in res.stdout for ch in "\x1b│─…")  # no colour, box or ellipsis
    assert sorted(set(header) - _table()) == []


def test_the_table_names_no_column_that_is_not_written() -> None:
    written: set[str] = set()
    for args in RUNS:
        res = CliRunner().invoke(app, [*args, "-f", "csv"])
        written |= set(next(csv.reader(io.StringIO(res.stdout))))
    assert sorted(_table() - written) == []
