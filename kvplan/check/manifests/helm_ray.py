"""production-stack's Ray path: a modelSpec whose raySpec.enabled is true renders a KubeRay
RayCluster (helm/templates/ray-cluster.yaml in vllm-project/production-stack at a6c01db0) in
place of the Deployment (deployment-vllm-multi.yaml :4 skips it). Its head pod runs
`vllm serve ... --distributed-executor-backend ray` (:670-677) over a head with
raySpec.headNode.requestGPU GPUs and replicaCount workers with requestGPU each (:334), one
engine across them. The command differs from the Deployment's: prefix caching only when true
(no `--no-enable-prefix-caching`, :700-702), pipelineParallelSize rendered (:716-718), the
options spelled with dashes, no runner or convert, and chatTemplate as written (:755-757).
VLLM_USE_V1 is vllmConfig.v1 when set, else "0" (:113-121). Task h55gaps: the reader rendered
such an entry as a one-pod Deployment (tutorials/assets/values-15-a: "tensor 1 x pipeline 2
needs 2 GPUs but the engine has 1", where the cluster holds 2)."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.raycluster import _gpus

# vllmConfig key -> option, in the template's order (:704-731)
RAY_CONFIG = {
    "maxModelLen": "--max-model-len",
    "dtype": "--dtype",
    "tensorParallelSize": "--tensor-parallel-size",
    "pipelineParallelSize": "--pipeline-parallel-size",
    "maxNumSeqs": "--max-num-seqs",
    "gpuMemoryUtilization": "--gpu-memory-utilization",
    "maxLoras": "--max-loras",
}
RAY_READ_ELSE = ("enableChunkedPrefill", "enablePrefixCaching", "extraArgs", "v1")


def is_ray(ms: dict[str, Any]) -> bool:
    """`{{- if and (hasKey $modelSpec "raySpec") $modelSpec.raySpec.enabled }}`."""
    from kvplan.check.manifests.helm_values import go_true

    ray = ms.get("raySpec")
    return isinstance(ray, dict) and go_true(ray.get("enabled"))


def ray_args(ms: dict[str, Any], cfg: dict[str, Any], extra: Any) -> list[str]:
    """The head's `vllm serve` command as ray-cluster.yaml builds ARGS (:670-757)."""
    from kvplan.check.manifests.helm_values import (
        chunked_prefill_args,
        go_text,
        go_true,
        model_first_args,
    )

    args = ["vllm", "serve", str(ms.get("modelURL", "")), "--distributed-executor-backend", "ray",
            *model_first_args(ms)]
    if go_true(cfg):
        args += chunked_prefill_args(cfg)
        if go_true(cfg.get("enablePrefixCaching")):
            args.append("--enable-prefix-caching")
        for key, flag in RAY_CONFIG.items():
            if key in cfg:
                args += [flag, go_text(cfg[key])]
        args += [go_text(a) for a in extra] if isinstance(extra, list) else []
    if go_true(ms.get("modelRevision")):
        args += ["--revision", go_text(ms["modelRevision"])]
    if go_true(ms.get("chatTemplate")):
        args += ["--chat-template", go_text(ms["chatTemplate"])]
    return args


def ray_env(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    from kvplan.check.manifests.helm_values import go_text, go_true

    if not go_true(cfg):
        return []
    return [{"name": "VLLM_USE_V1", "value": go_text(cfg["v1"]) if "v1" in cfg else "0"}]


def _pod_gpus(block: dict[str, Any]) -> int:
    """A pod's GPUs as chart.resources renders them: a raw `resources` wins, else requestGPU."""
    raw = block.get("resources")
    if isinstance(raw, dict) and raw:
        return _gpus({"containers": [{"resources": raw}]}, {})
    try:
        return max(int(str(block.get("requestGPU", 0))), 0)
    except ValueError:
        return 0


def ray_cluster(ms: dict[str, Any]) -> tuple[int, int, int, str]:
    """(GPUs of the head pod, pods holding GPUs, GPUs in all, the note saying so)."""
    ray = ms["raySpec"]
    head_node = ray.get("headNode")
    head = _pod_gpus(head_node if isinstance(head_node, dict) else {})
    count = ms.get("replicaCount", 1)
    workers = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0
    per = _pod_gpus(ms)
    total = head + workers * per
    pods = (head > 0) + (workers if per > 0 else 0)
    note = (f"raySpec.enabled: the chart renders a RayCluster (helm/templates/ray-cluster.yaml), "
            f"not a Deployment: a head with {head} GPU(s) and {workers} worker(s) "
            f"(replicaCount) with {per} each run one engine of {total} GPU(s) "
            "(--distributed-executor-backend ray)")
    return head, max(pods, 1), total, note
