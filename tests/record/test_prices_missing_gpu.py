"""A price table that has no row for the planned GPU says what priced it instead.

Found by task h90review: `kvplan fleet llama-3-8b -n 100 --gpu h200 --prices p.yaml` with p.yaml
`h100: 2.5` printed "Cost $3.50/h" from the catalog (hardware_specs/h200-141gb.yaml
price_per_hour_usd 3.50, Nebius) without a word: the file the user gave did not apply and was
passed over in silence. Now a note names the GPU without a row and where the price came from
(the catalog, the deployment file, or none: no cost)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

BASE = ["fleet", "llama-3-8b", "-n", "100", "--context", "8192", "-f", "json"]


def _run(*args: str) -> tuple[list[dict[str, object]], list[str]]:
    res = CliRunner().invoke(app, [*BASE, *args])
    assert res.exit_code == 0, res.output
    notes = [line for line in res.stderr.splitlines() if line.startswith("note:")]
    return json.loads(res.stdout)["results"], notes


@pytest.fixture
def prices(tmp_path: Path) -> str:
    path = tmp_path / "p.yaml"
    path.write_text("h100: 2.5\n")
    return str(path)


def test_file_without_the_gpu_notes_the_catalog_price(prices: str):
    [row], notes = _run("--gpu", "h200", "--prices", prices)
    assert row["price_per_hour_usd"] == 3.5  # the catalog's, as before
    assert row["cost_per_hour_usd"] == 3.5  # one H200 holds 100 users of 8,192 tokens (108)
    assert notes == [f"note: command line: --prices {prices} has no price for h200-141gb; "
                     "priced at the catalog's $3.50 per GPU-hour (hardware_specs)"]


def test_gpu_without_any_price_says_no_cost(prices: str):
    [row], notes = _run("--gpu", "a40", "--prices", prices)  # a40: no price in its spec
    assert row["price_per_hour_usd"] is None and row["cost_per_hour_usd"] is None
    assert notes == [f"note: command line: --prices {prices} has no price for a40, nor has "
                     "the catalog: no cost is shown"]


def test_comma_list_notes_only_the_gpu_without_a_row(prices: str):
    rows, notes = _run("--gpu", "h100,h200", "--prices", prices)
    assert [r["price_per_hour_usd"] for r in rows] == [2.5, 3.5]
    assert notes == [f"note: command line: --prices {prices} has no price for h200-141gb; "
                     "priced at the catalog's $3.50 per GPU-hour (hardware_specs)"]


def test_gpu_usd_item_for_another_gpu_is_noted_too():
    [row], notes = _run("--gpu", "h200", "--price-per-hour", "h100=2")
    assert row["price_per_hour_usd"] == 3.5
    assert notes == ["note: command line: --price-per-hour has no price for h200-141gb; "
                     "priced at the catalog's $3.50 per GPU-hour (hardware_specs)"]


def test_a_row_that_applies_says_nothing(prices: str):
    [row], notes = _run("--gpu", "h100", "--prices", prices)
    assert row["price_per_hour_usd"] == 2.5 and notes == []


def test_deployment_file_price_is_named(tmp_path: Path, prices: str):
    plan = tmp_path / "plan.yaml"
    plan.write_text("apiVersion: kvplan/v1\nname: p\nmodel: llama-3-8b\nhardware:\n  gpu: h200\n"
                    "  price_per_hour_usd: 4.25\nengine:\n  max_model_len: 8192\n"
                    "traffic:\n  peak_concurrent_users: 100\n")
    res = CliRunner().invoke(app, ["fleet", str(plan), "--prices", prices, "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    assert row["price_per_hour_usd"] == 4.25
    assert [s for s in res.stderr.splitlines() if s.startswith("note:")] == [
        f"note: {plan}: --prices {prices} has no price for h200-141gb; priced at the file's "
        "hardware.price_per_hour_usd $4.25 per GPU-hour"]
