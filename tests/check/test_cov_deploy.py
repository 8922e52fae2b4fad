"""kvplan/v1 deployment files that are refused or resolved by a rule the other tests do not
reach: each refusal's field, line and sentence, Little's law, a mean the percentiles overrule."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kvplan.deploy import is_deployment, load_deployment
from kvplan.deploy.problems import DeploymentError

HEAD = "apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: {count}\n"


def write(tmp_path: Path, body: str, count: int = 2, name: str = "dep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD.format(count=count) + body)
    return path


@pytest.mark.parametrize(("count", "body", "line", "message"), [
    (2, "engine:\n  name: vllm\n  kv_cache_memory_bytes: 1000000000\n  kv_budget_gib: 2\n"
        "traffic:\n  peak_concurrent_users: 4\n", 9,
     "engine.kv_cache_memory_bytes: kv_budget_gib states the pool too; give one"),
    (2, "engine:\n  name: sglang\nparallel:\n  tensor: 1\n  expert: 2\ntraffic:\n"
        "  peak_concurrent_users: 4\n", 11,
     "parallel.expert: sglang's expert-parallel size divides its tensor-parallel size (1); 2 "
     "ranks beyond it is vLLM's --enable-expert-parallel with data parallelism"),
    (33, "parallel:\n  pipeline: 33\ntraffic:\n  peak_concurrent_users: 4\n", 8,
     "parallel.pipeline: 33 stages for 32 layers"),
    (2, "engine:\n  name: vllm\n  enable_prefix_caching: true\n  max_model_len: 4096\ntraffic:\n"
        "  peak_concurrent_users: 4\n  shared_prefix_tokens: 5000\n", 13,
     "traffic.shared_prefix_tokens: 5,000 is longer than a conversation"),
    (2, "", 1, "traffic: required field is missing"),
])
def test_refusals_name_the_field_and_the_line(tmp_path: Path, count: int, body: str, line: int,
                                              message: str):
    path = write(tmp_path, body, count)
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert str(err.value) == f"{path}: line {line}: {message}"


def test_not_a_mapping_and_empty_files(tmp_path: Path):
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n- 2\n")
    with pytest.raises(DeploymentError) as err:
        load_deployment(listed)
    assert str(err.value) == f"{listed}: line 1: expected a mapping of fields, got list"
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    with pytest.raises(DeploymentError) as err:
        load_deployment(empty)
    assert str(err.value) == f"{empty}: the file is empty"
    # neither declares apiVersion: not a deployment
    assert not is_deployment(listed) and not is_deployment(empty)


def test_is_deployment(tmp_path: Path):
    assert is_deployment(write(tmp_path, "traffic:\n  peak_concurrent_users: 4\n"))
    assert not is_deployment(tmp_path / "missing.yaml")
    assert not is_deployment(Path("README.md"))  # not YAML
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: [unclosed\n")
    assert not is_deployment(broken)


def test_an_unsupported_api_version(tmp_path: Path):
    path = tmp_path / "v2.yaml"
    path.write_text("apiVersion: kvplan/v2\nname: t\n")
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert str(err.value) == f"{path}: line 1: apiVersion: 'kvplan/v2' is not supported; use kvplan/v1"


def test_peak_by_littles_law(tmp_path: Path):
    # 0.5 arrivals/s x 30 s x 1.5 peak-to-mean = 22.5 -> 23 open conversations at the peak
    planned = load_deployment(write(tmp_path, "traffic:\n  arrival_rate_per_s: 0.5\n"
                                              "  mean_duration_s: 30\n  peak_to_mean: 1.5\n"))
    assert (planned.traffic_peak, planned.peak_users, planned.required_users) == (23, 23, 23)


def test_percentiles_overrule_a_disagreeing_mean(tmp_path: Path):
    # p50 2,000 and p95 6,000: sigma = ln 3 / 1.6449 = 0.6679, uncapped mean 2,000 x
    # exp(0.6679^2 / 2) = 2,500; capped at max_model_len 8,192 a little less (2,456), far from
    # the stated 1,000 (more than 5% off): sized by the percentiles, with a note
    planned = load_deployment(write(tmp_path, "traffic:\n  peak_concurrent_users: 4\n"
                                              "  context_tokens:\n    mean: 1000\n    p50: 2000\n"
                                              "    p95: 6000\n"))
    assert planned.lengths is not None
    mean = planned.lengths.mean_tokens(8192)
    assert 2400 < mean < 2000 * math.exp((math.log(3) / 1.6448536269514722) ** 2 / 2)
    assert planned.notes == (
        f"traffic.context_tokens: the lognormal fitted to the percentiles has a mean of "
        f"{mean:,.0f} tokens (capped at 8,192), not the stated 1,000; sized by the percentiles",)
    # within 5% of the fit's mean: no note
    close = load_deployment(write(tmp_path, "traffic:\n  peak_concurrent_users: 4\n"
                                            "  context_tokens:\n    mean: 2400\n    p50: 2000\n"
                                            "    p95: 6000\n", name="close.yaml"))
    assert close.notes == ()
