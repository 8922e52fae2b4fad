"""A FAIL in the file's own words: the line its annotation points at, and each fix as the
kvplan fields, or the manifest's flags and labels, it changes."""

from __future__ import annotations

from kvplan.check.gpus import label_for
from kvplan.check.manifests.engine import FLAG_NAMES
from kvplan.check.target import COMPOSE, DOCKER_RUN, KUBERNETES, SCRIPT, Target
from kvplan.check.verdict import Fix, Numbers

# more replicas in each kind's words: a script or `docker run` line starts one server, so more
# replicas are more servers like it, each on GPUs of its own
REPLICAS = {
    KUBERNETES: "replicas: {old} -> {new}",
    COMPOSE: "deploy.replicas: {old} -> {new}",
    SCRIPT: "{old} -> {new} servers like this one (each on its own CUDA_VISIBLE_DEVICES)",
    DOCKER_RUN: "{old} -> {new} containers like this one (each with its own --gpus)",
}


def fail_line(target: Target, numbers: Numbers) -> int:
    """The line a FAIL annotation points at: the tensor size (or GPU) when the weights do not
    fit, max_model_len when one sequence does not fit or the p95 is longer, else the GPU count
    (replicas in a manifest)."""
    if not numbers.would_start and numbers.limited_by == "weights":
        paths: tuple[str, ...] = ("parallel.tensor", "hardware.gpu", "model")
    elif not numbers.would_start or (
        numbers.p95_tokens is not None and numbers.p95_tokens > numbers.max_model_len
    ):
        paths = ("engine.max_model_len", "engine", "model")
    else:
        paths = ()
    for path in paths:
        if target.doc is not None and tuple(path.split(".")) in target.doc.lines:
            return target.line_of(path)
    return target.line_of("hardware.count")


def describe_fix(target: Target, fix: Fix) -> str:
    """A fix in the file's own words (kvplan fields, or manifest flags and labels)."""
    from kvplan.check.startup import sequences

    parts = []
    new, old = fix.new, fix.old
    manifest = target.manifest
    names = FLAG_NAMES.get(target.server or "vllm", FLAG_NAMES["vllm"])
    if "tp" in new:
        flag = names["tp"]
        if manifest:
            per_pod = new["tp"] * (target.planned.request.pp if target.planned else 1)
            per_pod *= target.engines_per_pod
            parts.append(f"{flag} {old['tp']} -> {new['tp']} with "
                         + target.gpu_request.format(n=per_pod))
        else:
            parts.append(f"parallel.tensor: {old['tp']} -> {new['tp']}")
    if "gpus" in new:
        if manifest:
            per_pod = fix.numbers.gpus_per_replica * target.engines_per_pod
            pods_old = old["gpus"] // (
                (target.planned.request.gpus_per_replica if target.planned else 1)
                * target.engines_per_pod
            )
            pods_new = new["gpus"] // per_pod
            if pods_new != pods_old:
                parts.append(REPLICAS.get(target.kind, REPLICAS[KUBERNETES]).format(
                    old=pods_old, new=pods_new))
        else:
            parts.append(f"hardware.count: {old['gpus']} -> {new['gpus']}")
    if "kv_cache_dtype" in new:
        if manifest:
            parts.append(names["kv"])
        else:
            parts.append(f"engine.kv_cache_dtype: {old['kv_cache_dtype']} -> fp8")
    for key, name in (("max_num_seqs", "seqs"), ("max_model_len", "len")):
        if key in new:
            label = names[name] if manifest else f"engine.{key}:"
            parts.append(f"{label} {old[key]} -> {new[key]}")
    if "gpu" in new:
        if manifest and target.label_key is not None:
            family = target.label_key
            label = label_for(new["gpu"], family) or new["gpu"]
            parts.append(f"{family}: {label} ({new['gpu']})")
        elif manifest:  # the GPU came from a side file, an annotation or --gpu, not a label
            parts.append(f"GPU {old['gpu']} -> {new['gpu']}")
        else:
            parts.append(f"hardware.gpu: {old['gpu']} -> {new['gpu']}")
    n = fix.numbers
    if target.no_traffic:  # no load declared: say what starts, not a placeholder user count
        return (f"{' and '.join(parts)} (starts; holds {sequences(n.kv_users_per_replica)} of "
                f"{n.max_model_len:,} tokens per replica on {n.gpus} GPU(s))")
    return f"{' and '.join(parts)} (holds {n.users_held:,} users on {n.gpus} GPU(s))"
