"""Task h46silent: a manifest field kvplan walks (a template, its metadata and annotations, a
CRD's model / config / resources block, extra arguments, a Ray Serve LLMConfig's engine_kwargs,
StormService roles) written with the wrong type is one ERROR naming the file's dotted field,
its line, what it must be and what was written, where it used to read as empty and skip the
field in silence (h44fuzz's finding). Each case is a real file under tests/assets/check with one
field rewritten in tmp_path; the verdict of the untouched file is pinned by test_check_corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "check"

# (format, real file, text replaced (once), replacement, the one ERROR line)
CASES = [
    ("kubernetes", "corpus/gke/vllm-2-2b-it.yaml",
     "        examples.ai.gke.io/source: user-guide\n", "      annotations: user-guide\n",
     "ERROR line 31: spec.template.metadata.annotations: must be a mapping (Kubernetes core/v1 "
     "PodTemplateSpec), got a string ('user-guide'); write it as a mapping, or remove it"),
    ("leaderworkerset", "corpus/lws/lws-vllm-gpu.yaml",
     "    leaderTemplate:\n      metadata:\n        labels:\n          role: leader\n",
     "    leaderTemplate:\n      metadata: leader\n",
     "ERROR line 11: spec.leaderWorkerTemplate.leaderTemplate.metadata: must be a mapping "
     "(LeaderWorkerSet CRD, leaderworkerset.x-k8s.io/v1), got a string ('leader'); write it as "
     "a mapping, or remove it"),
    ("kserve", "qa/kserve-isvc-runtime-only.yaml",
     "    model:\n      runtime: vllm\n", "    model: vllm\n    x:\n",
     "ERROR line 8: spec.predictor.model: must be a mapping (KServe CRD, serving.kserve.io), "
     "got a string ('vllm'); write it as a mapping, or remove it"),
    ("vllmruntime", "corpus/production-stack/production-stack_v1alpha1_vllmruntime.yaml",
     '    resources:\n      cpu: "5"\n      memory: "32Gi"\n      gpu: "1"\n'
     '      gpuType: "nvidia.com/gpu"\n', '    resources: "1 gpu"\n',
     "ERROR line 50: spec.deploymentConfig.resources: must be a mapping (VLLMRuntime CRD, "
     "production-stack.vllm.ai/v1alpha1), got a string ('1 gpu'); write it as a mapping, or "
     "remove it"),
    ("helm_values", "corpus/production-stack/values-02-basic-config.yaml",
     '      extraArgs: ["--gpu-memory-utilization", "0.8"]\n',
     '      extraArgs: "--gpu-memory-utilization 0.8"\n',
     "ERROR line 23: servingEngineSpec.modelSpec.0.vllmConfig.extraArgs: must be a list "
     "(production-stack Helm values), got a string ('--gpu-memory-utilization 0.8'); write it "
     "as a list, or remove it"),
    ("rayservice", "corpus/kuberay/ray-service.llm-serve.yaml",
     "          engine_kwargs:\n            dtype: bfloat16\n            max_model_len: 1024\n"
     "            device: auto\n            gpu_memory_utilization: 0.75\n",
     "          engine_kwargs: --max-model-len 1024\n",
     "ERROR line 16: applications.0.args.llm_configs.0.engine_kwargs: must be a mapping (Ray "
     "Serve LLM config, in spec.serveConfigV2), got a string ('--max-model-len 1024'); write it "
     "as a mapping, or remove it"),
    ("stormservice", "corpus/aibrix/stormservice-replica.yaml",
     "      roles:\n", "      roles: prefill\n      x:\n",
     "ERROR line 59: spec.template.spec.roles: must be a list (AIBrix StormService CRD, "
     "orchestration.aibrix.ai/v1alpha1), got a string ('prefill'); write it as a list, or "
     "remove it"),
    ("kubeai", "corpus/kubeai/qwen2.5-7b-instruct-l4.yaml",
     "  env:\n    VLLM_ATTENTION_BACKEND: FLASHINFER\n",
     "  env: VLLM_ATTENTION_BACKEND=FLASHINFER\n",
     "ERROR line 17: spec.env: must be a mapping (KubeAI Model CRD, kubeai.org/v1), got a string "
     "('VLLM_ATTENTION_BACKEND=FLASHINFER'); write it as a mapping, or remove it"),
    ("dynamo", "corpus/dynamo/agg.yaml",
     '      resources:\n        limits:\n          gpu: "1"\n',
     '      resources:\n        limits: "1"\n',
     "ERROR line 37: spec.services.VllmDecodeWorker.resources.limits: must be a mapping (Dynamo "
     "DynamoGraphDeployment CRD, nvidia.com), got a string ('1'); write it as a "
     "mapping, or remove it"),
    ("llmisvc", "corpus/kserve/llm-inference-service-qwen2-7b-gpu.yaml",
     "  template:\n    containers:\n", "  template: main\n  x:\n    containers:\n",
     "ERROR line 15: spec.template: must be a mapping (KServe LLMInferenceService CRD, "
     "serving.kserve.io), got a string ('main'); write it as a mapping, or remove it"),
    ("rayclusterfleet", "corpus/aibrix/orchestration_v1alpha1_rayclusterfleet.yaml",
     "        rayStartParams:\n          dashboard-host: '0.0.0.0'\n",
     "        rayStartParams: dashboard-host=0.0.0.0\n",
     "ERROR line 25: spec.template.spec.headGroupSpec.rayStartParams: must be a mapping (KubeRay "
     "RayCluster spec, ray.io/v1), got a string ('dashboard-host=0.0.0.0'); write it as a "
     "mapping, or remove it"),
    ("llmd_values", "corpus/llm-d/ms-inference-scheduling-values.yaml",
     "  parallelism:\n    tensor: 2\n    data: 1\n", "  parallelism: tp2\n",
     "ERROR line 33: decode.parallelism: must be a mapping (llm-d-modelservice chart values), "
     "got a string ('tp2'); write it as a mapping, or remove it"),
    ("ome_isvc", "corpus/ome/isvc-llama-3-1-8b-instruct.yaml",
     "  runtime:\n    name: srt-llama-3-1-8b-instruct\n", "  runtime: srt-llama-3-1-8b-instruct\n",
     "ERROR line 12: spec.runtime: must be a mapping (OME InferenceServiceSpec), got a string "
     "('srt-llama-3-1-8b-instruct'); write it as a mapping, or remove it"),
    ("object-metadata", "corpus/lws/lws-vllm-gpu.yaml",
     "kind: LeaderWorkerSet\nmetadata:\n",
     "kind: LeaderWorkerSet\nmetadata:\n  annotations: kvplan.io/gpu=h100\n",
     "ERROR line 4: metadata.annotations: must be a mapping (Kubernetes ObjectMeta), got a "
     "string ('kvplan.io/gpu=h100'); write it as a mapping, or remove it"),
    # task h47silent: the last blocks a reader walked and read as absent in silence
    ("ome-accelerator-requirements", "corpus/ome/vllm-qwen3-8b-rt.yaml",
     "  protocolVersions:\n", "  acceleratorRequirements: H100\n  protocolVersions:\n",
     "ERROR line 28: spec.acceleratorRequirements: must be a mapping (OME ServingRuntimeSpec), "
     "got a string ('H100'); write it as a mapping, or remove it"),
    ("rayservice-llm-configs", "corpus/kuberay/ray-service.llm-serve.yaml",
     "        llm_configs:\n        - model_loading_config:\n",
     "        llm_configs: /models/qwen.yaml\n        x:\n        - model_loading_config:\n",
     "ERROR line 12: applications.0.args.llm_configs: must be a list (Ray Serve LLM config, in "
     "spec.serveConfigV2), got a string ('/models/qwen.yaml'); write it as a list, or remove "
     "it"),
    ("stormservice-role", "corpus/aibrix/stormservice-replica.yaml",
     "      roles:\n        - name: prefill\n",
     "      roles:\n        - prefill\n        - name: prefill\n",
     "ERROR line 60: spec.template.spec.roles.0: must be a mapping (AIBrix StormService CRD, "
     "orchestration.aibrix.ai/v1alpha1), got a string ('prefill'); write it as a mapping, or "
     "remove it"),
    ("dynamo-pod-template-spec", "corpus/dynamo/v1beta1-agg.yaml",
     "  - name: VllmDecodeWorker\n    podTemplate:\n      spec:\n",
     "  - name: VllmDecodeWorker\n    podTemplate:\n      spec: main\n      x:\n",
     "ERROR line 23: spec.components.1.podTemplate.spec: must be a mapping (Kubernetes core/v1 "
     "PodTemplateSpec), got a string ('main'); write it as a mapping, or remove it"),
    ("dynamo-pod-template-metadata", "corpus/dynamo/v1beta1-agg.yaml",
     "  - name: VllmDecodeWorker\n    podTemplate:\n",
     "  - name: VllmDecodeWorker\n    podTemplate:\n      metadata: worker\n",
     "ERROR line 23: spec.components.1.podTemplate.metadata: must be a mapping (Kubernetes "
     "core/v1 PodTemplateSpec), got a string ('worker'); write it as a mapping, or remove it"),
    ("ray-worker-resources", "corpus/kuberay/ray-service.llm-serve.yaml",
     '            resources:\n              limits:\n                cpu: "32"\n'
     '                memory: "32Gi"\n                nvidia.com/gpu: "4"\n',
     '            resources: nvidia.com/gpu=4\n            x:\n              limits:\n'
     '                cpu: "32"\n                memory: "32Gi"\n                nvidia.com/gpu: "4"\n',
     "ERROR line 80: spec.rayClusterConfig.workerGroupSpecs.0.template.spec.containers.0."
     "resources: must be a mapping (Kubernetes core/v1 schema), got a string "
     "('nvidia.com/gpu=4'); write it as a mapping, or remove it"),
    ("ray-head-resources-limits", "corpus/kuberay/ray-service.llm-serve.yaml",
     '            resources:\n              limits:\n                cpu: "2"\n',
     '            resources:\n              limits: two\n              x:\n                cpu: "2"\n',
     "ERROR line 55: spec.rayClusterConfig.headGroupSpec.template.spec.containers.0.resources."
     "limits: must be a mapping (Kubernetes core/v1 schema), got a string ('two'); write it as "
     "a mapping, or remove it"),
]


def _mutated(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (ASSETS / name).read_text()
    assert text.count(old) == 1, f"{name}: the replaced text must occur once"
    path = tmp_path / Path(name).name
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(("fmt", "name", "old", "new", "line"), CASES, ids=[c[0] for c in CASES])
def test_a_mistyped_field_is_named(tmp_path: Path, fmt: str, name: str, old: str, new: str,
                                   line: str) -> None:
    """The field's dotted path and line (the line of the rewritten key in the mutated file),
    the type the format's schema gives it, what was written; exit 2, never a crash."""
    path = _mutated(tmp_path, name, old, new)
    result = invoke(CliRunner(), "check", str(path))
    assert result.exit_code == 2, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [str(path), line]
    assert lines[-1] == "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR"
    # the deployment's notes follow its ERROR (task h71sglfix: every finding is said)
    assert all(n.startswith("      note: ") for n in lines[2:-1]), lines


def test_ome_model_size_range_of_the_wrong_type_is_a_note(tmp_path: Path) -> None:
    """OME's modelSizeRange only feeds a note (it does not move the plan): written as a string
    it is named in the notes, not dropped in silence."""
    path = _mutated(tmp_path, "corpus/ome/vllm-qwen3-8b-rt.yaml",
                    "  modelSizeRange:\n    min: 7B\n    max: 9B\n", "  modelSizeRange: 7B-9B\n")
    result = invoke(CliRunner(), "check", "-f", "json", str(path))
    assert ("spec.modelSizeRange must be a mapping (min, max: OME ServingRuntimeSpec), got "
            "'7B-9B'; write it as min: and max:, or remove it (not read: it does not move the "
            "plan)") in result.stdout
