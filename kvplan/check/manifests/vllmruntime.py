"""vLLM production-stack operator VLLMRuntime (production-stack.vllm.ai/v1alpha1): the operator
renders one Deployment running `/opt/venv/bin/vllm serve` with arguments built from spec.model
and spec.vllmConfig (vllm-project/production-stack operator/internal/controller/
vllmruntime_controller.go, operator/api/v1alpha1/vllmruntime_types.go at a6c01db0):

    <model.modelURL> --host 0.0.0.0 --port <vllmConfig.port, default 8000>
    [--enable-lora] [--enable-auto-tool-choice] [--tool-call-parser P]     (spec.model)
    --enable-chunked-prefill | --no-enable-chunked-prefill      (vllmConfig.enableChunkedPrefill)
    --enable-prefix-caching | --no-enable-prefix-caching        (vllmConfig.enablePrefixCaching)
    [--max-model-len model.maxModelLen] [--dtype model.dtype]
    [--tensor-parallel-size vllmConfig.tensorParallelSize] [--max-num-seqs model.maxNumSeqs]
    [--gpu_memory_utilization vllmConfig.gpuMemoryUtilization] [--max_loras vllmConfig.maxLoras]
    <vllmConfig.extraArgs> [--chat-template /etc/chat-template.json when model.chatTemplate]
    [--kv-transfer-config <LMCache> when lmCacheConfig.enabled]

deploymentConfig.resources.gpu GPUs of deploymentConfig.resources.gpuType (default
nvidia.com/gpu) a pod, deploymentConfig.replicas pods (default 1; autoscalingConfig.enabled:
minReplicas, default 1), deploymentConfig.nodeSelectorTerms for the node, the image
deploymentConfig.image.registry + "/" + name. A key the CRD does not have is refused.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key
from kvplan.specs.loader import suggest

KINDS = ("VLLMRuntime",)
SCHEMA = "VLLMRuntime CRD, production-stack.vllm.ai/v1alpha1"
MODEL_KEYS = {"modelURL", "hfTokenSecret", "enableLoRA", "enableTool", "toolCallParser",
              "maxModelLen", "dtype", "maxNumSeqs", "chatTemplate"}
SPEC_KEYS = {"model", "vllmConfig", "lmCacheConfig", "storageConfig", "deploymentConfig",
             "autoscalingConfig"}
# int32 in the CRD (operator/api/v1alpha1/vllmruntime_types.go, ModelSpec and VLLMConfig, at
# 18f0b206): the API server refuses any other type; `tensorParallelSize: ''` had been read as
# unset, planned at TP 1 in silence (task h70hostile)
_INT32 = frozenset({"maxModelLen", "tensorParallelSize", "maxNumSeqs", "maxLoras"})
VLLM_KEYS = {"enableChunkedPrefill", "enablePrefixCaching", "tensorParallelSize",
             "gpuMemoryUtilization", "maxLoras", "extraArgs", "v1", "port", "env"}


def _unknown(block: dict[str, Any], known: set[str], at: Key, doc: Doc) -> list[Problem]:
    """One problem naming every key of `block` the CRD does not have."""
    bad = [str(k) for k in block if k not in known]
    if not bad:
        return []
    hint = suggest(bad[0], sorted(known)) if len(bad) == 1 else ""
    what = "not a VLLMRuntime field" if len(bad) == 1 else "not VLLMRuntime fields"
    return [Problem(", ".join(f"{at[-1]}.{k}" for k in bad),
                    f"{what}{hint} (it takes {', '.join(sorted(known))}): the API server drops "
                    "them, so the operator never passes them on", doc.line(*at, bad[0]))]


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    spec = typed(data, "spec", (), doc, bad, SCHEMA)
    model = typed(spec, "model", ("spec",), doc, bad, SCHEMA)
    cfg = typed(spec, "vllmConfig", ("spec",), doc, bad, SCHEMA)
    dep = typed(spec, "deploymentConfig", ("spec",), doc, bad, SCHEMA)
    m_at, v_at, d_at = ("spec", "model"), ("spec", "vllmConfig"), ("spec", "deploymentConfig")
    problems = bad + (_unknown(spec, SPEC_KEYS, ("spec",), doc) + _unknown(model, MODEL_KEYS, m_at, doc)
                + _unknown(cfg, VLLM_KEYS, v_at, doc))
    words: list[tuple[str, int]] = [("/opt/venv/bin/vllm", doc.line(*m_at)),
                                    ("serve", doc.line(*m_at)),
                                    (str(model.get("modelURL", "")), doc.line(*m_at, "modelURL"))]

    def add(flag: str, value: Any, line: int) -> None:
        words.append((flag, line))
        if value is not None:
            words.append((str(value), line))

    if model.get("enableLoRA"):
        add("--enable-lora", None, doc.line(*m_at, "enableLoRA"))
    if model.get("enableTool"):  # controller :453-459 (task h53checkgaps: were dropped)
        add("--enable-auto-tool-choice", None, doc.line(*m_at, "enableTool"))
    if model.get("toolCallParser"):
        add("--tool-call-parser", model["toolCallParser"], doc.line(*m_at, "toolCallParser"))
    for key, on, off in (("enableChunkedPrefill", "--enable-chunked-prefill",
                          "--no-enable-chunked-prefill"),
                         ("enablePrefixCaching", "--enable-prefix-caching",
                          "--no-enable-prefix-caching")):
        add(on if cfg.get(key) else off, None, doc.line(*v_at, key))
    for block, b_at, key, flag in ((model, m_at, "maxModelLen", "--max-model-len"),
                                   (model, m_at, "dtype", "--dtype"),
                                   (cfg, v_at, "tensorParallelSize", "--tensor-parallel-size"),
                                   (model, m_at, "maxNumSeqs", "--max-num-seqs"),
                                   (cfg, v_at, "gpuMemoryUtilization", "--gpu_memory_utilization"),
                                   (cfg, v_at, "maxLoras", "--max_loras")):
        value = block.get(key)
        if key in _INT32 and isinstance(value, (bool, str, list, dict)):
            problems.append(mistyped((*b_at, key), int, value, doc, SCHEMA))
        elif value not in (None, "", 0):
            add(flag, value, doc.line(*b_at, key))
    extra = typed(cfg, "extraArgs", v_at, doc, problems, SCHEMA, list)
    for j, a in enumerate(extra if isinstance(extra, list) else []):
        words.append((str(a), doc.line(*v_at, "extraArgs", j)))
    if model.get("chatTemplate"):  # controller :513-515: mounted from a ConfigMap
        add("--chat-template", "/etc/chat-template.json", doc.line(*m_at, "chatTemplate"))
    notes = []
    if typed(spec, "lmCacheConfig", ("spec",), doc, problems, SCHEMA).get("enabled"):
        notes.append("lmCacheConfig: LMCache offloads KV to CPU/remote; the GPU pool is sized "
                     "as vLLM's own")
    res = typed(dep, "resources", d_at, doc, problems, SCHEMA)
    image = typed(dep, "image", d_at, doc, problems, SCHEMA)
    for key in ("registry", "name"):  # strings: a list was written into the image in silence
        typed(image, key, (*d_at, "image"), doc, problems, SCHEMA, str)
    env = cfg.get("env")
    if env is not None and not isinstance(env, list):
        problems.append(mistyped((*v_at, "env"), list, env, doc))
    for j, item in enumerate(env if isinstance(env, list) else []):
        if not isinstance(item, dict):  # an EnvVar is a mapping: never dropped in silence
            problems.append(mistyped((*v_at, "env", j), dict, item, doc))
    container: dict[str, Any] = {
        "image": f"{image.get('registry', 'docker.io')}/{image.get('name', '')}",
        "command": [w for w, _ in words],
        "env": [e for e in env if isinstance(e, dict)] if isinstance(env, list) else [],
    }
    c_at: Key = ("spec", "deploymentConfig", "__container__")
    lines: dict[Key, int] = {(*c_at, "command", k): line for k, (_, line) in enumerate(words)}
    if "gpu" in res:
        gpu_type = str(res.get("gpuType") or "nvidia.com/gpu")
        container["resources"] = {"limits": {gpu_type: res["gpu"]}}
        lines[c_at + ("resources", "limits", gpu_type)] = doc.line(*d_at, "resources", "gpu")
    replicas: Any = dep.get("replicas", 1)  # kubebuilder default 1
    replicas_at: Key = (*d_at, "replicas")
    auto = typed(spec, "autoscalingConfig", ("spec",), doc, problems, SCHEMA)
    if auto.get("enabled"):
        replicas = auto.get("minReplicas", 1)
        replicas_at = ("spec", "autoscalingConfig", "minReplicas") if "minReplicas" in auto \
            else ("spec", "autoscalingConfig")
        notes.append(f"checked at autoscalingConfig.minReplicas {replicas} (KEDA scales up to "
                     f"{auto.get('maxReplicas', '?')})")
        if replicas == 0:
            replicas = 1
            notes.append("minReplicas 0 (scale to zero): checked as the first replica it starts")
    pod: dict[str, Any] = {"containers": [container]}
    terms = typed(dep, "nodeSelectorTerms", d_at, doc, problems, SCHEMA, list)
    if isinstance(dep.get("nodeSelectorTerms"), list):  # absent: no affinity at all
        pod["affinity"] = {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    ann = typed(dep, "podAnnotations", d_at, doc, problems, SCHEMA)
    return [PodSite("VLLMRuntime", pod, d_at, [(container, c_at)], replicas, replicas_at,
                    annotations=ann, lines=lines, problems=problems, notes=notes)]
