"""`kvplan check` judges a deployment with a spread of lengths or an SLO as `kvplan fleet` plans
it: the same users per replica (overflow risk, SLO), so the gate and the planner agree."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
# every shipped kvplan/v1 file, with hardware.count set to what `kvplan fleet` plans
V1_EXAMPLES = [
    "chatbot-traffic.yaml",  # p50 + p95 (lognormal), 1% risk, 50 tok/s SLO
    "kvplan-v1-annotated.yaml",  # mean + p95, TP 4
    "support-chatbot.yaml",  # a mean alone
    "deployments/batch-qwen25-7b-fp8.yaml",  # mean + p95, arrival rate
    "deployments/chat-llama3-8b.yaml",  # mean + p95, headroom
]


def fleet_json(runner: CliRunner, path: Path) -> dict:
    result = invoke(runner, "fleet", str(path), "-f", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["results"][0]  # fleet JSON: {"results": [...]}
    return data[0] if isinstance(data, list) else data


def check_json(runner: CliRunner, path: Path) -> tuple[int, dict]:
    result = invoke(runner, "check", str(path), "--format", "json")
    return result.exit_code, json.loads(result.stdout)["results"][0]


@pytest.mark.parametrize("name", V1_EXAMPLES)
def test_check_and_fleet_agree_on_every_example(
    runner: CliRunner, tmp_path: Path, name: str
) -> None:
    path = EXAMPLES / name
    plan = fleet_json(runner, path)
    doc = yaml.safe_load(path.read_text())
    per = doc.get("parallel", {}).get("tensor", 1) * doc.get("parallel", {}).get("pipeline", 1)
    assert plan["gpus_needed"] == doc["hardware"]["count"]
    code, rec = check_json(runner, path)
    assert code == 0 and rec["verdict"] == "PASS"
    assert rec["users_per_replica"] == round(plan["users_per_gpu_planned"] * per)
    # one replica fewer than fleet plans fails the gate, with fleet's count as a fix
    fewer = tmp_path / Path(name).name
    doc["hardware"]["count"] -= per
    fewer.write_text(yaml.safe_dump(doc))
    code, rec = check_json(runner, fewer)
    assert code == 1 and rec["verdict"] == "FAIL"
    more = [f for f in rec["fixes"] if f["change"] == "more_gpus"]
    assert more and more[0]["to"]["gpus"] == plan["gpus_needed"]


def test_overflow_risk_decides_and_is_explained(runner: CliRunner, tmp_path: Path) -> None:
    doc = yaml.safe_load((EXAMPLES / "deployments/chat-llama3-8b.yaml").read_text())
    doc["hardware"]["count"] = 12  # the mean alone would hold 12 x 222 = 2,664 >= 2,640
    path = tmp_path / "chat.yaml"
    path.write_text(yaml.safe_dump(doc))
    result = flat(invoke(runner, "check", str(path)))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "holds 2,268 users < 2,640 required" in lines[0]
    assert lines[1] == ("      at 1.00% overflow risk a replica holds 189 conversations (222 if "
                        "every one had the mean length)")
    _, rec = check_json(runner, path)
    basis = rec["traffic_basis"]
    assert basis == {
        "users_per_replica_at_mean": 222, "users_per_replica_at_risk": 189,
        "overflow_risk": 0.01, "risk_method": "exact", "users_per_replica_slo": None,
        "slo_tokens_per_s_per_user": None,
    }
    assert rec["limited_by"] == "overflow_risk"


def test_the_slo_decides_and_is_explained(runner: CliRunner, tmp_path: Path) -> None:
    doc = yaml.safe_load((EXAMPLES / "chatbot-traffic.yaml").read_text())
    doc["hardware"]["count"] = 80
    path = tmp_path / "slo.yaml"
    path.write_text(yaml.safe_dump(doc))
    result = flat(invoke(runner, "check", str(path)))
    assert result.exit_code == 1
    assert ("      the 50 tokens/s per user SLO caps a replica at 212 conversations (memory "
            "holds 231 at 1.00% risk)") in result.output.splitlines()
    assert "hardware.count: 80 -> 95" in result.output


def test_a_mean_alone_is_judged_by_the_mean(runner: CliRunner) -> None:
    _, rec = check_json(runner, EXAMPLES / "support-chatbot.yaml")
    assert rec["traffic_basis"] is None and rec["limited_by"] == "kv_cache"
    assert rec["users_per_replica"] == 245  # 60 GiB / (2,000 x 131,072 B)


def test_a_tail_no_lognormal_fits_falls_back_to_the_mean_with_a_note(
    runner: CliRunner, tmp_path: Path
) -> None:
    doc = yaml.safe_load((EXAMPLES / "deployments/chat-llama3-8b.yaml").read_text())
    doc["traffic"]["context_tokens"] = {"mean": 1000, "p95": 8000}  # 8x: beyond any lognormal
    doc["hardware"]["count"] = 12
    path = tmp_path / "heavy.yaml"
    path.write_text(yaml.safe_dump(doc))
    result = flat(invoke(runner, "check", str(path)))
    assert result.exit_code == 0, result.output
    assert ("note: traffic.context_tokens: no lognormal with p95 8,000 and lengths capped at "
            "8,192 has a mean of 1,000") in result.output
    assert "sized by the mean alone (no overflow risk computed)" in result.output
    fleet = invoke(runner, "fleet", str(path))
    assert fleet.exit_code == 0
    assert "sized by the mean alone" in fleet.stderr


def test_fit_keeps_the_stated_mean_of_capped_lengths() -> None:
    from kvplan.traffic.lengths import fit_lognormal_mean

    d = fit_lognormal_mean(2000, 0.95, 7000, 8192)
    assert math.isclose(d.quantile(0.95), 7000, rel_tol=1e-12)
    assert math.isclose(d.mean_tokens(8192), 2000, rel_tol=1e-9)


def test_fleet_and_check_require_the_same_users(runner: CliRunner, tmp_path: Path) -> None:
    """required = max(ceil(peak x (1 + headroom)), min_users) in both; fleet used to apply the
    headroom to min_users as well (660 here)."""
    path = tmp_path / "floor.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: floor\nmodel: llama-3-8b\nhardware: {gpu: h100, count: 3}\n"
        "traffic: {peak_concurrent_users: 100, context_tokens: {mean: 2000}}\n"
        "requirement: {headroom_pct: 10, min_users: 600}\n"
    )
    plan = fleet_json(runner, path)
    _, rec = check_json(runner, path)
    assert plan["required_users"] == rec["users_required"] == 600
    table = invoke(runner, "fleet", str(path))
    assert "  required              600 (min_users)" in table.stdout.splitlines()


def test_manifest_annotations_carry_the_risk_and_the_slo(
    runner: CliRunner, tmp_path: Path
) -> None:
    text = (EXAMPLES / "k8s" / "vllm-llama3-8b.yaml").read_text()
    text = text.replace('    kvplan.io/headroom-pct: "20"\n', '    kvplan.io/headroom-pct: "20"\n'
                        '    kvplan.io/risk: "0.05"\n'
                        '    kvplan.io/min-tokens-per-s-per-user: "60"\n')
    path = tmp_path / "slo.yaml"
    path.write_text(text)
    code, rec = check_json(runner, path)
    assert code == 1
    assert rec["traffic_basis"] == {
        # vLLM 0.6.3's pool (the image tag): 224 and 202 while its CUDA context was booked
        "users_per_replica_at_mean": 225, "users_per_replica_at_risk": 203,
        "overflow_risk": 0.05, "risk_method": "exact", "users_per_replica_slo": 151,
        "slo_tokens_per_s_per_user": 60.0,
    }
    assert rec["limited_by"] == "slo" and rec["users_held"] == 10 * 151


def test_a_mean_the_percentiles_contradict_is_named(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "both.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: both\nmodel: llama-3-8b\nhardware: {gpu: h100, count: 20}\n"
        "engine: {max_model_len: 8192}\ntraffic: {peak_concurrent_users: 2000, context_tokens: "
        "{mean: 2000, p95: 7000, p99: 9000}}\n"
    )
    result = flat(invoke(runner, "check", str(path)))
    assert ("note: traffic.context_tokens: the lognormal fitted to the percentiles has a mean "
            "of 4,061 tokens (capped at 8,192), not the stated 2,000; sized by the "
            "percentiles") in result.output
    assert "sized by the percentiles" in invoke(runner, "fleet", str(path)).stderr


@settings(max_examples=12, deadline=None)
@given(
    model=st.sampled_from(["llama-3-8b", "qwen2.5-7b", "mistral-7b-v0.1"]),
    tp=st.sampled_from([1, 2]),
    peak=st.integers(50, 3000),
    mean=st.integers(300, 3000),
    ratio=st.sampled_from([1.5, 2.5, 3.5]),
    risk=st.sampled_from([0.001, 0.01, 0.05]),
)
def test_fleet_and_check_agree_on_generated_deployments(
    model: str, tp: int, peak: int, mean: int, ratio: float, risk: float
) -> None:
    """For any deployment with a spread whose p95 fits max_model_len, check passes at exactly
    the GPUs fleet plans and fails one replica below."""
    runner = CliRunner()
    doc = {
        "apiVersion": "kvplan/v1", "name": "gen", "model": model,
        "hardware": {"gpu": "h100", "count": tp},
        "parallel": {"tensor": tp},
        "engine": {"max_model_len": 8192},
        "traffic": {"peak_concurrent_users": peak, "risk": risk,
                    # p95 within max_model_len: check's own p95 criterion is not fleet's
                    "context_tokens": {"mean": mean, "p95": min(int(mean * ratio), 8192)}},
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gen.yaml"
        path.write_text(yaml.safe_dump(doc))
        planned = fleet_json(runner, path)["gpus_needed"]
        doc["hardware"]["count"] = planned
        path.write_text(yaml.safe_dump(doc))
        assert check_json(runner, path)[0] == 0
        if planned > tp:
            doc["hardware"]["count"] = planned - tp
            path.write_text(yaml.safe_dump(doc))
            assert check_json(runner, path)[0] == 1


def test_a_p95_beyond_the_model_says_no_max_model_len_holds_it(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: long\nmodel: llama-3-8b\nhardware: {gpu: h100, count: 1}\n"
        "traffic: {peak_concurrent_users: 50, context_tokens: {mean: 2341, p95: 8193}}\n"
    )
    result = flat(invoke(runner, "check", str(path)))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "beyond llama-3-8b's max_context_tokens (8,192), so no max_model_len can hold" in lines[1]
    assert lines[2] == "      fix: none for this model: its longest context is below the p95"
