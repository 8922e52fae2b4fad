"""`size`, `fleet` and `fleet --search` on a narrow terminal, and colour on a dumb one (task
srefirst). At COLUMNS=60 a sweep's grid cut every figure to an ellipsis (`2,0…` for 2,000 tokens,
`54.3 …` for 54.3 GiB) and dropped columns past the edge (`fleet`'s TP and GPUs, the search's
$/h); now a table wider than the line prints each row as `header value` pairs, every figure
whole. TERM=dumb drew ANSI colours and was laid out at 80 columns whatever COLUMNS said."""

from __future__ import annotations

import io
import sys

import pytest
from rich.text import Text
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.cli.common import use_color
from kvplan.render.table import to_string

SWEEP = ["fleet", "llama-3-8b", "--gpu", "h100,h200,rtx-pro-6000-server", "--kv-dtype",
         "fp16,fp8", "-n", "20000", "--context", "8192", "--context-p50", "1200",
         "--context-p95", "6000", "--min-tokens-per-s-per-user", "50"]


def _lines(args: list[str], monkeypatch: pytest.MonkeyPatch, columns: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


def test_a_sweep_at_60_columns_keeps_every_figure_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(SWEEP, monkeypatch, 60)
    assert max(len(line) for line in lines) <= 60
    assert not any("…" in line for line in lines)
    text = " ".join(" ".join(lines).split())  # continuation indents folded
    # the same row the 80-column table gives: H100, fp16, 1,826-token mean (the lognormal of
    # p50 1,200 / p95 6,000 capped at 8,192), 208 users per GPU at 1% risk, 97 GPUs
    assert "GPU h100-sxm-80gb, KV fp16, alloc paged, TP 1, tokens 1,826," in text
    assert "pool/GPU 54.3 GiB, users/GPU 208, GPUs 97" in text
    assert "mean 241, @1.0% 208," in text and "bound memory, tok/s/user 50.9, GPUs 97" in text
    assert "GPU rtx-pro-6000-server, KV fp8" in text
    wide = _lines(SWEEP, monkeypatch, 100)  # where it fits, the table as before
    assert any(line.split()[:3] == ["GPU", "KV", "alloc"] for line in wide)
    assert any(line.split()[:2] == ["h100-sxm-80gb", "fp16"] and line.split()[-1] == "97"
               for line in wide)


def test_the_search_at_60_columns_keeps_its_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--avg-context",
                    "2000", "--search", "--search-gpus", "h100,h200", "--price-per-hour",
                    "h100=2", "--price-per-hour", "h200=3.5", "--min-tokens-per-s-per-user",
                    "40", "--top", "1"], monkeypatch, 60)
    assert max(len(line) for line in lines) <= 60
    # docs/fleet.md's row 5 on H100s: TP 2, fp8, 506 users per GPU, 40 GPUs at $2 = $80.00/h
    text = " ".join(" ".join(lines).split())  # continuation indents folded
    assert "# 1, GPU h100-sxm-80gb, TP 2, KV fp8, users/GPU 506, bound memory, GPUs 40," in text
    assert "$/h 80.00" in text


def test_a_dumb_terminal_gets_its_width_and_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    out = to_string([Text("x " * 50)], width=60, color=True)
    assert max(len(line) for line in out.splitlines()) <= 60  # was 80 under TERM=dumb
    monkeypatch.setattr(sys, "stdout", type("Tty", (io.StringIO,), {"isatty": lambda s: True})())
    monkeypatch.delenv("NO_COLOR")
    assert not use_color()
    monkeypatch.setenv("TERM", "xterm")
    assert use_color()
    monkeypatch.setenv("NO_COLOR", "")  # no-color.org: present and empty does not count
    assert use_color()
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color()


def test_the_search_folds_its_gpu_name_where_that_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Down to the width its GPU column can fold to (64 here: the table's natural width less the 13
    columns 'rtx-pro-6000-server' gives up folded to 6), the search keeps its table and folds the name,
    as it did before; below, pairs."""
    args = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--avg-context", "2000",
            "--search", "--search-gpus", "rtx-pro-6000-server,h100", "--top", "1",
            "--price-per-hour", "h100=2", "--price-per-hour", "rtx-pro-6000-server=1.5"]
    folded = _lines(args, monkeypatch, 66)
    assert folded[2].split() == ["#", "GPU", "TP", "KV", "users/GPU", "bound", "GPUs",
                                 "tok/s/user", "$/h"]
    # 653 users per GPU at TP 4 with an fp8 cache, 32 GPUs at $1.50 = $48.00/h
    assert folded[4].split()[2:] == ["4", "fp8", "653", "memory", "32", "20.0", "48.00"]
    assert max(len(line) for line in folded) <= 66
    assert _lines(args, monkeypatch, 64)[2].split()[:2] == ["#", "GPU"]
    pairs = " ".join(" ".join(_lines(args, monkeypatch, 63)).split())
    assert "# 1, GPU rtx-pro-6000-server, TP 4, KV fp8, users/GPU 653," in pairs
