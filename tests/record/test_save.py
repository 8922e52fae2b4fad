"""`--save` turns an exploration into a CI gate: `kvplan check` passes on exactly the saved plan,
and planning the saved file reproduces the same JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kvplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in [*ROOT.glob("examples/*.yaml"), *ROOT.glob("examples/*/*.yaml")]
                  if "apiVersion: kvplan/v1" in p.read_text())

# flag combinations on a model name (a record from flags alone), chosen to cover each kind of
# input: a mean, percentiles, a rate, an SLO, an engine, TP, fp8, headroom and min_users
COMBOS = [
    ["llama-3-8b", "--peak-users", "2000", "--avg-context", "2000", "--context", "8192"],
    ["llama-3-8b", "--peak-users", "5000", "--context-p50", "1200", "--context-p95", "6000",
     "--context", "8192", "--risk", "0.02", "--headroom", "0.1"],
    ["qwen2.5-7b", "--arrival-rate", "4", "--mean-duration-s", "300", "--peak-to-mean", "1.5",
     "--avg-context", "3000", "--kv-dtype", "fp8", "--min-users", "2000"],
    ["llama-3.1-70b", "--gpu", "h200", "--tp", "4", "--peak-users", "800", "--avg-context",
     "4000", "--context", "16384", "--engine", "vllm"],
    ["llama-3-8b", "--peak-users", "20000", "--avg-context", "1800", "--context-p95", "6000",
     "--context", "8192", "--min-tokens-per-s-per-user", "50", "--kv-budget-gib", "60"],
]


def _fleet(runner: CliRunner, *args: str) -> list[dict]:
    res = runner.invoke(app, ["fleet", *args, "-f", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"]


def _save_check_replan(args: list[str], tmp_path: Path) -> dict:
    runner = CliRunner()
    saved = tmp_path / "planned.yaml"
    first = _fleet(runner, *args, "--save", str(saved))
    assert saved.exists()
    data = yaml.safe_load(saved.read_text())
    assert data["apiVersion"] == "kvplan/v1"
    assert data["hardware"]["count"] == first[0]["gpus_needed"]
    check = runner.invoke(app, ["check", str(saved), "-f", "json"])
    report = json.loads(check.stdout)
    assert check.exit_code == 0, check.output
    (row,) = report["results"]
    assert row["verdict"] == "PASS"
    assert row["gpus"] == first[0]["gpus_needed"]
    # the same users per replica: check's held users are replicas x fleet's planned per replica
    per_replica = first[0]["users_per_gpu"] * first[0]["gpus_per_replica"]
    assert row["users_held"] == first[0]["replicas"] * per_replica
    assert _fleet(runner, str(saved)) == first
    return first[0]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_saves_checks_and_replans(example: Path, tmp_path: Path):
    _save_check_replan([str(example)], tmp_path)


@pytest.mark.parametrize("args", COMBOS, ids=lambda a: " ".join(a[:3]))
def test_flag_combinations_save_check_and_replan(args: list[str], tmp_path: Path):
    _save_check_replan(args, tmp_path)


def test_size_save_is_one_full_replica(tmp_path: Path):
    """size plans one replica: the saved file holds exactly what it holds, on its GPUs."""
    runner = CliRunner()
    saved = tmp_path / "one.yaml"
    res = runner.invoke(app, ["size", "llama-3-8b", "--tp", "2", "--avg-context", "2000",
                              "--context", "8192", "-f", "json", "--save", str(saved)])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["results"][0]
    data = yaml.safe_load(saved.read_text())
    assert data["hardware"]["count"] == 2 == row["gpus_per_replica"]
    assert data["traffic"]["peak_concurrent_users"] == row["users_per_replica"]
    check = runner.invoke(app, ["check", str(saved)])
    assert check.exit_code == 0, check.output
    again = runner.invoke(app, ["size", str(saved), "-f", "json"])
    assert json.loads(again.stdout)["results"][0] == row


def test_save_refuses_many_records_and_nothing_planned(tmp_path: Path):
    runner = CliRunner()
    many = runner.invoke(app, ["fleet", "llama-3-8b", "-n", "10", "--gpu", "h100,h200",
                               "--save", str(tmp_path / "x.yaml")])
    assert many.exit_code == 2 and "writes one record" in many.output
    none = runner.invoke(app, ["size", "llama-3.1-70b", "--gpu", "l4", "--save",
                               str(tmp_path / "y.yaml")])
    assert none.exit_code == 2 and "nothing fits" in none.output
    assert not (tmp_path / "y.yaml").exists()


def test_search_save_writes_the_cheapest_configuration(tmp_path: Path):
    runner = CliRunner()
    saved = tmp_path / "best.yaml"
    args = ["llama-3-8b", "-n", "20000", "--context", "8192", "--avg-context", "2000",
            "--search", "--search-gpus", "h100,h200", "--price-per-hour", "h100=2",
            "--price-per-hour", "h200=5"]
    res = runner.invoke(app, ["fleet", *args, "-f", "json", "--save", str(saved)])
    assert res.exit_code == 0, res.output
    best = json.loads(res.stdout)["results"][0]
    data = yaml.safe_load(saved.read_text())
    assert data["hardware"]["gpu"] == best["gpu"] and data["hardware"]["count"] == best["gpus_needed"]
    assert runner.invoke(app, ["check", str(saved)]).exit_code == 0
