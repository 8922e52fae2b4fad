"""Round blind-2026-12-07-r5 (task h61corpus): 17 deployments users keep in their own
repositories (tests/assets/check/corpus, sources in its SOURCES.md), and the reader fix the
round found. Expected texts and numbers are worked out by hand from the file and the spec
named."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_api import corpus_outcomes, score_blind_round

ASSETS = Path(__file__).parents[1] / "assets" / "check"
CORPUS = ASSETS / "corpus"
ROUND = "blind-2026-12-07-r5"
TRITON = ("this {kind} runs vLLM through Triton's vLLM backend (its engine arguments are in the "
          "model repository's model.json, not in this file), but not through a server command "
          "kvplan reads (vllm serve, python -m vllm.entrypoints.openai.api_server (or the demo "
          "vllm.entrypoints.api_server), python -m sglang.launch_server, sglang serve, python -m "
          "dynamo.vllm / dynamo.sglang, trtllm-serve)")

# what the container runs closes the ERROR (task h90corpus: round blind-2026-12-07-r8)
RUNS = "; it runs `tritonserver --model-repository=/models`"


def test_a_compose_service_running_tritons_vllm_backend_is_refused_not_passed_over() -> None:
    """Markkoby3/llm-inference-k8s deploy/compose/docker-compose.gpu.yaml: beside its `vllm`
    service (vllm/vllm-openai:v0.10.1 serving Qwen/Qwen2.5-1.5B-Instruct at 0.42, no GPU named:
    WARN) a `triton` service runs nvcr.io/nvidia/tritonserver:25.08-vllm-python-py3 with
    `tritonserver --model-repository=/models`: vLLM through Triton's vLLM backend, whose engine
    arguments are the model repository's model.json (triton-inference-server/vllm_backend
    src/model.py, _VLLM_ENGINE_ARGS_FILENAME), not in the file. It was passed over in silence
    (a Kubernetes worker that plainly runs an engine kvplan cannot read got its own ERROR; a
    compose service did not, and Triton's vLLM backend was not recognised); now it is an ERROR
    of its own at its service's line, in compose's words. The gateway (a build) runs none."""
    outs = corpus_outcomes("user-repos/inferscale-docker-compose.gpu.yaml")
    assert [(o.verdict, o.name, o.kind, o.line) for o in outs] == [
        ("WARN", "vllm", "compose", 21), ("ERROR", "triton", "compose", 36)]
    assert (outs[0].model, outs[0].engine_version) == ("qwen2.5-1.5b", "0.10.1")
    # the service's name closes the line, as a Dynamo worker's does (workload.worker_said)
    assert [p.message for p in outs[1].problems] == [
        TRITON.format(kind="compose service") + " (triton); it runs `tritonserver "
        "--model-repository=/models --http-port=8000`"]


def test_a_deployment_running_tritons_vllm_backend_names_it(tmp_path: Path) -> None:
    """The same container in a Deployment read "nothing that runs vLLM, SGLang or TensorRT-LLM
    in this file"; it now names Triton's vLLM backend, as Triton's tensorrtllm_backend is."""
    f = tmp_path / "triton.yaml"
    f.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: triton}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: t\n"
        "        image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
        "        command: [tritonserver, --model-repository=/models]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (o,) = check_paths([str(f)]).outcomes
    assert (o.verdict, o.kind) == ("ERROR", "kubernetes")
    assert [p.message for p in o.problems] == [TRITON.format(kind="Deployment") + RUNS]


def test_a_deployment_running_tritons_trtllm_image_names_its_backend(tmp_path: Path) -> None:
    """NGC's tritonserver:YY.MM-trtllm-python-py3 is Triton with TensorRT-LLM's backend
    (kvplan.check.manifests.ngc_table); the same container with it read "nothing that runs vLLM,
    SGLang or TensorRT-LLM in this file" (task h62review), where a model repository path
    naming tensorrtllm_backend was named. Both now name the backend."""
    f = tmp_path / "triton.yaml"
    f.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: triton}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: t\n"
        "        image: nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3\n"
        "        command: [tritonserver, --model-repository=/models]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    (o,) = check_paths([str(f)]).outcomes
    assert (o.verdict, o.kind) == ("ERROR", "kubernetes")
    assert [p.message for p in o.problems] == [TRITON.format(kind="Deployment").replace(
        "vLLM through Triton's vLLM backend (its engine arguments are in the model repository's "
        "model.json", "TensorRT-LLM through Triton's tensorrtllm_backend (its KV settings are in "
        "the model repository's config.pbtxt") + RUNS]



def test_blind_round_5_is_scored_on_its_own() -> None:
    """The 17 files of round blind-2026-12-07-r5, verdicts and key fields committed (af6c3d8)
    before kvplan ran on them; 5 held out (every third row of SOURCES.md). First measured
    (a4deb96): development verdicts 11 of 12 (the compose Triton service passed over), fields
    34 of 36; held out verdicts 5 of 5, fields 13 of 14. After the fix above: development 12 of
    12. The field misses are the hand's wording and stay recorded: an `--quantization awq`
    refusal before the catalog lookup (one development file, one held out) and a RayService
    ERROR naming the path and model_id rather than `model_source`."""
    blind, misses, field_misses = score_blind_round(ROUND)
    assert len(blind) == 17 and sum(bool(e.get("held_out")) for e in blind.values()) == 5
    assert misses == {}
    assert sorted(field_misses) == [
        ("kuberay/ray-vllm-on-kubernetes-rayservice-llm.yaml", "error"),
        ("user-repos/vllm-eks-llama.yaml", "error"),
        ("user-repos/vllm-gke-03-deployment.yaml", "error")]
