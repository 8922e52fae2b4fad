"""`kvplan fleet --search --top N` (task h46top): the N first rows of the ranked search, in the
table, CSV and JSON alike, and a footer saying how many were tried and how many are shown.

The search below: llama-3-8b, 20,000 conversations, --search-gpus h100,h100-nvl-94gb, h100 at
$2/h and h100-nvl-94gb unpriced. Both GPUs take TP 1, 2, 4, 8 (all divide 32 query heads) and
fp16 or fp8 (both Hopper): 2 x 4 x 2 = 16 configurations tried, none refused, so 16 carry the
load: 8 ranked h100 rows (cost = GPUs x $2) and then the 8 unpriced h100-nvl-94gb rows.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.conftest import invoke

SEARCH = ("fleet", "llama-3-8b", "-n", "20000", "--search", "--search-gpus",
          "h100,h100-nvl-94gb", "--price-per-hour", "h100=2")

TOP3 = """\
llama-3-8b: 20,000 conversations, cheapest first

 #  GPU            TP  KV   users/GPU  bound   GPUs  tok/s/user     $/h
 ──────────────────────────────────────────────────────────────────────
 1  h100-sxm-80gb   8  fp8     134.75  memory   152        45.1  304.00
 2  h100-sxm-80gb   4  fp8        131  memory   156        45.1  312.00
 3  h100-sxm-80gb   2  fp8      123.5  memory   162        45.1  324.00

unpriced (no price in the spec or given): h100-nvl-94gb; add --price-per-hour
GPU=USD or --prices FILE
16 configurations tried, 0 cannot carry 20,000 conversations
showing 3 of the 16 configurations that carry it; omit --top for all
KV pool derived from each GPU (memory x utilization - weights - reserve)
"""


def test_top_3_table_is_the_three_cheapest_and_says_so(runner):
    """$/h = GPUs x $2: 152 x 2 = 304.00, 156 x 2 = 312.00, 162 x 2 = 324.00, the three
    cheapest of the 8 priced rows; 3 of the 16 shown."""
    result = invoke(runner, *SEARCH, "--top", "3")
    assert result.exit_code == 0, result.output
    assert result.output == TOP3
    full = invoke(runner, *SEARCH).output
    assert "showing" not in full  # without --top nothing is cut and nothing is said


def test_top_keeps_the_first_rows_of_the_full_csv(runner):
    """--top 10 crosses from the 8 ranked h100 rows into the unpriced ones: the CSV is the full
    search's header and first 10 rows, byte for byte (ranks 1..8, then two with no rank)."""
    full = invoke(runner, *SEARCH, "-f", "csv").output.splitlines()
    top = invoke(runner, *SEARCH, "-f", "csv", "--top", "10").output.splitlines()
    assert len(full) == 1 + 16
    assert top == full[:11]
    rows = list(csv.DictReader(io.StringIO("\n".join(top))))
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4", "5", "6", "7", "8", "", ""]
    assert [r["gpu"] for r in rows[8:]] == ["h100-nvl-94gb", "h100-nvl-94gb"]


def test_top_json_keeps_n_results_and_says_how_many_carried(runner):
    """JSON: 2 results, `top` 2 and `configurations_carrying` 16 (the rows before the cut);
    rejected and unpriced_gpus are the search's, not cut."""
    full = json.loads(invoke(runner, *SEARCH, "-f", "json").stdout)
    top = json.loads(invoke(runner, *SEARCH, "-f", "json", "--top", "2").stdout)
    assert top["results"] == full["results"][:2]
    assert [r["cost_per_hour_usd"] for r in top["results"]] == [304.0, 312.0]  # 152, 156 x $2
    assert (top["top"], top["configurations_carrying"]) == (2, 16)
    assert top["unpriced_gpus"] == ["h100-nvl-94gb"] and top["rejected"] == []
    assert "top" not in full and "configurations_carrying" not in full


def test_top_at_or_over_the_count_cuts_nothing(runner):
    """--top 16 (= every row) and --top 50 print what no --top prints."""
    full = invoke(runner, *SEARCH).output
    assert invoke(runner, *SEARCH, "--top", "16").output == full
    assert invoke(runner, *SEARCH, "--top", "50").output == full


@pytest.mark.parametrize(("argv", "line"), [
    (("fleet", "llama-3-8b", "-n", "2000", "--top", "5"),
     "error: --top: applies only with --search\n"),
    ((*SEARCH, "--top", "0"), "error: --top: 0 is not in the range x>=1.\n"),
    ((*SEARCH, "--top", "-1"), "error: --top: -1 is not in the range x>=1.\n"),
])
def test_top_refusals_are_one_line_exit_2(runner, argv, line):
    result = invoke(runner, *argv)
    assert result.exit_code == 2
    assert result.output == line
