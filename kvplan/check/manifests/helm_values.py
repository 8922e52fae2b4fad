"""vLLM production-stack Helm values: each `servingEngineSpec.modelSpec[]` entry is a vLLM
Deployment the chart renders (vllm serve <modelURL> with vllmConfig's options, requestGPU GPUs
per pod, replicaCount pods, nodeSelectorTerms for the node)."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

SCHEMA = "production-stack Helm values"

# vllmConfig key -> the vllm serve option the chart renders it as (helm/templates/
# deployment-vllm-multi.yaml in vllm-project/production-stack)
VLLM_CONFIG = {
    "maxModelLen": "--max-model-len",
    "tensorParallelSize": "--tensor-parallel-size",
    "pipelineParallelSize": "--pipeline-parallel-size",
    "gpuMemoryUtilization": "--gpu-memory-utilization",
    "dtype": "--dtype",
    "maxNumSeqs": "--max-num-seqs",
    "maxNumBatchedTokens": "--max-num-batched-tokens",
    "maxLoras": "--max_loras",  # :181-184, as the chart writes it
}
VLLM_FLAGS = {"enablePrefixCaching": "--enable-prefix-caching",
              "enableChunkedPrefill": "--enable-chunked-prefill"}
# modelSpec keys the chart renders as options (deployment-vllm-multi.yaml at a6c01db0): before
# vllmConfig's, enableLoRA :139-141, enableTool :142-144, toolCallParser :145-148; after them,
# modelRevision :200-203 and chatTemplate :218-221 (a file under the /templates mount). They
# were dropped in silence (task h53checkgaps); the engine-options layer now sees them, so
# --enable-lora gets its not-modelled note (kvplan.check.manifests.unread) and the rest are
# named as not used by kvplan's plan.
MODEL_FIRST = (("enableLoRA", "--enable-lora", False), ("enableTool", "--enable-auto-tool-choice",
               False), ("toolCallParser", "--tool-call-parser", True))
MODEL_LAST = (("modelRevision", "--revision", ""), ("chatTemplate", "--chat-template",
                                                    "/templates/"))


def is_values(data: dict[str, Any]) -> bool:
    spec = data.get("servingEngineSpec")
    return isinstance(spec, dict) and isinstance(spec.get("modelSpec"), list)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    out = []
    for i, ms in enumerate(data["servingEngineSpec"]["modelSpec"]):
        at = ("servingEngineSpec", "modelSpec", i)
        if not isinstance(ms, dict):  # a model the chart would not render: named, not skipped
            site = PodSite("modelSpec", {}, at, [], problems=[mistyped(at, dict, ms, doc, SCHEMA)])
            site.group, site.line_at = i, at
            out.append(site)
            continue
        bad: list[Problem] = []
        cfg: dict[str, Any] = typed(ms, "vllmConfig", at, doc, bad, SCHEMA)
        args: list[str] = ["vllm", "serve", str(ms.get("modelURL", ""))]
        for key, flag, valued in MODEL_FIRST:
            if ms.get(key):
                args += [flag, str(ms[key])] if valued else [flag]
        for key, flag in VLLM_CONFIG.items():
            if key in cfg:
                args += [flag, str(cfg[key])]
        for key, flag in VLLM_FLAGS.items():
            if cfg.get(key) is True:
                args.append(flag)
        extra = typed(cfg, "extraArgs", (*at, "vllmConfig"), doc, bad, SCHEMA, list)
        args += [str(a) for a in extra] if isinstance(extra, list) else []
        for key, flag, prefix in MODEL_LAST:
            if ms.get(key):
                args += [flag, f"{prefix}{ms[key]}"]
        image = f"{ms.get('repository', 'vllm/vllm-openai')}:{ms.get('tag', 'latest')}"
        # env as the chart renders it: VLLM_USE_V1 "0" when vllmConfig.v0 is "1", then the
        # modelSpec's own env (deployment-vllm-multi.yaml at 010004ee)
        env: list[Any] = ([{"name": "VLLM_USE_V1", "value": "0"}]
                          if str(cfg.get("v0", "")) == "1" else [])
        own = ms.get("env")
        env += [e for e in own if isinstance(e, dict)] if isinstance(own, list) else []
        if own is not None and not isinstance(own, list):
            env = own  # kept as written: the shape check (kvplan.check.manifests.shapes) names it
        container = {"image": image, "command": args, "env": env,
                     "resources": {"limits": {"nvidia.com/gpu": ms.get("requestGPU", 0)}}}
        pod: dict[str, Any] = {"containers": [container]}
        typed(ms, "nodeSelectorTerms", at, doc, bad, SCHEMA, list)
        terms = ms.get("nodeSelectorTerms")
        if isinstance(terms, list):
            pod["affinity"] = {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
        site = PodSite("modelSpec", pod, at, [(container, at)], ms.get("replicaCount", 1),
                       (*at, "replicaCount") if "replicaCount" in ms else at)
        site.name = str(ms["name"]) if ms.get("name") else None
        site.annotations = typed(ms, "annotations", at, doc, bad, SCHEMA)
        site.problems = bad
        site.group, site.line_at = i, at
        site.notes += _lmcache_note(ms.get("lmcacheConfig"))
        out.append(site)
    return out


def _lmcache_note(cfg: Any) -> list[str]:
    """What an enabled lmcacheConfig renders, and why the plan leaves it out: the chart adds
    `--kv-transfer-config {"kv_connector":"LMCacheConnectorV1",...}` (LMCacheConnector under
    vllmConfig.v0 "1") and LMCACHE_* env, cpuOffloadingBufferSize as LMCACHE_MAX_LOCAL_CPU_SIZE
    (helm/templates/deployment-vllm-multi.yaml at a6c01db0, lines 204-214 and 284-346). It was
    passed over in silence (blind round blind-2026-12-06-r4, task h52checkround:
    tutorials/assets/values-17-kv-aware.yaml). An `enabled` the template reads as true that is not
    YAML's true (`"true"`) was passed over in silence still (task h54review)."""
    # `{{- if $modelSpec.lmcacheConfig.enabled }}`: Go's truth, as Python's for YAML's scalars
    # (a quoted "true", or any non-empty string, renders the connector too)
    if not isinstance(cfg, dict) or not cfg.get("enabled"):
        return []
    cpu = cfg.get("cpuOffloadingBufferSize")
    host = (f"; cpuOffloadingBufferSize {cpu} (LMCACHE_MAX_LOCAL_CPU_SIZE, GB) is host memory"
            if cpu is not None else "")
    return [f"lmcacheConfig: the chart runs LMCache as vLLM's KV connector (--kv-transfer-config, "
            f"LMCACHE_* env){host}; the plan is vLLM's own GPU KV pool (LMCache's GPU buffers "
            "are not booked)"]
