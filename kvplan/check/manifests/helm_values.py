"""vLLM production-stack Helm values: each `servingEngineSpec.modelSpec[]` entry is a vLLM
Deployment the chart renders (vllm serve <modelURL> with vllmConfig's options, requestGPU GPUs
per pod, replicaCount pods, nodeSelectorTerms for the node)."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.helm_ray import (
    RAY_CONFIG,
    RAY_READ_ELSE,
    is_ray,
    ray_args,
    ray_cluster,
    ray_env,
)
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

SCHEMA = "production-stack Helm values"

# What helm/templates/deployment-vllm-multi.yaml renders (vllm-project/production-stack at
# a6c01db0; the same at 20a65804, where runner and convert came in, and at dfe05514), in its order.
# modelSpec keys before vllmConfig's, by Go template truth: enableLoRA :139-141, enableTool
# :142-144, toolCallParser :145-148; after them, modelRevision :200-203 and chatTemplate :218-221
# (a file under the /templates mount). They were dropped in silence (task h53checkgaps); the
# engine-options layer now sees them, so --enable-lora gets its not-modelled note
# (kvplan.check.manifests.unread) and the rest are named as not used by kvplan's plan.
MODEL_FIRST = (("enableLoRA", "--enable-lora", False), ("enableTool", "--enable-auto-tool-choice",
               False), ("toolCallParser", "--tool-call-parser", True))
MODEL_LAST = (("modelRevision", "--revision", ""), ("chatTemplate", "--chat-template",
                                                    "/templates/"))
# Inside `{{- with $modelSpec.vllmConfig }}` (:149-199), so only when vllmConfig is set and not
# empty: enableChunkedPrefill by hasKey, on or off (:150-156); enablePrefixCaching by truth, and
# `--no-enable-prefix-caching` when it is unset or false (:157-161); then each key by hasKey, as the
# chart spells the option (:162-193); then extraArgs (:194-198). Task h55gaps: the reader
# rendered `false` as nothing (an unset prefix-caching key as nothing), never rendered runner and
# convert, and rendered pipelineParallelSize and maxNumBatchedTokens, which this template does
# not (only the Ray template renders pipelineParallelSize).
VLLM_CONFIG = {
    "maxModelLen": "--max-model-len",
    "dtype": "--dtype",
    "tensorParallelSize": "--tensor-parallel-size",
    "maxNumSeqs": "--max-num-seqs",
    "gpuMemoryUtilization": "--gpu_memory_utilization",  # :178-181, as the chart writes it
    "maxLoras": "--max_loras",  # :182-185, as the chart writes it
    "runner": "--runner",  # :186-189
    "convert": "--convert",  # :190-193
}
# vllmConfig keys the template reads but renders as no option: v0 (VLLM_USE_V1 "0" env when "1")
# and prometheusMultiprocDir (PROMETHEUS_MULTIPROC_DIR env, :238-247)
READ_ELSE = ("enableChunkedPrefill", "enablePrefixCaching", "extraArgs", "v0",
             "prometheusMultiprocDir")


def go_true(value: Any) -> bool:
    """Go template truth, as `{{ if X }}` and `{{ with X }}` read a values key: false, 0, nil,
    the empty string and an empty list or map are false; anything else (a quoted "false"
    included) is true."""
    if isinstance(value, (list, dict, str)):
        return len(value) > 0
    return value is not None and value is not False and value != 0


def go_text(value: Any) -> str:
    """A scalar as `{{ .X | quote }}` prints it: YAML's true/false as Go writes them."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def model_first_args(ms: dict[str, Any]) -> list[str]:
    """The modelSpec switches both templates (Deployment and RayCluster head) render right
    after the model."""
    args: list[str] = []
    for key, flag, valued in MODEL_FIRST:
        if go_true(ms.get(key)):
            args += [flag, go_text(ms[key])] if valued else [flag]
    return args


def chunked_prefill_args(cfg: dict[str, Any]) -> list[str]:
    """vllmConfig.enableChunkedPrefill as both templates render it: the flag when true, its
    `--no-` form when false, nothing when the key is absent."""
    if "enableChunkedPrefill" not in cfg:
        return []
    on = go_true(cfg["enableChunkedPrefill"])
    return ["--enable-chunked-prefill" if on else "--no-enable-chunked-prefill"]


def chart_args(ms: dict[str, Any], cfg: dict[str, Any], extra: Any) -> list[str]:
    """The vllm serve command the Deployment template renders for one modelSpec entry."""
    args: list[str] = ["vllm", "serve", str(ms.get("modelURL", "")), *model_first_args(ms)]
    if go_true(cfg):
        args += chunked_prefill_args(cfg)
        on = go_true(cfg.get("enablePrefixCaching"))
        args.append("--enable-prefix-caching" if on else "--no-enable-prefix-caching")
        for key, flag in VLLM_CONFIG.items():
            if key in cfg:
                args += [flag, go_text(cfg[key])]
        args += [go_text(a) for a in extra] if isinstance(extra, list) else []
    for key, flag, prefix in MODEL_LAST:
        if go_true(ms.get(key)):
            args += [flag, f"{prefix}{go_text(ms[key])}"]
    return args


def unrendered(cfg: dict[str, Any], ray: bool = False) -> list[str]:
    """A note naming the vllmConfig keys the template does not read (the chart's schema lets any
    key in): vLLM never sees them."""
    known = (*RAY_CONFIG, *RAY_READ_ELSE) if ray else (*VLLM_CONFIG, *READ_ELSE)
    keys = sorted(str(k) for k in cfg if k not in known)
    if not keys:
        return []
    what = ("RayCluster template (helm/templates/ray-cluster.yaml)" if ray else
            "Deployment template (helm/templates/deployment-vllm-multi.yaml)")
    return [f"vllmConfig {', '.join(keys)}: the chart's {what} reads no such key, so what it "
            "renders does not change with it; an engine option goes in vllmConfig.extraArgs"]


# chart.resources (helm/templates/_helpers.tpl :167-207 at a6c01db0): requestGPU under
# requestGPUType (default nvidia.com/gpu), and HAMi's shares of one GPU
GPU_TYPES = ("nvidia.com/gpu", "amd.com/gpu")
HAMI_MEMORY = ("requestGPUMem", "requestGPUMemPercentage", "limitGPUMem", "limitGPUMemPercentage")
HAMI_CORES = ("requestGPUCores", "limitGPUCores")


def resources(ms: dict[str, Any], at: Key, doc: Doc, bad: list[Problem]) -> dict[str, Any]:
    """The container's resources as the chart renders them: a `resources` block as written
    (:413-416), else requestGPU under requestGPUType. A MIG slice or a HAMi memory share is a
    part of a GPU, which kvplan does not plan: refused with its key (task h55gaps: they were
    rendered as whole nvidia.com/gpu GPUs in silence; the chart's own helm/values.yaml asks for
    nvidia.com/mig-4g.71gb and 3000 MiB of HAMi memory)."""
    raw = ms.get("resources")
    if go_true(raw) and isinstance(raw, dict):
        return raw
    kind = ms.get("requestGPUType")
    if go_true(kind) and str(kind) not in GPU_TYPES:
        bad.append(Problem("requestGPUType", f"{go_text(kind)}: the chart asks Kubernetes for "
                           "this resource in place of whole GPUs (a MIG slice, or a device "
                           "plugin's share); kvplan plans whole GPUs: set requestGPUType "
                           "nvidia.com/gpu to check it", doc.line(*at, "requestGPUType")))
    hami = [k for k in HAMI_MEMORY if k in ms]
    if hami:
        said = ", ".join(f"{k} {go_text(ms[k])}" for k in hami)
        bad.append(Problem(hami[0], f"{said}: HAMi caps the GPU memory the container sees "
                           "(nvidia.com/gpumem, gpumem-percentage), which moves the KV pool and "
                           "kvplan does not model; drop them to check the whole GPU",
                           doc.line(*at, hami[0])))
    gpu = str(kind) if go_true(kind) and str(kind) in GPU_TYPES else "nvidia.com/gpu"
    return {"limits": {gpu: ms.get("requestGPU", 0)}}


def _not_rendered(data: dict[str, Any], ms: dict[str, Any]) -> list[str]:
    """An entry the chart renders nothing for, said: it is checked as it would be rendered."""
    out = []
    spec = data["servingEngineSpec"]
    if "enableEngine" in spec and not go_true(spec["enableEngine"]):
        out.append(f"servingEngineSpec.enableEngine {go_text(spec['enableEngine'])}: the chart "
                   "renders no engine; checked as it renders with enableEngine true")
    if ms.get("enabled") is False:  # `{{- if ne $modelSpec.enabled false }}`: false alone
        out.append("enabled: false: the chart renders nothing for this model; checked as it "
                   "renders once enabled")
    cores = [k for k in HAMI_CORES if k in ms]
    if cores:
        out.append(f"{', '.join(cores)}: HAMi's share of the GPU's cores moves speed, not "
                   "memory; not used by kvplan's plan")
    return out


# keys the chart tests by Go template truth, where a quoted "false" is a non-empty string: true
TRUTH_KEYS = (("", ("enableLoRA", "enableTool")),
              ("vllmConfig.", ("enableChunkedPrefill", "enablePrefixCaching")))


def quoted_false(ms: dict[str, Any], cfg: dict[str, Any]) -> list[str]:
    """A note for a switch written as the string "false" (or "no", "off", "0"): the chart's `if`
    reads any non-empty string as true, so it renders the option on, as kvplan checks it (task
    h56review: `enablePrefixCaching: "false"` rendered --enable-prefix-caching, unsaid)."""
    out = []
    for prefix, keys in TRUTH_KEYS:
        held = cfg if prefix else ms
        for key in keys:
            value = held.get(key)
            if isinstance(value, str) and value.strip().lower() in ("false", "no", "off", "0"):
                out.append(f"{prefix}{key}: {value!r} is a string, which the chart's template "
                           "reads as true (any non-empty string is): it renders the option on, "
                           "and so kvplan checks it; write false, unquoted, to turn it off")
    if isinstance(ms.get("enabled"), str) and ms["enabled"].strip().lower() == "false":
        out.append("enabled: 'false' is a string, not false: the chart's `ne $modelSpec.enabled "
                   "false` renders the model, and so kvplan checks it; write false, unquoted, "
                   "to leave it out")
    return out


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
        extra = typed(cfg, "extraArgs", (*at, "vllmConfig"), doc, bad, SCHEMA, list)
        ray = is_ray(ms)
        args = ray_args(ms, cfg, extra) if ray else chart_args(ms, cfg, extra)
        image = f"{ms.get('repository', 'vllm/vllm-openai')}:{ms.get('tag', 'latest')}"
        # env as the chart renders it: VLLM_USE_V1 "0" when vllmConfig.v0 is "1" (the Ray
        # template: vllmConfig.v1, else "0"), then the modelSpec's own env (deployment-vllm-multi
        # .yaml at 010004ee)
        env: list[Any] = ray_env(cfg) if ray else ([{"name": "VLLM_USE_V1", "value": "0"}]
                                                   if str(cfg.get("v0", "")) == "1" else [])
        own = ms.get("env")
        env += [e for e in own if isinstance(e, dict)] if isinstance(own, list) else []
        if own is not None and not isinstance(own, list):
            env = own  # kept as written: the shape check (kvplan.check.manifests.shapes) names it
        res = resources(ms, at, doc, bad)
        if ray:
            head, pods, total, said = ray_cluster(ms)
            res = {"limits": {"nvidia.com/gpu": head}}
        container = {"image": image, "command": args, "env": env, "resources": res}
        pod: dict[str, Any] = {"containers": [container]}
        typed(ms, "nodeSelectorTerms", at, doc, bad, SCHEMA, list)
        terms = ms.get("nodeSelectorTerms")
        if isinstance(terms, list):
            pod["affinity"] = {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
        site = PodSite("modelSpec", pod, at, [(container, at)], ms.get("replicaCount", 1),
                       (*at, "replicaCount") if "replicaCount" in ms else at)
        if ray:  # one Ray cluster: replicaCount counts its workers, not engines
            site.replicas, site.replicas_at = 1, (*at, "raySpec")
            site.gpus_total, site.pods_per_engine = total, pods
            site.notes.append(said)
        site.name = str(ms["name"]) if ms.get("name") else None
        site.annotations = typed(ms, "annotations", at, doc, bad, SCHEMA)
        site.problems = bad
        site.group, site.line_at = i, at
        site.notes += (_lmcache_note(ms.get("lmcacheConfig")) + unrendered(cfg, ray)
                       + _not_rendered(data, ms) + quoted_false(ms, cfg))
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
