"""OME multi-node runtimes, InferenceServices and BaseModels read together (task h43ome):
kvplan.check.manifests.ome (leader / worker), ome_isvc and ome_run. Numbers by hand from
model_specs/deepseek-v3.yaml (61 layers, MLA latent 512 + 64, 163,840 positions) and
model_specs/qwen3-8b.yaml (36 layers, 8 KV heads of 128, 8,190,735,360 parameters)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "ome"


def check(runner: CliRunner, *args: str) -> tuple[int, list[dict]]:
    result = invoke(runner, "check", *args, "-f", "json")
    return result.exit_code, json.loads(result.output)["results"]


def test_a_leader_and_one_worker_of_8_gpus_are_one_tp16_engine(runner: CliRunner) -> None:
    """OME's srt deepseek-rdma runtime: leader + worker.size 1, 8 nvidia.com/gpu each, --tp-size
    $(PARALLELISM_SIZE) = 8 x (1 + 1) = 16, --nnodes $(LWS_GROUP_SIZE) = 2. On H100s: 16 GPUs a
    replica; deepseek-v3's latent (512 + 64) x 61 layers x 2 B = 70,272 B a token, whole on
    every rank: x 163,840 positions = 11,513,364,480 B a GPU."""
    code, [row] = check(runner, str(CORPUS / "srt-deepseek-rdma-rt.yaml"), "--gpu",
                        "h100-sxm-80gb")
    assert (code, row["verdict"], row["model"], row["engine"]) == (0, "PASS", "deepseek-v3",
                                                                  "sglang")
    assert (row["gpus_per_replica"], row["replicas"]) == (16, 1)
    assert row["max_sequence_bytes_per_gpu"] == (512 + 64) * 61 * 2 * 163_840 == 11_513_364_480
    assert ("PARALLELISM_SIZE = 8 GPUs a pod x 2 pods = 16 (OME's "
            "setParallelismEnvVarForEngine)") in row["notes"]
    assert ("engineConfig runs one engine over a group of 2 pods (OME's leader + worker.size 1, "
            "rendered as a LeaderWorkerSet)") in row["notes"]


def test_sglang_dp_attention_ranks_use_no_extra_gpus(runner: CliRunner) -> None:
    """The PD runtime's prefill: --tp-size 16 --dp-size 16 --enable-dp-attention on 2 x 8 GPUs.
    SGLang's dp-attention ranks are slices of the TP world (attn_tp_size = tp / dp): 16 GPUs,
    not 16 x 16 = 256 (which the reader said before: an ERROR)."""
    _, rows = check(runner, str(CORPUS / "srt-deepseek-rdma-pd-rt.yaml"), "--gpu",
                    "h100-sxm-80gb")
    assert rows[0]["name"] == "engine"
    assert rows[0]["gpus_per_replica"] == 16
    assert any(n.startswith("--dp-size 16 with --enable-dp-attention") for n in rows[0]["notes"])


MN = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: mn
spec:
  engineConfig:
    leader:
      runner:
        image: lmsysorg/sglang:v0.5.5
        command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B,
                  --tp-size, $(PARALLELISM_SIZE), --nnodes, $(LWS_GROUP_SIZE)]
        resources: {limits: {nvidia.com/gpu: 2}}
    worker:
      size: 1
      runner:
        image: lmsysorg/sglang:v0.5.5
        resources: {limits: {nvidia.com/gpu: WORKER}}
"""


def test_leader_and_worker_pods_of_different_gpu_counts_are_refused(runner: CliRunner,
                                                                   tmp_path: Path) -> None:
    """Leader 2 GPUs, worker 4 (line 15, the worker's runner): OME's PARALLELISM_SIZE counts the
    leader's GPUs for every pod, kvplan plans equal pods -> ERROR there, exit 2. With equal
    pods: TP 2 x 2 = 4 GPUs on L4s."""
    path = tmp_path / "mn.yaml"
    path.write_text(MN.replace("WORKER", "4"))
    code, [row] = check(runner, str(path), "--gpu", "l4")
    assert (code, row["verdict"]) == (2, "ERROR")
    assert [(e["line"], e["message"]) for e in row["errors"]] == [(
        15, "the worker's runner has 4 GPUs and the leader's 2: kvplan plans one engine over "
        "equal pods")]
    path.write_text(MN.replace("WORKER", "2"))
    code, [row] = check(runner, str(path), "--gpu", "l4")
    assert (row["verdict"], row["gpus_per_replica"]) == ("PASS", 4)


def test_a_runtime_checked_with_its_basemodel_serves_that_model(runner: CliRunner) -> None:
    """OME's vllm qwen3-8b runtime (vllm serve $(MODEL_PATH) --served-model-name vllm-model
    --max-model-len 32768) alone is an ERROR (the model is the BaseModel's); with
    basemodel-qwen3-8b.yaml (hf://Qwen/Qwen3-8B: qwen3, 8.19e9 parameters, within the runtime's
    Qwen3ForCausalLM and 7B-9B) in the same run it is qwen3-8b: one 32,768-token sequence
    147,456 B x 32,768 = 4,831,838,208 B; an A100 80GB starts (PASS)."""
    runtime = str(CORPUS / "vllm-qwen3-8b-rt.yaml")
    code, [alone] = check(runner, runtime, "--gpu", "a100-80gb")
    assert (code, alone["verdict"]) == (2, "ERROR")
    code, [row] = check(runner, runtime, str(CORPUS / "basemodel-qwen3-8b.yaml"), "--gpu",
                        "a100-80gb")
    assert (code, row["verdict"], row["model"]) == (0, "PASS", "qwen3-8b")
    assert row["max_sequence_bytes_per_gpu"] == 36 * 8 * 128 * 2 * 2 * 32_768 == 4_831_838_208


def test_a_basemodel_of_another_architecture_is_not_paired(runner: CliRunner) -> None:
    """The Llama BaseModel (llama, 8.03e9) does not fit a Qwen3ForCausalLM runtime: still the
    ERROR of a runtime alone."""
    _, [row] = check(runner, str(CORPUS / "vllm-qwen3-8b-rt.yaml"),
                     str(CORPUS / "basemodel-llama-3-1-8b-instruct.yaml"))
    assert row["verdict"] == "ERROR"
    assert "OME hands this runtime the weights" in row["errors"][0]["message"]


def test_two_basemodels_that_fit_leave_the_runtime_an_error_naming_both(
        runner: CliRunner, tmp_path: Path) -> None:
    """Two Qwen3-8B BaseModels (one a copy named qwen3-8b-b): ambiguous -> ERROR naming both."""
    shutil.copy(CORPUS / "basemodel-qwen3-8b.yaml", tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text((CORPUS / "basemodel-qwen3-8b.yaml").read_text().replace(
        "name: qwen3-8b", "name: qwen3-8b-b"))
    _, [row] = check(runner, str(CORPUS / "vllm-qwen3-8b-rt.yaml"), str(tmp_path))
    message = row["errors"][0]["message"]
    assert row["verdict"] == "ERROR"
    assert (f"several BaseModels checked with it fit this runtime (ClusterBaseModel qwen3-8b "
            f"({tmp_path / 'a.yaml'}, line 1), ClusterBaseModel qwen3-8b-b ("
            f"{tmp_path / 'b.yaml'}, line 1))") in message


ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: q
spec:
  model:
    name: qwen3-8b
RUNTIME  engine:
    minReplicas: 2
    maxReplicas: 4
"""


def _isvc(tmp: Path, runtime: str = "  runtime:\n    name: vllm-qwen3-8b\n") -> Path:
    path = tmp / "isvc.yaml"
    path.write_text(ISVC.replace("RUNTIME", runtime))
    return path


def test_an_inferenceservice_combines_its_runtime_and_basemodel(runner: CliRunner,
                                                                tmp_path: Path) -> None:
    """isvc q: model qwen3-8b (ClusterBaseModel, hf://Qwen/Qwen3-8B), runtime vllm-qwen3-8b
    (1 GPU, --max-model-len 32768), minReplicas 2: 2 replicas of 1 A100 80GB = 2 GPUs; one
    sequence 4,831,838,208 B a GPU; PASS on the InferenceService's file."""
    isvc = _isvc(tmp_path)
    code, rows = check(runner, str(isvc), str(CORPUS / "vllm-qwen3-8b-rt.yaml"),
                       str(CORPUS / "basemodel-qwen3-8b.yaml"), "--gpu", "a100-80gb")
    row = next(r for r in rows if r["file"] == str(isvc))
    assert (code, row["verdict"], row["model"], row["replicas"], row["gpus"]) == (
        0, "PASS", "qwen3-8b", 2, 2)
    assert row["max_sequence_bytes_per_gpu"] == 4_831_838_208
    assert "checked at spec.engine.minReplicas 2 (scales up to maxReplicas 4)" in row["notes"]


def test_an_inferenceservice_without_its_runtime_or_model_file_names_the_missing_one(
        runner: CliRunner, tmp_path: Path) -> None:
    """Only the isvc and the BaseModel: the runtime's file is missing (line 9,
    spec.runtime.name) -> ERROR, exit 2; only the isvc and the runtime: the model's (line 7)."""
    isvc = str(_isvc(tmp_path))
    code, rows = check(runner, isvc, str(CORPUS / "basemodel-qwen3-8b.yaml"))
    assert code == 2
    assert [(e["line"], e["message"]) for e in rows[0]["errors"]] == [(
        9, "the runtime is ServingRuntime or ClusterServingRuntime 'vllm-qwen3-8b', whose file "
        "is not among the files checked (2 files): check its file in the same run (kvplan check "
        "inferenceservice.yaml runtime.yaml basemodel.yaml, or their folder)")]
    code, rows = check(runner, isvc, str(CORPUS / "vllm-qwen3-8b-rt.yaml"))
    row = next(r for r in rows if r["file"] == isvc)
    assert code == 2
    assert [(e["line"], e["message"]) for e in row["errors"]] == [(
        7, "the model is ClusterBaseModel 'qwen3-8b', whose file is not among the files checked "
        "(2 files): check its file in the same run (kvplan check inferenceservice.yaml "
        "runtime.yaml basemodel.yaml, or their folder)")]


def test_an_inferenceservice_without_spec_runtime_takes_the_one_runtime_that_fits(
        runner: CliRunner, tmp_path: Path) -> None:
    """No spec.runtime: of the runtimes checked, only the qwen3 ones fit qwen3-8b; with the vLLM
    one alone it is picked (PASS on an A100 80GB); with the SGLang one too, both fit -> ERROR
    naming both."""
    isvc = str(_isvc(tmp_path, runtime=""))
    base = str(CORPUS / "basemodel-qwen3-8b.yaml")
    _, rows = check(runner, isvc, base, str(CORPUS / "vllm-qwen3-8b-rt.yaml"),
                    str(CORPUS / "vllm-llama-3-1-8b-instruct-rt.yaml"), "--gpu", "a100-80gb")
    row = next(r for r in rows if r["file"] == isvc)
    assert (row["verdict"], row["model"]) == ("PASS", "qwen3-8b")
    _, rows = check(runner, isvc, base, str(CORPUS / "vllm-qwen3-8b-rt.yaml"),
                    str(CORPUS / "srt-qwen3-8b-rt.yaml"))
    row = next(r for r in rows if r["file"] == isvc)
    assert row["errors"][0]["message"].startswith(
        "several runtimes checked with it fit ClusterBaseModel qwen3-8b")
    assert "ClusterServingRuntime vllm-qwen3-8b" in row["errors"][0]["message"]
    assert "ClusterServingRuntime srt-qwen3-8b" in row["errors"][0]["message"]
