"""A FAIL in the file's own words: the line its annotation points at, and each fix as the
kvplan fields, or the manifest's flags and labels, it changes."""

from __future__ import annotations

from kvplan.check.fix_flags import kv_value, lacked
from kvplan.check.gpus import label_for
from kvplan.check.manifests.option_fields import FLAG_NAMES
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


def trtllm_file_keys(target: Target) -> dict[str, tuple[str, str]]:
    """For a kvplan/v1 file whose engine.trtllm_config names a TensorRT-LLM options file: the
    fields that file sets (its limits, its settings, and a cache dtype it leaves at auto), each
    with (the file, its key), as Found.files holds them for a manifest; a field the record
    states with another value is refused ("state one"), so a fix changes the file's key."""
    dep = target.deployment
    ref = dep.engine.trtllm_config if dep is not None else None
    if not ref:
        return {}
    from pathlib import Path

    from kvplan.engines.trtllm_config import file_name, limits_from
    from kvplan.engines.trtllm_settings import get_path, settings_from
    from kvplan.errors import InputError
    from kvplan.inputs import load_json, load_yaml

    path = Path(ref) if Path(ref).is_absolute() else (target.base_dir or Path(".")) / ref
    try:
        data = load_json(path) if path.suffix == ".json" else load_yaml(path)
        limits, (settings, _) = limits_from(data, path.name), settings_from(data, path.name)
    except (InputError, OSError):
        return {}  # the plan has already said why the file was not read
    engine_file = isinstance(data, dict) and "build_config" in data
    out = {f"engine.{f}": (path.name, file_name(f, engine_file)) for f in limits}
    out |= {s.path: (path.name, s.key) for s in settings}
    for key in ("kv_cache_config.dtype", "kv_cache_dtype"):
        if get_path(data, tuple(key.split("."))) == "auto":
            out.setdefault("engine.kv_cache_dtype", (path.name, key))
    out["engine.trtllm_config"] = (path.name, "")
    return out


def describe_fix(target: Target, fix: Fix) -> str:
    """A fix in the file's own words (kvplan fields, or manifest flags and labels)."""
    from kvplan.check.startup import sequences

    parts = []
    new, old = fix.new, fix.old
    manifest = target.manifest
    names = FLAG_NAMES.get(target.server or "vllm", FLAG_NAMES["vllm"])
    # a value an options file set is changed there: the flag would be overridden by the file
    # (TensorRT-LLM) or contradict it (vLLM, SGLang: the command line wins, silently for the file)
    files = target.files if manifest else trtllm_file_keys(target)
    release = target.deployment.engine.version if target.deployment else None

    def named(flag: str) -> str:  # a flag the stated release lacks is said so (task h71sglfix)
        lacks = lacked(target.server or "", release, flag)
        return flag if lacks is None else f"{flag} {lacks}"

    if "tp" in new:
        flag = named(names["tp"])
        src = files.get("parallel.tensor")
        in_file = f"{src[1]} {old['tp']} -> {new['tp']} in {src[0]}" if src else None
        if manifest:
            per_pod = new["tp"] * (target.planned.request.pp if target.planned else 1)
            per_pod *= target.engines_per_pod
            said = in_file or f"{flag} {old['tp']} -> {new['tp']}"
            parts.append(f"{said} with " + target.gpu_request.format(n=per_pod))
        else:
            parts.append(in_file or f"parallel.tensor: {old['tp']} -> {new['tp']}")
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
        src = files.get("engine.kv_cache_dtype")
        fp8 = names["fp8"]
        if src:  # the file states the cache dtype (as auto, or another 16-bit one)
            stated = target.deployment.engine.kv_cache_dtype if target.deployment else None
            parts.append(f"{src[1]}: {stated or old['kv_cache_dtype']} -> {fp8} in {src[0]}")
        elif "engine.trtllm_config" in files:  # it is applied over the flags: add it there
            parts.append(f"kv_cache_config.dtype: {fp8} (add to {files['engine.trtllm_config'][0]})")
        elif manifest:  # a value the stated release takes (task h71sglfix)
            offered = kv_value(target.server or "", release, fp8)
            parts.append(names["kv"] if offered is None
                         else names["kv"].replace(fp8, offered[0]) + offered[1])
        else:
            parts.append(f"engine.kv_cache_dtype: {old['kv_cache_dtype']} -> fp8")
    for key, name in (("max_num_seqs", "seqs"), ("max_model_len", "len")):
        if key in new:
            src = files.get(f"engine.{key}")
            if src:
                parts.append(f"{src[1]} {old[key]} -> {new[key]} in {src[0]}")
                continue
            label = named(names[name]) if manifest else f"engine.{key}:"
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
