"""size, fleet and check plan the same deployment to the same users per GPU (a property)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kvplan.cli import app

deployments = st.fixed_dictionaries({
    "model": st.sampled_from(["llama-3-8b", "qwen2.5-7b", "mistral-7b-v0.1"]),
    "gpu": st.sampled_from(["h100", "h200", "a100-80gb", "l40s"]),
    "tp": st.sampled_from([1, 2]),
    "kv": st.sampled_from(["fp16", "fp8"]),
    "engine": st.sampled_from(["ideal", "vllm"]),
    "mean": st.integers(256, 8192),
    "peak": st.integers(1, 50_000),
    "headroom": st.sampled_from([0, 10, 25]),
})


def _json(runner: CliRunner, *args: str) -> Any:
    res = runner.invoke(app, list(args))
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)["results"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(d=deployments)
def test_size_fleet_and_check_agree_on_users_per_gpu(d: dict[str, Any], tmp_path: Path):
    data = {"apiVersion": "kvplan/v1", "name": "prop", "model": d["model"],
            "hardware": {"gpu": d["gpu"]}, "parallel": {"tensor": d["tp"]},
            "engine": {"name": d["engine"], "max_model_len": 8192, "kv_cache_dtype": d["kv"]},
            "traffic": {"peak_concurrent_users": d["peak"], "context_tokens": {"mean": d["mean"]}},
            "requirement": {"headroom_pct": d["headroom"]}}
    path = tmp_path / f"d{abs(hash(str(d)))}.yaml"
    path.write_text(yaml.safe_dump(data))
    runner = CliRunner()
    size = _json(runner, "size", str(path), "-f", "json")[0]
    assume(size["fits"] and size["users_per_replica"] > 0)
    fleet = _json(runner, "fleet", str(path), "-f", "json")[0]
    data["hardware"]["count"] = fleet["gpus_needed"]
    path.write_text(yaml.safe_dump(data))
    check = _json(runner, "check", str(path), "-f", "json")[0]
    assert check["verdict"] == "PASS", check
    per_gpu = check["users_per_replica"] / check["gpus_per_replica"]
    assert size["users_per_gpu"] == fleet["users_per_gpu"] == per_gpu
    # and the GPU count is the headline's: ceil(required / users per replica) x GPUs per replica
    # (required = ceil(peak x (1 + headroom%)), computed here by hand in integers)
    required = -(-d["peak"] * (100 + d["headroom"]) // 100)
    per_replica = size["users_per_replica"]
    assert fleet["gpus_needed"] == -(-required // per_replica) * d["tp"]
