"""`kvplan fleet` with traffic options, through typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import Traffic, fit_lognormal, plan_traffic
from tests.conftest import invoke, results

ROOT = Path(__file__).resolve().parents[2]
CHATBOT = str(ROOT / "examples" / "support-chatbot.yaml")


def test_chatbot_file_keeps_every_existing_key_and_value(runner):
    result = invoke(runner, "fleet", CHATBOT, "-f", "json")
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert data["users_per_gpu"] == 245
    assert data["replicas"] == 82
    assert data["gpus_needed"] == 82
    assert data["users_per_gpu_mean"] == 245
    assert data["users_per_gpu_at_risk"] == 245  # no spread given: the mean answer
    assert data["users_per_gpu_worst_case"] == 60
    assert data["risk_method"] == "point-mass"
    assert data["binding_constraint"] == "memory"
    price = load_hardware("h100").price_per_hour_usd
    expected_cost = None if price is None else round(82 * price, 2)
    assert data["cost_per_hour_usd"] == (pytest.approx(expected_cost) if price else None)
    for key in ("decode_tokens_per_s_per_user", "step_time_s", "ttft_s", "risk"):
        assert key in data


def test_percentiles_give_three_answers(runner):
    args = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--kv-budget-gib", "60",
            "--context-p50", "1200", "--context-p95", "6000", "--risk", "0.01", "-f", "json"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert (data["users_per_gpu_worst_case"], data["users_per_gpu_at_risk"],
            data["users_per_gpu_mean"]) == (60, 231, 267)
    assert data["gpus_needed"] == 87  # ceil(20,000 / 231)
    assert data["risk_method"] == "exact"
    assert data["overflow_probability"] <= 0.01
    assert data["context_distribution"] == "lognormal"


def test_slo_binds_and_says_so(runner):
    args = ["fleet", CHATBOT, "--min-tokens-per-s-per-user", "50", "-f", "json"]
    data = results(invoke(runner, *args).stdout)
    h100 = load_hardware("h100")
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=h100, context_tokens=8192,
                      avg_context_tokens=2000, kv_budget_bytes=60 * 1024**3)
    from fractions import Fraction

    plan = plan_traffic(req, Traffic(peak_users=20_000, min_tokens_per_s_per_user=Fraction(50)))
    assert data["binding_constraint"] == plan.binding_constraint
    assert data["users_per_gpu_planned"] == plan.planned_users_per_replica
    assert data["gpus_needed"] == plan.gpus_needed
    assert data["decode_tokens_per_s_per_user"] >= 50


def test_arrival_rate_by_littles_law(runner):
    args = ["fleet", "llama-3-8b", "--arrival-rate", "50", "--mean-duration-s", "300",
            "--peak-to-mean", "1.5", "--context", "8192", "--avg-context", "2000", "-f", "json"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    assert results(result.stdout)["peak_users"] == 22_500


def test_sample_file(runner, tmp_path: Path):
    sample = tmp_path / "lengths.jsonl"
    sample.write_text("\n".join(json.dumps({"prompt_tokens": 900 + 37 * i, "output_tokens": 150})
                                for i in range(60)) + "\n")
    args = ["fleet", "llama-3-8b", "-n", "1000", "--context", "8192",
            "--context-sample", str(sample), "-f", "json"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert data["context_distribution"] == "empirical"
    assert data["users_per_gpu_worst_case"] <= data["users_per_gpu_at_risk"]


def test_deployment_with_percentiles_and_slo(runner, tmp_path: Path):
    dep = tmp_path / "dep.yaml"
    dep.write_text(
        "apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware: {gpu: h100}\n"
        "engine: {max_model_len: 8192, kv_cache_dtype: fp16, kv_budget_gib: 60}\n"
        "traffic:\n  peak_concurrent_users: 20000\n  risk: 0.01\n"
        "  context_tokens: {p50: 1200, p95: 6000}\n"
    )
    result = invoke(runner, "fleet", str(dep), "-f", "json")
    assert result.exit_code == 0, result.output
    assert results(result.stdout)["users_per_gpu_at_risk"] == 231


def test_deployment_needs_some_length(runner, tmp_path: Path):
    dep = tmp_path / "dep.yaml"
    dep.write_text(
        "apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware: {gpu: h100}\n"
        "traffic:\n  peak_concurrent_users: 10\n  context_tokens: {p95: 6000}\n"
    )
    result = invoke(runner, "fleet", str(dep))
    assert result.exit_code == 2
    assert "dep.yaml" in result.output and "p50/p95/p99" in result.output


def test_bad_inputs_exit_2(runner, tmp_path: Path):
    assert invoke(runner, "fleet", "llama-3-8b", "-n", "10", "--risk", "2").exit_code == 2
    one = invoke(runner, "fleet", "llama-3-8b", "-n", "10", "--context-p95", "900")
    assert one.exit_code == 2 and "at least two of p50/p95/p99" in one.output
    rate = invoke(runner, "fleet", "llama-3-8b", "--arrival-rate", "3")
    assert rate.exit_code == 2 and "--mean-duration-s" in rate.output
    bad = tmp_path / "x.csv"
    bad.write_text("tokens\nmany\n")
    r = invoke(runner, "fleet", "llama-3-8b", "-n", "10", "--context-sample", str(bad))
    assert r.exit_code == 2 and "x.csv: line 2" in r.output
    assert "Traceback" not in r.output


def test_table_shows_all_three_answers(runner):
    args = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--kv-budget-gib", "60",
            "--context-p50", "1200", "--context-p95", "6000", "--price-per-hour", "2"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "mean context 267 (every conversation at 1,826 tokens)" in out
    assert "at 1.00% risk 231 (exact)" in out
    assert "worst case 60 (every conversation at 8,192 tokens)" in out
    assert "planned 231 (memory binds)" in out
    assert "GPUs needed 87" in out
    assert "Cost $174.00/h ($2 per GPU-hour)" in out


def test_search_csv_and_unpriced(runner):
    args = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--avg-context", "2000",
            "--search", "--search-gpus", "h100,h200,h100-nvl-94gb", "--price-per-hour", "h100=2",
            "--price-per-hour", "h200=5", "-f", "csv"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert rows[0]["rank"] == "1" and rows[0]["gpu"] == "h100-sxm-80gb"
    ranked = [r for r in rows if r["rank"]]
    costs = [float(r["cost_per_hour_usd"]) for r in ranked]
    assert costs == sorted(costs)
    unpriced = [r for r in rows if not r["rank"]]
    assert load_hardware("h100-nvl-94gb").price_per_hour_usd is None  # no price was sourced
    assert unpriced and {r["gpu"] for r in unpriced} == {"h100-nvl-94gb"}
    assert all(r["priced"] == "false" for r in unpriced)


def test_search_table(runner):
    args = ["fleet", CHATBOT, "--search", "--search-gpus", "h100,h200", "--price-per-hour", "h100=2",
            "--price-per-hour", "h200=3.5"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    assert "cheapest first" in result.output
    assert "configurations tried" in result.output


def test_fit_used_by_cli_matches_core():
    d = fit_lognormal({0.5: 1200, 0.95: 6000})
    assert round(d.mean_tokens(8192)) == 1826


def test_grid_adds_a_traffic_table(runner):
    args = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--kv-budget-gib", "60",
            "--context-p50", "1200", "--context-p95", "6000", "--kv-dtype", "fp16,fp8"]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    rows = [" ".join(line.split()) for line in result.output.splitlines()]
    assert "h100-sxm-80gb fp16 1 267 231 60 231 memory 47.0 87" in rows


def test_deployment_sample_is_read_relative_to_the_file(runner, tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "req.csv").write_text(
        "prompt_tokens,output_tokens\n" + "".join(f"{500 + 50 * i},100\n" for i in range(40))
    )
    dep = tmp_path / "dep.yaml"
    dep.write_text(
        "apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware: {gpu: h100}\n"
        "engine: {max_model_len: 8192, kv_cache_dtype: fp16, kv_budget_gib: 60}\n"
        "traffic:\n  peak_concurrent_users: 1000\n  context_tokens: {sample: data/req.csv}\n"
    )
    result = invoke(runner, "fleet", str(dep), "-f", "json")
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert data["context_distribution"] == "empirical"
    assert data["context_mean_tokens"] == 600 + 25 * 39  # mean of 600 .. 2,550 tokens
    # the longest conversation holds 2,550 tokens = 160 blocks of 2 MiB: 192 fit for sure
    assert data["users_per_gpu_at_risk"] >= 30_720 // 160


def test_prices_file_yaml_and_csv(runner, tmp_path: Path):
    yml = tmp_path / "prices.yaml"
    yml.write_text("h100: 2.0\nh200-141gb: 3.5\n")
    base = ["fleet", CHATBOT, "--search", "--search-gpus", "h100,h200", "-f", "csv"]
    rows = list(csv.DictReader(io.StringIO(invoke(runner, *base, "--prices", str(yml)).output)))
    assert all(r["priced"] == "true" for r in rows)
    assert rows[0]["rank"] == "1"
    first = rows[0]
    assert float(first["cost_per_hour_usd"]) == int(first["gpus_needed"]) * (
        2.0 if first["gpu"] == "h100-sxm-80gb" else 3.5)
    csv_prices = tmp_path / "prices.csv"
    csv_prices.write_text("gpu,price_per_hour_usd\nh100,2.0\nh200,3.5\n")
    again = invoke(runner, *base, "--prices", str(csv_prices))
    assert list(csv.DictReader(io.StringIO(again.output))) == rows
    bad = tmp_path / "bad.yaml"
    bad.write_text("h100: cheap\n")
    result = invoke(runner, *base, "--prices", str(bad))
    assert result.exit_code == 2 and "bad.yaml: h100: 'cheap'" in result.output


def test_avg_context_with_one_percentile_plans_as_the_deployment_file(runner):
    """--avg-context 2000 --context-p95 7000 fits the same lognormal a deployment file's
    {mean: 2000, p95: 7000} gives (capped mean = the stated mean), so the answers agree."""
    args = ["fleet", "llama-3-8b", "--gpu", "h100", "--peak-users", "2400", "--headroom", "0.1",
            "--avg-context", "2000", "--context-p95", "7000", "--context", "8192",
            "--memory-utilization", "0.9", "-f", "json"]
    cli = results(invoke(runner, *args).stdout)
    dep = results(invoke(runner, "fleet", str(ROOT / "examples" / "deployments" /
                                              "chat-llama3-8b.yaml"), "-f", "json").stdout)
    for key in ("users_per_gpu_at_risk", "gpus_needed", "context_mean_tokens"):
        assert cli[key] == dep[key], key
    assert cli["gpus_needed"] == 14 and cli["users_per_gpu_at_risk"] == 189
    one = invoke(runner, "fleet", "llama-3-8b", "--peak-users", "10", "--context-p95", "7000")
    assert one.exit_code == 2
    assert "give mean, at least two of p50/p95/p99, or a sample file" in one.output
    assert "--avg-context" in one.output  # the flags that would complete it are named
    # a mean with two percentiles: as in a file, the percentiles decide and a note says so
    # (the lognormal through p50 1,200 and p95 7,000: sigma = ln(7000/1200)/1.645 = 1.07, mean
    # 1200 x e^(1.07^2/2) = 2,130 before the 8,192 cap, far from the stated 1,000)
    both = invoke(runner, "fleet", "llama-3-8b", "--peak-users", "10", "--avg-context", "1000",
                  "--context-p50", "1200", "--context-p95", "7000", "-f", "json")
    assert both.exit_code == 0, both.output
    assert "sized by the percentiles" in both.stderr


def test_a_broken_target_is_named_before_the_missing_load(runner, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kvplan/v1\nhardware: {gpu: h100, count: 1\n")
    result = invoke(runner, "fleet", str(bad))
    assert result.exit_code == 2
    assert "malformed YAML" in result.output and "--peak-users" not in result.output


def test_one_headline_per_replica_and_per_gpu_at_tp2(runner):
    # Llama-3.1-70B at TP 2 on H100 with a 1% risk: the replica's users and the GPU's users are
    # the same planned figure (at risk), and the GPU count is divided by it:
    # replicas = ceil(20,000 / users_per_replica), gpus = replicas x 2. The mean-based figure
    # stays in the breakdown only (it was left in users_per_replica before).
    result = runner.invoke(app, ["fleet", "llama-3.1-70b", "--gpu", "h100", "--tp", "2", "-n",
                                 "20000", "--context-p50", "1200", "--context-p95", "6000",
                                 "--risk", "0.01", "-f", "json"])
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert data["users_per_gpu_basis"] == "at_risk"
    assert data["users_per_replica"] == 3 < 2 * data["users_per_gpu_mean"]
    assert data["users_per_gpu"] == data["users_per_replica"] / 2 == data["users_per_gpu_at_risk"]
    assert data["replicas"] == -(-20_000 // data["users_per_replica"]) == 6_667
    assert data["gpus_needed"] == 2 * data["replicas"] == 13_334
