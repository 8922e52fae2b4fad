"""kvplan/v1 parsing with lines, and the one planning function every input goes through."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.deploy import DeploymentError, load_deployment
from kvplan.deploy.yamldoc import dotted, iter_docs
from tests.conftest import ASSETS, invoke

CHECK = ASSETS / "check"


def test_lines_of_every_key_path() -> None:
    text = "a: 1\nb:\n  c:\n    - x\n    - y: 2\n---\nz: 3\n"
    first, second = list(iter_docs(text, "t.yaml"))
    assert first.line("a") == 1
    assert first.line("b", "c") == 3
    assert first.line("b", "c", 1, "y") == 5
    assert first.line("b", "missing") == 2  # the deepest part that exists
    assert second.start_line == 7 and second.line("z") == 7
    assert dotted(("spec", "containers", 0, "args")) == "spec.containers[0].args"


def test_safe_loader_refuses_python_tags_with_a_line() -> None:
    with pytest.raises(DeploymentError) as err:
        list(iter_docs("a: 1\nb: !!python/name:os.system\n", "t.yaml"))
    assert err.value.line == 2
    assert "tags such as !!python/... are refused" in str(err.value)


def test_fleet_errors_name_the_line_too(runner: CliRunner) -> None:
    result = invoke(runner, "fleet", str(CHECK / "invalid" / "unknown-key.yaml"))
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {CHECK / 'invalid' / 'unknown-key.yaml'}: line 8: engine.max_model_length: "
        "unknown field; did you mean 'max_model_len'?"
    )


def test_fleet_still_plans_the_quick_start_example(runner: CliRunner) -> None:
    example = Path(__file__).parents[2] / "examples" / "support-chatbot.yaml"
    planned = load_deployment(example)
    assert (planned.peak_users, planned.required_users, planned.gpus) == (20_000, 20_000, 82)
    result = invoke(runner, "fleet", str(example), "--format", "json")
    assert result.exit_code == 0, result.output
    assert '"gpus_needed": 82' in result.output


def test_required_users_min_users_and_headroom(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "apiVersion: kvplan/v1\nname: d\nmodel: llama-3-8b\nhardware: {gpu: h100, count: 1}\n"
        "traffic: {peak_concurrent_users: 1000}\nrequirement: {headroom_pct: 15, min_users: 1100}\n"
    )
    planned = load_deployment(path)
    assert planned.required_users == 1150  # ceil(1000 x 1.15) beats min_users 1100
    path.write_text(path.read_text().replace("min_users: 1100", "min_users: 1200"))
    assert load_deployment(path).required_users == 1200


def test_manifest_engine_flows_into_the_deployment() -> None:
    [target] = read_targets(CHECK / "k8s" / "vllm-pass.yaml", {})
    assert target.server == "vllm"
    assert target.deployment is not None
    engine = target.deployment.engine
    assert (engine.name, engine.version) == ("vllm", "0.6.3")  # the server, at its image tag
    assert (engine.max_model_len, engine.gpu_memory_utilization) == (8192, 0.9)
    [sglang] = read_targets(CHECK / "k8s" / "sglang-fail.yaml", {})
    assert sglang.deployment is not None
    e = sglang.deployment.engine
    assert (e.version, e.max_model_len, e.gpu_memory_utilization, e.block_size) == (
        "0.4.1",
        32768,
        0.85,
        1,
    )
    assert sglang.deployment.parallel.tensor == 4
    assert sglang.deployment.hardware.count == 8  # 2 pods x TP 4


def test_percentiles_without_a_mean_size_check_by_the_fitted_mean(tmp_path):
    """p50 1,200 / p95 6,000 fit a lognormal whose mean below 8,192 tokens is 1,826 tokens."""
    from kvplan.deploy import load_deployment

    dep = tmp_path / "pct.yaml"
    dep.write_text(
        "apiVersion: kvplan/v1\nname: pct\nmodel: llama-3-8b\nhardware: {gpu: h100, count: 90}\n"
        "engine: {max_model_len: 8192, kv_cache_dtype: fp16, kv_budget_gib: 60}\n"
        "traffic:\n  peak_concurrent_users: 20000\n  context_tokens: {p50: 1200, p95: 6000}\n"
    )
    planned = load_deployment(dep)
    assert planned.request.avg_context_tokens == 1826
