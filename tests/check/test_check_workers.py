"""Each worker of a document gets its own verdict: a DynamoGraphDeployment's prefill and
decode workers are two deployments, and one that kvplan cannot read (Dynamo's TensorRT-LLM
worker, `python3 -m dynamo.trtllm`, whose options are not trtllm-serve's) is an ERROR of its
own, at its own service's line, that never hides the other worker's result (task h43scripts).
Before, the document got one ERROR when no worker was read (dynamo/trtllm-disagg.yaml of the
corpus, where the hand said one per worker), and a worker kvplan could not read was silently
dropped when another one was read."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()
CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus"

MIXED = """apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: mixed-disagg
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.1
    prefill:
      componentType: worker
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.1
          workingDir: /workspace/
          command: [python3, -m, dynamo.trtllm]
          args: [--model-path, Qwen/Qwen3-0.6B, --extra-engine-args, ./prefill.yaml]
    decode:
      componentType: worker
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.1
          command: [python3, -m, dynamo.sglang]
          args: [--model-path, Qwen/Qwen3-0.6B, --context-length, "8192"]
"""


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.split(" ", 1)[0] in
            ("PASS", "WARN", "FAIL", "ERROR")]


# what the worker runs closes its ERROR, cut at 80 characters (task h90corpus)
DISAGG_RUNS = ("; it runs `python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B "
               "--served-model-name Qwen/Q ...`")


def test_trtllm_disagg_gives_each_worker_its_own_error():
    """ai-dynamo/dynamo examples/backends/trtllm/deploy/disagg.yaml: the prefill service
    starts at line 16, the decode service at line 41 (counted in the file); each runs
    dynamo.trtllm with its own --extra-engine-args (prefill.yaml, decode.yaml under workingDir
    /workspace/): two ERRORs, each naming its worker and its file; exit 2."""
    res = runner.invoke(app, ["check", str(CORPUS / "dynamo" / "trtllm-disagg.yaml")])
    assert res.exit_code == 2, res.stdout
    lines = _lines(res.stdout)
    assert [line.split(":", 1)[0] for line in lines] == ["ERROR line 16", "ERROR line 41"]
    assert lines[0].endswith("trtllm-serve) (prefill); its engine options in --extra-engine-args "
                             "./examples/backends/trtllm/engine_configs/qwen3/prefill.yaml (under "
                             "workingDir /workspace/), a path inside the container, are not "
                             "read" + DISAGG_RUNS)
    assert lines[1].endswith("trtllm-serve) (decode); its engine options in --extra-engine-args "
                             "./examples/backends/trtllm/engine_configs/qwen3/decode.yaml (under "
                             "workingDir /workspace/), a path inside the container, are not "
                             "read" + DISAGG_RUNS)
    assert "2 checked in 1 file(s): 0 PASS, 0 FAIL, 2 ERROR" in res.stdout


def test_an_unread_worker_does_not_hide_the_read_one(tmp_path: Path):
    """prefill (service at line 12) runs dynamo.trtllm: ERROR; decode (line 23) runs
    dynamo.sglang, Qwen3-0.6B at --context-length 8192 on one H100: read and planned (it
    starts: 0.6B parameters x 2 B = 1.2 GB of weights on an 80 GB card). Before this change the
    prefill worker vanished and the file read '1 checked ... 1 PASS, 0 ERROR'."""
    path = tmp_path / "mixed.yaml"
    path.write_text(MIXED)
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 2, res.stdout
    lines = _lines(res.stdout)
    assert [line.split(":", 1)[0].split("  ")[0] for line in lines] == ["ERROR line 12",
                                                                        "PASS"]
    assert lines[1].startswith("PASS  line 23  decode: starts")
    assert "trtllm-serve) (prefill); its engine options in --extra-engine-args ./prefill.yaml" \
        in lines[0]
    assert "2 checked in 1 file(s): 1 PASS, 0 FAIL, 1 ERROR" in res.stdout


def test_a_single_unread_worker_in_a_deployment_keeps_the_document_line(tmp_path: Path):
    """A plain Deployment (one workload, no service names) running dynamo.trtllm: one ERROR at
    the document's first line (1), no worker name, the options file still named."""
    path = tmp_path / "deploy.yaml"
    path.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: trt}
spec:
  template:
    spec:
      containers:
      - name: w
        image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.3.1
        command: [python3, -m, dynamo.trtllm, --extra-engine-args, /cfg/agg.yaml]
        resources: {limits: {nvidia.com/gpu: 1}}
""")
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2, res.stdout
    lines = _lines(res.stdout)
    assert len(lines) == 1 and lines[0].startswith("ERROR line 1: command: this Deployment runs "
                                                   "TensorRT-LLM through python -m dynamo.trtllm")
    assert lines[0].endswith("trtllm-serve); its engine options in --extra-engine-args "
                             "/cfg/agg.yaml, a path inside the container, are not read; it runs "
                             "`python3 -m dynamo.trtllm --extra-engine-args /cfg/agg.yaml`")
