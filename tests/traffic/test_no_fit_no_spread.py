"""A plan with no spread of lengths whose pool is empty says so as "no spread", not "exact".

Found by task h90review: `kvplan fleet llama-3.1-70b --gpu h100 --peak-users 5000 --context 16k
--kv-dtype fp8` (70B's bf16 weights, 141,107,412,992 B = 131.42 GiB, on one 79.2 GiB H100)
printed "at 1.00% risk  0 (exact)" and JSON risk_method "exact", where a plan with a mean alone
is documented as `point-mass` ("no length spread given: as the mean", docs/fleet.md)."""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import Traffic, plan_traffic
from kvplan.traffic.lengths import fit_lognormal
from kvplan.units import DType

ARGS = ["fleet", "llama-3.1-70b", "--gpu", "h100", "--peak-users", "5000", "--context", "16k",
        "--kv-dtype", "fp8", "--allow-no-fit"]


def test_json_risk_method_is_point_mass_when_nothing_fits():
    import json

    res = CliRunner().invoke(app, [*ARGS, "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    assert row["weights_bytes"] == 141_107_412_992  # 70,553,706,496 params x 2 B
    assert row["fits"] is False and row["users_per_gpu_at_risk"] == 0
    assert row["risk_method"] == "point-mass"
    assert row["context_distribution"] == "mean"


def test_table_says_no_spread_not_exact():
    res = CliRunner().invoke(app, ARGS)
    assert res.exit_code == 0, res.output
    line = next(s for s in res.stdout.splitlines() if "risk" in s and s.startswith("  at "))
    assert line.split() == ["at", "1.00%", "risk", "0", "(no", "length", "spread", "given:",
                            "as", "the", "mean)"]


REQ = SizeRequest(model=load_model("llama-3.1-70b"), gpu=load_hardware("h100"),
                  context_tokens=16000, kv_dtype=DType.fp8)


def test_no_spread_empty_pool_is_point_mass():
    plan = plan_traffic(REQ, Traffic(peak_users=100))
    assert plan.fleet.size.kv_budget_bytes == 0 and plan.at_risk.users == 0
    assert plan.at_risk.method == "point-mass" and plan.at_risk.probability == 1.0


def test_spread_with_empty_pool_stays_exact():
    """With a spread of lengths the empty pool's P(overflow) = 1 is exact, as before."""
    spread = fit_lognormal({0.5: 1200, 0.95: 6000})
    plan = plan_traffic(REQ, Traffic(peak_users=100, lengths=spread))
    assert plan.at_risk.users == 0
    assert plan.at_risk.method == "exact" and plan.at_risk.probability == 1.0
