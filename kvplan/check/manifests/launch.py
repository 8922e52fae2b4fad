"""A workload read from a manifest becomes a kvplan/v1 `Deployment`: the one conversion.

Models are resolved through kvplan.specs.resolve (catalog name in any case, hf_id, sourced
alias, spec path) without the Hugging Face hub: a CI gate must not reach the network, so a hub
id the catalog lacks is an ERROR naming `kvplan import <id>`. A path inside the container is
named by `--served-model-name`, the annotation kvplan.io/model, or a config.json beside the
manifest. A manifest that declares no traffic is planned with a placeholder load of one user
and judged on start-up alone (`Target.no_traffic`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.manifests.side import flatten, read_side, side_files
from kvplan.check.manifests.workload import Workload
from kvplan.check.target import Target, kind_of_site
from kvplan.deploy import DeploymentError, Problem, parse_deployment
from kvplan.deploy.yamldoc import Doc
from kvplan.engine_traits import traits
from kvplan.errors import InputError
from kvplan.specs.spellings import rewrite

PLACEHOLDER_GPU = "h100-sxm-80gb"  # stands in when no GPU is named: judged over the catalog


def apply_side_file(w: Workload, side_cache: dict[Path, Any]) -> None:
    """`<manifest>.kvplan.yaml`: its blocks replace the annotations' whole blocks."""
    sides = side_files(w.path)
    if not sides:
        return
    side = sides[0]
    if len(sides) > 1:  # one was read and the other passed over in silence (task h70hostile)
        w.problem("", f"{len(sides)} side files beside it: {', '.join(f.name for f in sides)}; "
                  f"kvplan reads one: merge them into {side.name} and remove the other", None)
    if side not in side_cache:
        side_cache[side] = read_side(side)
    spec, _, side_problems = side_cache[side]
    for p in side_problems:
        where = f"{side}, line {p.line}" if p.line else str(side)
        w.problem("", f"in side file {where}: {p.text()}", None)
    if spec is None:
        return
    found = w.found
    entries = [spec]
    if w.name and w.name in spec.workloads:
        entries.append(spec.workloads[w.name])
    for entry in entries:
        for block in ("traffic", "requirement"):
            value = getattr(entry, block)
            if value is None:
                continue
            for k in [k for k in found.values if k.startswith(block + ".")]:
                found.values.pop(k)
                found.lines.pop(k, None)
            for k, v in flatten(value.model_dump(exclude_unset=True), block).items():
                found.values[k] = v
                found.names[k] = f"{side.name}: {k}"
            if block == "traffic":
                w.notes.append(f"traffic from {side.name}")
        for attr, key in (("model", "model"), ("gpu", "hardware.gpu"), ("engine", "engine.name")):
            value = getattr(entry, attr)
            if value is None:
                continue
            found.values[key] = value
            found.names[key] = f"{side.name}: {attr}"
            found.lines.pop(key, None)
            if attr == "gpu":
                w.gpu_named = True
                w.problems[:] = [p for p in w.problems
                                 if p.field not in ("nvidia.com/gpu.product", "resourceProfile")]


def resolve_model(w: Workload) -> None:
    """The model reference as a catalog name or spec path; an ERROR naming what to add."""
    from kvplan.specs.resolve import looks_like_path
    from kvplan.specs.resolve import resolve_model as resolve

    found = w.found
    ref = found.values.get("model")
    line = found.lines.get("model", w.doc.line(*w.c_at) if w.c_at else None)
    source = found.names.get("model", "model")
    if ref is None:
        w.problem("model", "no model: the server command names none", line)
        return
    text = str(ref)
    served = found.values.get("served_name")
    candidates = [text]
    container_path = text.startswith("/") or text.startswith(("s3://", "gs://", "pvc://"))
    if container_path:
        candidates = [str(served)] if served else []
        if rewrite(text) is not None:  # a hub cache folder names its repository
            candidates.append(text)
        beside = w.path.parent / "config.json"
        if beside.is_file():
            candidates.append(str(beside))
    from kvplan.check.manifests.model_hints import folder_said, is_folder, served_said

    # a relative folder (`./Models/llama3.1-8b-instruct`) is a folder not on this machine, as
    # a container's path is, not a spec file (task h53checkgaps): its served name is tried too
    folder = not container_path and looks_like_path(text) and is_folder(text)
    if folder and served:
        candidates.append(str(served))
    if text.startswith("hf://"):
        text = text.removeprefix("hf://")
        candidates = [text]
    for cand in candidates:
        try:
            resolved = resolve(cand, base=w.path.parent, allow_hub=False)
        except InputError:
            continue
        found.values["model"] = str(cand) if resolved.rule == "path" else resolved.spec.name
        if resolved.detail:
            w.notes.append(f"model {resolved.note}")
        elif resolved.rule in ("alias", "path") or cand != text:
            w.notes.append(f"model {cand} \u2192 {resolved.spec.name} ({resolved.rule})")
        return
    hint = folder_said(text) if container_path or folder else ""
    if not hint and served:  # `/mnt/models` names nothing: its served name may
        hint = served_said(str(served))
    if container_path and w.site.model_elsewhere:
        said = f", and its served name {str(served)!r} is not a catalog model" if served else ""
        w.problem(source, f"{text!r}{said}: {w.site.model_elsewhere}", line)
        return
    where = "a path inside the container" if container_path else \
        "a folder kvplan does not find here"
    if (container_path or folder) and served:
        w.problem(source, f"{text!r} is {where}, and its served name "
                  f"{str(served)!r} is not in the catalog (no spec has this name, hf_id or "
                  "alias); set the annotation kvplan.io/model to a catalog name or a spec "
                  f"file{hint}, or add the model under model_specs/", line)
        return
    if container_path or folder:
        # trtllm-serve has no option naming the served model (its option table,
        # kvplan.check.engine_flags.trtllm, has no --served_model_name at its commit): the
        # advice names only what kvplan reads beside the file
        flag = traits(w.inv.engine).served_name_flag if w.inv is not None else \
            "--served-model-name"
        served_flag = f"{flag} <hf id>, " if flag else ""
        w.problem(source, f"{text!r} is {where}; name the model with "
                  f"{served_flag}the annotation kvplan.io/model (a catalog name "
                  f"or spec file){hint}, or a config.json beside the manifest", line)
        return
    if looks_like_path(text) and text.count("/") != 1:
        w.problem(source, f"{text!r}: no such spec file", line)
        return
    from kvplan.specs.loader import all_models, suggest
    from kvplan.specs.name_hints import repo_name_hint
    from kvplan.specs.resolve import quantized_base_hint

    try:
        spelled = rewrite(text)  # an Ollama tag naming a quantization is refused here
    except InputError as err:
        w.problem(source, str(err), line)
        return
    hub_id = spelled[0] if spelled else text
    what = f"{text!r} ({spelled[1]})" if spelled else repr(text)
    # a bare repository name in another spelling (`qwen-2.5-7b-instruct`): the resolver's hint,
    # which outranks difflib's spelling neighbours as in the resolver (for the Windows path
    # C:\AI\models\Qwen3-8B-FP8-Dynamic difflib offered Qwen/Qwen3-32B-FP8, typed-r2.tsv)
    quant = quantized_base_hint(hub_id) or repo_name_hint(hub_id)
    close = "" if quant else suggest(hub_id, [m.hf_id for m in all_models()[0] if m.hf_id])
    w.problem(source, f"{what} is not in the catalog (no spec has this name, hf_id or alias)"
              f"{close}; " + (f"{quant}; " if quant else "") +
              f"add it with `kvplan import {hub_id}` (or a spec under model_specs/), or set the "
              "annotation kvplan.io/model to a catalog name or a spec file", line)


# a fix's GPU request in the words of files that are not pods (describe.describe_fix)
GPU_REQUEST = {"compose service": "{n} GPU(s) in deploy.resources.reservations.devices",
               "shell command": "{n} GPU(s) visible (CUDA_VISIBLE_DEVICES)",
               "docker run": "{n} GPU(s) given to the container (--gpus)"}


def to_target(w: Workload) -> Target:
    """The one conversion from what a manifest says to a kvplan/v1 Deployment."""
    assert w.inv is not None
    found = w.found
    line = w.doc.line(*w.site.line_at) if w.site.line_at is not None else w.doc.start_line
    target = Target(file=str(w.path), kind=kind_of_site(w.site.kind), line=line, name=w.name,
                    base_dir=w.path.parent, server=w.inv.engine, engines_per_pod=w.dp,
                    notes=w.notes, attention_dp=w.attention_dp,
                    attention_flag=w.attention_flag, node_gpus=w.node_gpus)
    target.gpu_request = GPU_REQUEST.get(w.site.kind, target.gpu_request)
    target.files = dict(found.files)
    target.names = dict(found.names) | {"hardware.count": "replicas",
                                        "traffic": "kvplan.io traffic annotations"}
    target.doc = Doc(data=None, start_line=w.doc.start_line,
                     lines={tuple(k.split(".")): v for k, v in found.lines.items()})
    target.label_key = w.label_key
    target.gpu_vendor = w.gpu_vendor
    target.max_model_len_auto = w.site.max_model_len_auto or found.auto_context
    target.refusals = [*w.site.refusals,
                       *(Problem(r.field, r.message, r.line) for r in w.refusals)]
    if w.problems:
        target.problems = w.problems
        return target
    values = {k: v for k, v in found.values.items() if k != "served_name"}
    target.no_traffic = not any(k.startswith("traffic.") for k in values)
    if target.no_traffic:
        values["traffic.peak_concurrent_users"] = 1
    target.gpu_named = w.gpu_named
    if not w.gpu_named:
        values["hardware.gpu"] = PLACEHOLDER_GPU
    tree: dict[str, Any] = {"apiVersion": "kvplan/v1", "name": w.name or w.path.stem}
    for k, v in values.items():
        parts = k.split(".")
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = v
    tree.setdefault("hardware", {})
    try:
        target.deployment = parse_deployment(tree, str(w.path), target.doc)
    except DeploymentError as err:
        target.problems = target.renamed(err.items)
    return target
