"""`kvplan check` on public KServe files a new user has (task h33qa2). tests/assets/check/qa/
SOURCES.md names each file's repository, path and commit."""

from __future__ import annotations

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS, invoke

QA = ASSETS / "check" / "qa"


def test_an_inference_service_of_a_runtime_names_the_runtime(runner: CliRunner) -> None:
    # Siryoos/kserve-vllm-mini isvc.yaml: predictor.model with runtime: vllm and a storageUri,
    # no args. It read "this InferenceService is for an inference engine, but none of its
    # containers starts a server kvplan reads": it has no container; the command is the
    # ServingRuntime's, another object.
    result = flat(invoke(runner, "check", str(QA / "kserve-isvc-runtime-only.yaml")))
    assert result.exit_code == 2
    assert "kserve-isvc-runtime-only.yaml:9: runtime: predictor.model runs the ServingRuntime " \
           "'vllm' (runtime:) " \
           "with no args of its own: the server command is that runtime's, which this file " \
           "does not hold, and the weights come from storageUri s3://models/llm-demo/; kvplan " \
           "check the runtime's own file (read as one replica)" in result.output
    assert "none of its containers" not in result.output


def test_values_of_a_kserve_chart_without_an_engine_string(runner: CliRunner) -> None:
    # Siryoos/kserve-vllm-mini charts/kserve-vllm-mini/examples/values-minimal.yaml: only
    # `runtime: vllm` names the engine, too short a word to read as one (a model or a runtime
    # name may say vllm); kvplan says it found nothing it runs.
    result = flat(invoke(runner, "check", str(QA / "kserve-vllm-mini-values-minimal.yaml")))
    assert result.exit_code == 2
    assert "values-minimal.yaml:1: no kvplan/v1 deployment and nothing that runs vLLM, SGLang or " \
           "TensorRT-LLM in this file" in result.output
