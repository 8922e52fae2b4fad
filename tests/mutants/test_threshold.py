"""The PASS/FAIL threshold: required users = ceil(peak x (1 + headroom)) on every path.

1,001 x 1.15 = 1,151.15 -> 1,152 (rounded down it would be 1,151). Every path must say 1,152:
`fleet` (capacity and traffic), `check` (deploy and verdict), and the plan objects themselves.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.plan import fleet
from kvplan.deploy import load_deployment
from kvplan.specs import load_hardware, load_model
from kvplan.traffic.plan import Traffic, plan_traffic

PEAK, HEADROOM, REQUIRED = 1001, Fraction(15, 100), 1152  # ceil(1,151.15)


def _request() -> SizeRequest:
    return SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                       context_tokens=8192)


def test_capacity_fleet_requires_1152():
    assert fleet(_request(), PEAK, HEADROOM).required_users == REQUIRED


def test_traffic_requires_1152():
    assert Traffic(peak_users=PEAK, headroom=HEADROOM).required_users == REQUIRED


def test_traffic_plan_buys_replicas_for_1152():
    # a stated 1.5 GiB pool holds one 8,192-token sequence (1 GiB: 8,192 x 131,072 B), so the
    # plan needs one replica per required user: 1,152 replicas, not 1,151
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192, kv_budget_bytes=3 * 2**29)
    plan = plan_traffic(req, Traffic(peak_users=PEAK, headroom=HEADROOM))
    assert plan.planned_users_per_replica == 1
    assert plan.replicas == REQUIRED and plan.gpus_needed == REQUIRED


def test_fleet_cli_requires_1152(cli):
    doc = cli("fleet", "llama-3-8b", "--gpu", "h100", "--context", "8192", "--peak-users", "1001",
              "--headroom", "0.15", "--kv-budget-gib", "1.5")
    assert doc["required_users"] == REQUIRED
    assert doc["users_per_replica"] == 1  # 1.5 GiB // 1 GiB
    assert doc["replicas"] == REQUIRED and doc["gpus_needed"] == REQUIRED


def _deployment(tmp_path: Path, count: int, spread: bool = False) -> Path:
    lengths = "    mean: 8192\n" if not spread else "    p50: 4096\n    p95: 8192\n"
    path = tmp_path / f"dep-{count}-{int(spread)}.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: threshold\nmodel: llama-3-8b\n"
        f"hardware:\n  gpu: h100\n  count: {count}\n"
        "engine:\n  max_model_len: 8192\n  kv_cache_dtype: fp16\n  kv_budget_gib: 1.5\n"
        "traffic:\n  peak_concurrent_users: 1001\n  context_tokens:\n" + lengths +
        "requirement:\n  headroom_pct: 15\n"
    )
    return path


def test_deploy_requires_1152(tmp_path: Path):
    assert load_deployment(_deployment(tmp_path, 1152)).required_users == REQUIRED


@pytest.mark.parametrize(("count", "verdict"), [(1151, "FAIL"), (1152, "PASS")])
def test_check_verdict_at_the_boundary(cli, tmp_path: Path, count: int, verdict: str):
    # one 8,192-token sequence per GPU (1.5 GiB pool, 1 GiB per sequence): `count` GPUs hold
    # `count` users; 1,151 < 1,152 fails, 1,152 passes
    doc = cli("check", str(_deployment(tmp_path, count)))
    (result,) = doc["results"]
    assert result["users_required"] == REQUIRED
    assert result["users_held"] == count
    assert result["verdict"] == verdict


def test_check_with_a_spread_requires_1152(cli, tmp_path: Path):
    (result,) = cli("check", str(_deployment(tmp_path, 1152, spread=True)))["results"]
    assert result["users_required"] == REQUIRED
