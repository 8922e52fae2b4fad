"""OME (ome.io/v1beta1) ServingRuntime / ClusterServingRuntime read by
kvplan.check.manifests.ome (task h42readers): engineConfig.runner is the server, decoderConfig's
the decode engine, a runtime is one replica, and $(MODEL_PATH) is the BaseModel's path (the
InferenceService names the model), so the runner's served name names the model only where it is
a catalog model. Numbers by hand from model_specs/qwen3-8b.yaml (36 layers, 8 KV heads of 128,
40,960 positions)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.check_cli_run import results
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "ome"
ELSEWHERE = ("OME hands this runtime the weights of the BaseModel an InferenceService names "
             "(its spec.model.name) as $(MODEL_PATH), so the InferenceService's file names the "
             "model, not this runtime; set the annotation kvplan.io/model (or a side file's "
             "model:) to that BaseModel's model")
PATH = "/<storage.path of the InferenceService's BaseModel>"


def test_the_public_sglang_runtime_names_its_model_by_served_name(runner: CliRunner) -> None:
    """OME's srt qwen3-8b runtime: sglang.launch_server --model-path $(MODEL_PATH)
    --served-model-name Qwen/Qwen3-8B --tp-size 1, one nvidia.com/gpu, no GPU named. One
    40,960-token sequence: 36 x 8 x 128 x 2 (K, V) x 2 B = 147,456 B a token x 40,960 =
    6,039,797,760 B; an L4 holds 23,570,219,008 x 0.9 - 16,381,470,720 B of weights = 4.83 GB,
    less than that: WARN, would not start on an L4.
    Task h52checkround (blind round blind-2026-12-06-r4): SGLang starts whenever one token fits
    and refuses longer requests (on a named L4 a WARN, "starts, but a 40,960-token request cannot
    be served"), so the no-GPU listing now counts the L4 among the GPUs it starts on and names
    it in a note; a T4 (15,642,329,088 x 0.9 = 14.08 GB < 16.38 GB of weights) still does not
    start."""
    [row] = results(runner, CORPUS / "srt-qwen3-8b-rt.yaml")
    assert (row["verdict"], row["model"], row["engine"], row["gpu"]) == (
        "WARN", "qwen3-8b", "sglang", None)
    # the V100s too: SGLang refuses a GPU below sm75 (kvplan.engines.dtype_support)
    assert "would not start on: t4, v100-sxm2-16gb, v100-sxm2-32gb " in row["summary"]
    short = [n for n in row["notes"] if "40,960-token request cannot be served" in n]
    assert len(short) == 1 and short[0].startswith("on a10, a10g, l4, ")
    assert "routerConfig runs the router, no engine: not checked" in row["notes"]
    assert "an OME serving runtime is a template: checked as one replica" in row["notes"]


def test_a_runtime_whose_model_is_the_basemodels_says_which_file_names_it(
        runner: CliRunner) -> None:
    """OME's vllm qwen3-8b runtime serves $(MODEL_PATH) as 'vllm-model' (line 59, the args'
    $(MODEL_PATH)): the model is the InferenceService's BaseModel -> ERROR saying so."""
    [row] = results(runner, CORPUS / "vllm-qwen3-8b-rt.yaml")
    assert row["verdict"] == "ERROR"
    assert [(e["line"], e["message"]) for e in row["errors"]] == [(
        59, f"{PATH!r}, and its served name 'vllm-model' is not a catalog model: {ELSEWHERE}")]


RUNTIME = """apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: qwen3-pd
ANNOTATIONS
spec:
  engineConfig:
    nodeSelector:
      cloud.google.com/gke-accelerator: nvidia-l4
    runner:
      image: docker.io/vllm/vllm-openai:v0.10.0
      command: [vllm, serve]
      args: [$(MODEL_PATH), --served-model-name, SERVED, --max-model-len, "8192"]
      resources: {limits: {nvidia.com/gpu: 1}}
  decoderConfig:
    nodeSelector:
      cloud.google.com/gke-accelerator: nvidia-l4
    runner:
      image: docker.io/vllm/vllm-openai:v0.10.0
      command: [vllm, serve]
      args: [$(MODEL_PATH), --served-model-name, SERVED, --max-model-len, "8192"]
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def _runtime(tmp: Path, served: str, annotations: str = "") -> Path:
    path = tmp / "rt.yaml"
    path.write_text(RUNTIME.replace("SERVED", served).replace("ANNOTATIONS\n", annotations))
    return path


def test_engine_and_decoder_are_two_engines_on_their_labelled_gpu(runner: CliRunner,
                                                                  tmp_path: Path) -> None:
    """engineConfig (prefill) and decoderConfig (decode) each run vLLM on one L4 (the GKE
    label): two engines of 8,192-token sequences, 147,456 B a token x 8,192 = 1,207,959,552 B."""
    rows = results(runner, _runtime(tmp_path, "Qwen/Qwen3-8B"))
    assert [(r["name"], r["verdict"], r["model"], r["gpu"], r["gpus"]) for r in rows] == [
        ("engine", "PASS", "qwen3-8b", "l4", 1), ("decoder", "PASS", "qwen3-8b", "l4", 1)]
    assert all(r["max_sequence_bytes_per_gpu"] == 36 * 8 * 128 * 2 * 2 * 8_192 == 1_207_959_552
               for r in rows)


def test_the_model_annotation_names_the_basemodels_model(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    """Served as vllm-model, the runtime names no model: an ERROR for each engine on its args
    line (12: after the 4 header lines, spec, engineConfig, nodeSelector and its label, runner,
    image, command; 20: 8 lines further, past resources and the decoder's same 7 lines);
    kvplan.io/model: qwen3-8b on the runtime names it for both."""
    rows = results(runner, _runtime(tmp_path, "vllm-model"))
    assert [(r["verdict"], r["errors"][0]["line"]) for r in rows] == [("ERROR", 12),
                                                                     ("ERROR", 20)]
    named = results(runner, _runtime(tmp_path, "vllm-model",
                                     "  annotations: {kvplan.io/model: qwen3-8b}\n"))
    assert [(r["verdict"], r["model"]) for r in named] == [("PASS", "qwen3-8b")] * 2


def test_a_multi_node_runtime_whose_leader_has_no_runner_is_refused(runner: CliRunner,
                                                                    tmp_path: Path) -> None:
    """engineConfig.leader / worker are read since task h43ome (test_check_ome_multinode.py);
    a leader with no runner (line 7) runs nothing -> ERROR naming it."""
    path = tmp_path / "mn.yaml"
    path.write_text("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n"
                    "  name: mn\nspec:\n  engineConfig:\n    leader:\n      hostIPC: true\n"
                    "    worker:\n      size: 1\n")
    [row] = results(runner, path)
    assert [(e["line"], e["message"]) for e in row["errors"]] == [(
        7, "engineConfig's leader has no runner: nothing runs the engine")]


def test_kserves_runtime_of_the_same_kind_stays_kserves(runner: CliRunner,
                                                         tmp_path: Path) -> None:
    """A ClusterServingRuntime of serving.kserve.io is still read through spec.containers
    (kserve.py), with KServe's note, not OME's."""
    path = tmp_path / "ks.yaml"
    path.write_text("apiVersion: serving.kserve.io/v1alpha1\nkind: ClusterServingRuntime\n"
                    "metadata:\n  name: ks\nspec:\n  containers:\n  - name: kserve-container\n"
                    "    image: vllm/vllm-openai:v0.10.0\n    command: [vllm, serve, "
                    "Qwen/Qwen3-8B, --max-model-len, '8192']\n"
                    "    resources: {limits: {nvidia.com/gpu: 1}}\n")
    [row] = results(runner, path, "--gpu", "l4")
    assert (row["verdict"], row["model"]) == ("PASS", "qwen3-8b")
    assert "a serving runtime is a template: checked as one replica" in row["notes"]


def test_an_ome_inferenceservice_is_not_read_as_kserves(runner: CliRunner,
                                                         tmp_path: Path) -> None:
    """OME's InferenceService (spec.model names the BaseModel, spec.runtime the runtime) is read
    by kvplan.check.manifests.ome_isvc (task h43ome), never KServe's reader: checked with its
    runtime and BaseModel, its spec.engine.runner (line 8) overrides the runtime's container,
    which kvplan does not merge -> ERROR naming it."""
    path = tmp_path / "isvc.yaml"
    path.write_text("apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: q\n"
                    "spec:\n  model: {name: qwen3-8b}\n  runtime: {name: vllm-qwen3-8b}\n"
                    "  engine: {minReplicas: 1, runner: {image: vllm/vllm-openai:v0.10.0}}\n")
    rows = json.loads(invoke(runner, "check", str(path), str(CORPUS / "vllm-qwen3-8b-rt.yaml"),
                             str(CORPUS / "basemodel-qwen3-8b.yaml"), "-f", "json").output)
    row = next(r for r in rows["results"] if r["file"] == str(path))
    assert row["verdict"] == "ERROR"
    assert (row["errors"][0]["line"], row["errors"][0]["message"]) == (
        8, "spec.engine.runner overrides the runtime's containers: kvplan does not merge OME's "
        "overrides yet; check the pods it renders (kubectl get pod -o yaml)")
