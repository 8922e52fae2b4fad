"""Every registered manifest format is wired (a module, a row in docs/check.md, a real or
synthetic file read through it), and each new format's failure modes give the exact line.
Line numbers are read off the synthetic files by hand; the texts are the refusals each reader
owes (docs/check.md, one section per format)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.check.documents import Broken, read_documents
from kvplan.check.formats import verdict_lines
from kvplan.check.manifests import BY_GROUP_KIND, BY_KIND, FORMATS, Format, read_document

ROOT = Path(__file__).parents[2]
ASSETS = ROOT / "tests" / "assets" / "check"
SYN = ASSETS / "synthetic" / "formats"
RENDER = "render first (helm template / kustomize build / envsubst)"


def _format_of(data: object) -> Format | None:
    if not isinstance(data, dict):
        return None
    kind = str(data.get("kind", ""))
    group = str(data.get("apiVersion", "")).split("/", 1)[0]
    if (group, kind) in BY_GROUP_KIND:
        return BY_GROUP_KIND[(group, kind)]
    if kind:
        return BY_KIND.get(kind)
    return next((f for f in FORMATS if f.detect is not None and f.detect(data)), None)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.module)
def test_every_registered_format_is_wired(fmt: Format) -> None:
    assert (ROOT / "kvplan" / "check" / "manifests" / f"{fmt.module}.py").is_file()
    docs = (ROOT / "docs" / "check.md").read_text()
    assert f"| {fmt.module}.py |" in docs, f"docs/check.md's format table lacks {fmt.module}.py"
    read = 0
    for path in sorted(ASSETS.rglob("*.y*ml")):
        for doc in read_documents(path):
            if isinstance(doc, Broken) or _format_of(doc.data) is not fmt:
                continue
            read += len(read_document(doc, path, {}) or [])
    assert read >= 1, f"no test asset is read through {fmt.module}"


def _lines(name: str) -> list[str]:
    return [verdict_lines(o, path=False)[0] for o in check_paths([str(SYN / name)]).outcomes]


NO_GPU = "nvidia.com/gpu: the server container sets no nvidia.com/gpu limit; add " \
    "resources.limits nvidia.com/gpu: 1"
NO_SERVER = ("is for an inference engine, but none of its containers starts a server kvplan "
             "reads (vllm serve, python -m vllm.entrypoints.openai.api_server (or the demo "
             "vllm.entrypoints.api_server), python -m sglang.launch_server, sglang serve, python "
             "-m dynamo.vllm / dynamo.sglang, trtllm-serve); check the pods it renders (kubectl "
             "get pod -o yaml)")
NOT_READ = ("but not through a server command kvplan reads (vllm serve, python -m "
            "vllm.entrypoints.openai.api_server (or the demo vllm.entrypoints.api_server), python "
            "-m sglang.launch_server, sglang serve, python -m dynamo.vllm / dynamo.sglang, "
            "trtllm-serve)")

# what every accelerator kvplan does not model is told to do (task readfix)
OTHER_TODO = ("kvplan cannot check this deployment: plan the model on a GPU kvplan models "
              "(kvplan size MODEL --gpu GPU), or leave the workload out with the annotation "
              'kvplan.io/skip: "true"')
FAILURES = {
    "rayservice.yaml": [
        # num_replicas 2 x 1 GPU, the only group is a head with no GPUs
        "ERROR line 17: replicas: 2 replica(s) x 1 GPU(s) need 2 GPUs, the Ray cluster has 0 "
        "(workerGroupSpecs replicas x numOfHosts x num-gpus)",
        "ERROR line 40: llm_engine: 'SGLang' is not an engine kvplan models (Ray Serve LLM runs "
        "vLLM)",
        f"ERROR line 59: serveConfigV2: unrendered template: {RENDER}",
        "ERROR line 83: placement_group_config: a bundle of GPU 0.5: a share of a GPU is not "
        "modelled (kvplan sizes whole GPUs)",
    ],
    "rayclusterfleet.yaml": [
        # TP 16 on a cluster of one 8-GPU head
        "ERROR line 20: nvidia.com/gpu: tensor 16 needs 16 GPUs but the engine has 8 "
        "(nvidia.com/gpu 8 x 1 pod(s))",
        f"ERROR line 22: kind: this RayClusterFleet {NO_SERVER}",
        f"ERROR line 49: '{{{{' is an unrendered template: {RENDER}",
        "ERROR line 70: aws.amazon.com/neuron: AWS Neuron devices are not modelled: kvplan "
        f"sizes NVIDIA and AMD GPUs (this server asks for aws.amazon.com/neuron: 1); {OTHER_TODO}",
    ],
    "stormservice.yaml": [
        f"ERROR line 16: {NO_GPU}",
        # each role whose server kvplan cannot read is its own ERROR, at the role's line, named
        f"ERROR line 28: command: this StormService runs vLLM, {NOT_READ} (other-engine decode); "
        "it runs `python3 -m vllm.entrypoints.openai.run_batch --model Qwen/Qwen3-0.6B`",
        f"ERROR line 53: '{{{{ .Values.model }}}}' is an unrendered template: {RENDER}",
        "ERROR line 67: podGroupSize: 'two' is not a count",
    ],
    "dynamo.yaml": [
        f"ERROR line 11: {NO_GPU}",
        # python -m dynamo.trtllm: Dynamo's worker, named, its options not trtllm-serve's
        # (each worker its own ERROR, at its service's line, named: task h43scripts)
        "ERROR line 22: command: this DynamoGraphDeployment runs TensorRT-LLM through python -m "
        "dynamo.trtllm (Dynamo's worker, whose options are not trtllm-serve's), "
        f"{NOT_READ} (Worker); it runs `python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B`",
        f"ERROR line 48: '${{MODEL}}' is an unrendered template: {RENDER}",
        "ERROR line 65: google.com/tpu: TPUs are not modelled: kvplan sizes NVIDIA and AMD "
        f"GPUs (this server asks for google.com/tpu: 4); {OTHER_TODO}",
    ],
    "llmisvc.yaml": [
        f"ERROR line 12: {NO_GPU}",
        f"ERROR line 17: kind: this LLMInferenceService {NO_SERVER}",
        f"ERROR line 45: '--max-model-len {{{{ .Values.len }}}}' is an unrendered template: "
        f"{RENDER}",
        "ERROR line 59: parallelism.sequence: not an LLMInferenceService parallelism field "
        "(data, dataLocal, dataRPCPort, expert, pipeline, tensor): the controller rejects it",
    ],
    "vllmruntime.yaml": [
        f"ERROR line 11: {NO_GPU}",
        "FAIL  line 25  misspelled: the engine refuses it: vLLM 0.34.0 has no option "
        "--max-num-seqz; did you mean --max-num-seqs?",
        f"ERROR line 39: '${{MODEL}}' is an unrendered template: {RENDER}",
        "ERROR line 54: model.maxModelLength: not a VLLMRuntime field (did you mean: "
        "maxModelLen, modelURL?) (it takes chatTemplate, dtype, enableLoRA, enableTool, "
        "hfTokenSecret, maxModelLen, maxNumSeqs, modelURL, toolCallParser): the API server "
        "drops them, so the operator never passes them on",
    ],
    "llmd-values.yaml": [
        # the container's own limit wins over the chart's fill-in from parallelism
        "ERROR line 17: nvidia.com/gpu: '0' is not a positive count",
        "ERROR line 28: modelCommand: 'tgiServe': the chart takes vllmServe, imageDefault or "
        "custom",
        f"ERROR line 34: '{{{{ .Values.model.id }}}}' is an unrendered template: {RENDER}",
        "ERROR line 45: modelArtifacts.uri: modelArtifacts.uri "
        "'oci://registry.example.com/models/qwen3': the chart renders only hf://, pvc:// and "
        "pvc+hf://",
    ],
    "compose.yaml": [
        "WARN  line 3  defaults: no GPU named; starts on:",
        # compose's words: the variable comes from .env beside the file, not a Helm chart
        "ERROR line 17: '--model ${MODEL:?set MODEL}' is an unrendered template: set it in .env "
        "beside the compose file (compose reads that file), or render first (docker compose "
        "config)",
        # compose's words for it, not a pod's resources.limits
        "ERROR line 27: deploy: the service reserves no GPU; add deploy.resources.reservations."
        "devices (driver: nvidia, count: 1, capabilities: [gpu]), or runtime: nvidia with "
        "NVIDIA_VISIBLE_DEVICES naming 1 GPU(s)",
        "WARN  line 32  escaped: no GPU named; starts on:",
    ],
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_failure_modes_give_the_exact_line(name: str) -> None:
    got = _lines(name)
    want = FAILURES[name]
    assert len(got) >= len(want)
    for line, expected in zip(got, want, strict=False):
        assert line.startswith(expected) if expected.endswith("starts on:") else line == expected


def _deployment(name: str, index: int):  # type: ignore[no-untyped-def]
    from kvplan.check import read_targets

    target = read_targets(SYN / name, {})[index]
    assert target.deployment is not None, target.problems
    return target.deployment


def test_what_each_reader_puts_in_the_launch_record() -> None:
    # RayService: TP 2 a replica (engine_kwargs), accelerator_type L4, one replica by default
    dep = _deployment("rayservice.yaml", 4)
    assert (dep.model, dep.hardware.gpu, dep.parallel.tensor, dep.hardware.count,
            dep.engine.max_model_len) == ("qwen3-0.6b", "l4", 2, 2, 8192)
    # RayClusterFleet: a head and a worker of 8 GPUs each make one TP-16 engine on 2 nodes
    dep = _deployment("rayclusterfleet.yaml", 4)
    assert (dep.parallel.tensor, dep.parallel.nodes, dep.hardware.count) == (16, 2, 16)
    # StormService: 2 role sets x 2 prefill replicas = 4 one-GPU engines; decode: TP 2 over a
    # podGroupSize-2 group of 1-GPU pods, 2 role sets x 1 = 2 engines = 4 GPUs
    assert _deployment("stormservice.yaml", 4).hardware.count == 4
    dep = _deployment("stormservice.yaml", 5)
    assert (dep.parallel.tensor, dep.parallel.nodes, dep.hardware.count) == (2, 2, 4)
    # Dynamo multinode: nodeCount 2 x gpu 8 = one TP-16 engine
    dep = _deployment("dynamo.yaml", 4)
    assert (dep.parallel.tensor, dep.parallel.nodes, dep.hardware.gpu) == (16, 2,
                                                                           "h100-sxm-80gb")
    # LLMInferenceService: parallelism.tensor 2, 2 replicas, VLLM_ADDITIONAL_ARGS read
    dep = _deployment("llmisvc.yaml", 4)
    assert (dep.parallel.tensor, dep.hardware.count, dep.engine.max_model_len,
            dep.hardware.gpu) == (2, 4, 16384, "l4")
    # llm-d: tensor 2 fills nvidia.com/gpu 2, 2 replicas, acceleratorTypes label
    dep = _deployment("llmd-values.yaml", 4)
    assert (dep.parallel.tensor, dep.hardware.count, dep.hardware.gpu) == (2, 4, "l4")
    # compose: ${MODEL:-...} and ${LEN-8192} take their defaults; $$LEN is the shell's
    assert _deployment("compose.yaml", 0).engine.max_model_len == 8192
    assert _deployment("compose.yaml", 3).engine.max_model_len == 4096
