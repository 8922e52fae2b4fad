"""A manifest is a record too: size, fleet and explain plan the server `kvplan check` reads."""

from __future__ import annotations

import json

from kvplan.check import check_paths
from tests.conftest import invoke

GKE = "tests/assets/check/corpus/gke"


def test_fleet_plans_the_server_check_judges(runner) -> None:  # noqa: ANN001
    """GKE's Gemma-2-9B-it sample: vLLM 0.10.0, TP 2 on L4s, max_model_len 8,192 (the model's).
    check says how many max_model_len sequences a replica holds; fleet's worst-case basis on the
    same record must say the same."""
    path = f"{GKE}/vllm-2-9b-it.yaml"
    [outcome] = check_paths([path]).outcomes
    assert outcome.verdict == "PASS" and outcome.numbers is not None
    result = invoke(runner, "fleet", path, "--peak-users", "20", "-f", "json")
    assert result.exit_code == 0, result.output
    [rec] = json.loads(result.stdout)["results"]
    assert (rec["model"], rec["gpu"], rec["tp"]) == ("gemma-2-9b", "l4", 2)
    # bf16 (vLLM's --dtype auto for a float32 checkpoint): 42 x 8 x 256 x 2 x 2 B / TP 2
    assert rec["kv_bytes_per_token"] == 172_032
    assert rec["users_per_gpu_worst_case"] * 2 == outcome.numbers.kv_users_per_replica


def test_a_manifest_that_cannot_start_is_a_no(runner) -> None:  # noqa: ANN001
    """GKE's Llama-3.1-8B tutorial at --memory-utilization 0.85: 32,768 tokens x 131,072 B =
    4,294,967,296 B for one sequence on an L4 whose pool is 0.85 x 23,570,219,008 B -
    16,060,522,496 B of weights - 525,336,576 B of V1 sampler - 367,001,600 B non-torch (vLLM
    0.8.5's V1 books the whole device, the CUDA context included) = 3,081,825,484 B: nothing
    fits, exit 1 (a verdict of no). (At vLLM's default 0.9 the pool, 4,260,336,435 B, is
    34,630,861 B short too.)"""
    result = invoke(runner, "fleet", f"{GKE}/deploy-llm.yaml", "--peak-users", "1",
                    "--memory-utilization", "0.85", "-f", "json")
    assert result.exit_code == 1, result.output
    [rec] = json.loads(result.stdout)["results"]
    assert (rec["model"], rec["gpu"], rec["context_tokens"]) == ("llama-3.1-8b", "l4", 32_768)
    assert rec["kv_bytes_per_sequence"] == 32_768 * 131_072


def test_explain_shows_where_each_field_came_from(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "explain", f"{GKE}/deploy-llm.yaml")
    lines = result.stdout.splitlines()
    assert any(ln.split()[:3] == ["engine.max_model_len", "32768", "manifest"] for ln in lines)
    assert any(ln.split()[:3] == ["hardware.gpu", "l4", "manifest"] for ln in lines)


def test_a_flag_overrides_a_manifest_field(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "fleet", f"{GKE}/deploy-llm.yaml", "--peak-users", "1",
                    "--context", "16384", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["context_tokens"] == 16_384


COMPOSE = "tests/assets/check/corpus/sglang/compose.yaml"  # SGLang's own docker/compose.yaml
HELM_VALUES = "tests/assets/check/corpus/production-stack/values-02-basic-config.yaml"


def test_a_kindless_manifest_is_a_record_too(runner) -> None:  # noqa: ANN001
    """docker-compose and Helm values carry no apiVersion; size and explain read them as check
    does (they were taken for model spec files: 'name: required field is missing', ...)."""
    result = invoke(runner, "size", COMPOSE, "-f", "json")
    assert result.exit_code == 0, result.output
    [rec] = json.loads(result.stdout)["results"]
    assert (rec["model"], rec["gpu"], rec["kv_bytes_per_token"]) == (
        "llama-3.1-8b", "h100-sxm-80gb", 131_072)
    assert "the manifest names no GPU; planned on h100-sxm-80gb (give --gpu)" in result.stderr
    result = invoke(runner, "explain", HELM_VALUES, "--gpu", "a100-80gb")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any(ln.split()[:3] == ["model", "llama-3.1-8b", "manifest"] for ln in lines)
    assert any(ln.split()[:3] == ["engine.max_model_len", "4096", "manifest"] for ln in lines)


def test_gpu_given_drops_the_no_gpu_note(runner) -> None:  # noqa: ANN001
    """--gpu names the GPU: no note may still say the plan ran on the default one."""
    result = invoke(runner, "size", COMPOSE, "--gpu", "a100-80gb", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["gpu"] == "a100-80gb"
    assert "names no GPU" not in result.stderr
    assert "--gpu sets hardware.gpu (the file does not state it)" in result.stderr


def test_a_model_spec_yaml_is_still_a_model(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "size", "model_specs/llama-3-8b.yaml", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["model"] == "llama-3-8b"
