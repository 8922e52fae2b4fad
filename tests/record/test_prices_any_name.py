"""--price-per-hour keys are GPU names as --gpu takes them (task freshuser): a key was matched
as typed against the catalog name and aliases, so `--price-per-hour H100=1.25` was set aside
with a note and the catalog's $3.78 used. Two prices for one GPU under two names are refused."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()


def _price(*prices: str) -> tuple[int, str]:
    args = [a for p in prices for a in ("--price-per-hour", p)]
    result = invoke(RUNNER, "fleet", "llama-3-8b", "-n", "100", "--gpu", "h100", *args, "-f", "csv")
    if result.exit_code:
        return result.exit_code, result.output
    header, row = result.stdout.splitlines()[:2]
    return 0, dict(zip(header.split(","), row.split(","), strict=True))["price_per_hour_usd"]


@pytest.mark.parametrize("key", ["H100", "h100-sxm-80gb", "H100-SXM", "NVIDIA H100 80GB HBM3"])
def test_a_price_under_any_name_of_the_gpu_applies(key: str) -> None:
    assert _price(f"{key}=1.25") == (0, "1.25")  # the catalog's is 3.78


def test_two_prices_for_one_gpu_are_refused() -> None:
    code, out = _price("h100=1", "H100-SXM=5")
    assert code == 2
    assert out == ("error: --price-per-hour: h100=1 and H100-SXM=5 both price h100-sxm-80gb; "
                   "give one price for it\n")
