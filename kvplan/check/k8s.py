"""Kubernetes Deployments and StatefulSets that run vLLM or SGLang, read as kvplan deployments.

The server command line gives the model and the engine flags; `nvidia.com/gpu` limits, the pod
replicas and the node's GPU product label give the hardware; `kvplan.io/...` annotations or a
side file `<manifest>.kvplan.yaml` give the traffic. Each kvplan field remembers the manifest
line it came from, so errors and annotations point at the right line.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from kvplan.check.gpus import GKE_LABEL, PRODUCT_LABEL, UnknownLabel, catalog_name
from kvplan.check.target import KUBERNETES, Target
from kvplan.deploy import Problem, parse_deployment, resolve_gpu, validation_problems
from kvplan.deploy.problems import DeploymentError
from kvplan.deploy.schema import Requirement, Traffic
from kvplan.deploy.yamldoc import Doc, Key, read_docs
from kvplan.errors import InputError
from kvplan.specs.loader import all_models, suggest

WORKLOAD_KINDS = ("Deployment", "StatefulSet")
# Manifests are checked with the plain arithmetic until engine profiles exist; the server a
# manifest runs is kept in Target.server (and can be chosen with kvplan.io/engine).
ENGINE_FOR_MANIFESTS = "ideal"

ANNOTATION_PREFIX = "kvplan.io/"
# annotation -> kvplan/v1 field
ANNOTATIONS = {
    "peak-concurrent-users": "traffic.peak_concurrent_users",
    "arrival-rate-per-s": "traffic.arrival_rate_per_s",
    "mean-duration-s": "traffic.mean_duration_s",
    "peak-to-mean": "traffic.peak_to_mean",
    "context-tokens-mean": "traffic.context_tokens.mean",
    "context-tokens-p95": "traffic.context_tokens.p95",
    "shared-prefix-tokens": "traffic.shared_prefix_tokens",
    "min-users": "requirement.min_users",
    "headroom-pct": "requirement.headroom_pct",
    "model": "model",
    "gpu": "hardware.gpu",
    "engine": "engine.name",
}
SKIP_ANNOTATION = "skip"

# server flag -> (kvplan field, kind). Both spellings of a flag map to the same field.
VLLM_FLAGS: dict[str, tuple[str, str]] = {
    "--model": ("model", "str"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "-tp": ("parallel.tensor", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "-pp": ("parallel.pipeline", "int"),
    "--data-parallel-size": ("dp", "int"),
    "-dp": ("dp", "int"),
    "--max-model-len": ("engine.max_model_len", "tokens"),
    "--gpu-memory-utilization": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--block-size": ("engine.block_size", "int"),
    "--max-num-seqs": ("engine.max_num_seqs", "int"),
    "--max-num-batched-tokens": ("engine.max_num_batched_tokens", "tokens"),
    "--enable-prefix-caching": ("engine.enable_prefix_caching", "true"),
    "--no-enable-prefix-caching": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
    "-q": ("quantization", "str"),
}
SGLANG_FLAGS: dict[str, tuple[str, str]] = {
    "--model-path": ("model", "str"),
    "--model": ("model", "str"),
    "--tp-size": ("parallel.tensor", "int"),
    "--tp": ("parallel.tensor", "int"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "--pp-size": ("parallel.pipeline", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "--dp-size": ("dp", "int"),
    "--dp": ("dp", "int"),
    "--data-parallel-size": ("dp", "int"),
    "--context-length": ("engine.max_model_len", "tokens"),
    "--mem-fraction-static": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--page-size": ("engine.block_size", "int"),
    "--max-running-requests": ("engine.max_num_seqs", "int"),
    "--chunked-prefill-size": ("engine.max_num_batched_tokens", "int"),
    "--disable-radix-cache": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
}
# SGLang's own defaults that differ from kvplan/v1's (vLLM-named) defaults.
SGLANG_DEFAULTS = {"engine.block_size": 1, "engine.enable_prefix_caching": True}

SHELLS = {"sh", "bash", "ash", "dash", "zsh"}


class SideEntry(BaseModel):
    """What a side file may give for one workload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    traffic: Traffic | None = None
    requirement: Requirement | None = None
    model: str | None = None
    gpu: str | None = None
    engine: str | None = None


class SideFile(SideEntry):
    """`<manifest>.kvplan.yaml`: traffic for every workload, or per workload name."""

    workloads: dict[str, SideEntry] = {}


@dataclass
class Command:
    """A server invocation found in a container."""

    server: str  # vllm | sglang
    flags: dict[str, tuple[str, str]]  # the server's flag table
    tokens: list[str]
    lines: list[int]  # the manifest line of each token
    model_positional: tuple[str, int] | None = None


@dataclass
class Found:
    """kvplan fields read from a manifest, with the line of each and what to call it."""

    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def put(self, path: str, value: Any, line: int, name: str) -> None:
        self.values[path] = value
        self.lines[path] = line
        self.names[path] = name


def side_file_for(path: Path) -> Path | None:
    """`llama.kvplan.yaml` (or `llama.yaml.kvplan.yaml`) next to `llama.yaml`."""
    for candidate in (
        path.with_name(path.stem + ".kvplan.yaml"),
        path.with_name(path.stem + ".kvplan.yml"),
        path.with_name(path.name + ".kvplan.yaml"),
    ):
        if candidate.is_file():
            return candidate
    return None


def is_side_file(path: Path) -> bool:
    """A `.kvplan.yaml` file with a manifest of the same stem next to it."""
    name = path.name
    for suffix in (".kvplan.yaml", ".kvplan.yml"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            if stem.endswith((".yaml", ".yml")):
                return (path.parent / stem).is_file()
            return any((path.parent / (stem + ext)).is_file() for ext in (".yaml", ".yml"))
    return False


def is_workload(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") in WORKLOAD_KINDS


def _split_shell(script: str) -> list[str]:
    """The words of the part of a shell script that starts a server (after && ; |)."""
    try:
        words = shlex.split(script, comments=True)
    except ValueError:
        words = script.split()
    part: list[str] = []
    for word in words:
        if word in ("&&", ";", "||", "|"):
            if _server_start(part) is not None:
                return part
            part = []
        else:
            part.append(word.rstrip(";"))
    return part


def _server_start(tokens: list[str]) -> tuple[str, int] | None:
    """(server, index just past the server invocation) or None."""
    for i, tok in enumerate(tokens):
        base = tok.rsplit("/", 1)[-1]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if base == "vllm" and nxt == "serve":
            return "vllm", i + 2
        if tok == "-m" and nxt.startswith("vllm.entrypoints.openai.api_server"):
            return "vllm", i + 2
        if tok == "-m" and nxt in ("sglang.launch_server", "sglang.launch_server.py"):
            return "sglang", i + 2
    return None


def find_command(container: dict[str, Any], doc: Doc, at: Key) -> Command | None:
    """The vLLM / SGLang invocation a container runs, with a line for each word."""
    words: list[str] = []
    lines: list[int] = []
    for part in ("command", "args"):
        value = container.get(part)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            continue
        for i, item in enumerate(value):
            line = doc.line(*at, part, i)
            text = str(item)
            if words and words[-1] == "-c" and words[0].rsplit("/", 1)[-1] in SHELLS:
                for word in _split_shell(text):
                    words.append(word)
                    lines.append(line)
            else:
                words.append(text)
                lines.append(line)
    start = _server_start(words)
    image = str(container.get("image", ""))
    if start is None and "vllm-openai" in image and not container.get("command"):
        start = ("vllm", 0)  # the image's entrypoint runs the OpenAI server on `args`
    if start is None:
        return None
    server, i = start
    cmd = Command(
        server=server,
        flags=VLLM_FLAGS if server == "vllm" else SGLANG_FLAGS,
        tokens=words[i:],
        lines=lines[i:],
    )
    if server == "vllm" and cmd.tokens and not cmd.tokens[0].startswith("-"):
        cmd.model_positional = (cmd.tokens[0], cmd.lines[0])
        cmd.tokens, cmd.lines = cmd.tokens[1:], cmd.lines[1:]
    return cmd


_ENV_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' $(VAR) expansion in command and args, from literal env values."""
    return _ENV_REF.sub(lambda m: env.get(m.group(1), m.group(0)), text)


def _tokens(text: str) -> int:
    """vLLM accepts 32k / 1M style lengths: k/m are powers of 1000, K/M powers of 1024."""
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", text.strip())
    if not match:
        raise ValueError(text)
    scale = {"": 1, "k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20, "g": 10**9, "G": 2**30}
    return int(match.group(1)) * scale[match.group(2)]


def parse_flags(cmd: Command, env: dict[str, str], found: Found, problems: list[Problem]) -> None:
    """Read the flags kvplan uses; the others are left alone."""
    if cmd.model_positional:
        model, line = cmd.model_positional
        found.put("model", _expand(model, env), line, "the served model")
    i = 0
    toks = cmd.tokens
    while i < len(toks):
        tok = toks[i]
        line = cmd.lines[i]
        if not tok.startswith("-"):
            i += 1
            continue
        name, eq, inline = tok.partition("=")
        entry = cmd.flags.get(name)
        has_value = bool(eq) or (i + 1 < len(toks) and not toks[i + 1].startswith("-"))
        if entry is None:
            i += 1 if eq or not has_value else 2
            continue
        path, kind = entry
        if kind in ("true", "false"):
            found.put(path, kind == "true", line, name)
            i += 1
            continue
        if not has_value:
            problems.append(Problem(name, "needs a value", line))
            i += 1
            continue
        raw = _expand(inline if eq else toks[i + 1], env)
        i += 1 if eq else 2
        try:
            value: Any = raw
            if kind == "int":
                value = int(raw)
            elif kind == "tokens":
                value = _tokens(raw)
            elif kind == "float":
                value = float(raw)
        except ValueError:
            problems.append(Problem(name, f"{raw!r} is not a number", line))
            continue
        found.put(path, value, line, name)


def _gpu_limit(container: dict[str, Any]) -> Any:
    res = container.get("resources") or {}
    for part in ("limits", "requests"):
        section = res.get(part) or {}
        if isinstance(section, dict) and "nvidia.com/gpu" in section:
            return part, section["nvidia.com/gpu"]
    return None


def _affinity_products(pod: dict[str, Any], doc: Doc, at: Key) -> Iterator[tuple[str, int]]:
    node = ((pod.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = node.get("nodeSelectorTerms") or [] if isinstance(node, dict) else []
    for t, term in enumerate(terms):
        for e, expr in enumerate((term or {}).get("matchExpressions") or []):
            if not isinstance(expr, dict) or expr.get("key") not in (PRODUCT_LABEL, GKE_LABEL):
                continue
            if expr.get("operator", "In") != "In":
                continue
            for v, value in enumerate(expr.get("values") or []):
                where = (
                    *at,
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                    t,
                    "matchExpressions",
                    e,
                    "values",
                    v,
                )
                yield str(value), doc.line(*where)


@lru_cache(maxsize=1)
def hf_index() -> dict[str, tuple[str, str]]:
    """Hugging Face id (lower case) -> (catalog model name, the id as published)."""
    models, _ = all_models()
    return {m.hf_id.lower(): (m.name, m.hf_id) for m in models if m.hf_id}


def _model_ref(ref: str) -> tuple[str | None, str | None]:
    """(catalog name, None) or (None, what to do) for a served model id or path."""
    index = hf_index()
    if ref.lower() in index:
        return index[ref.lower()][0], None
    if ref in {name for name, _ in index.values()}:
        return ref, None
    if ref.startswith(("/", "./", "s3://", "gs://")):
        return None, (
            f"{ref!r} is a path inside the container; set the annotation kvplan.io/model to a "
            "catalog name or a spec file"
        )
    close = suggest(ref, [hf for _, hf in index.values()])
    return None, (
        f"{ref!r} is not in the catalog (no model spec has this hf_id){close}; add a spec "
        f"with `kvplan import {ref}` or write one under model_specs/, or set the annotation "
        "kvplan.io/model to a catalog name or a spec file path"
    )


def _set(tree: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        tree = tree.setdefault(part, {})
    tree[parts[-1]] = value


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = (
            _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
        )
    return out


def _read_side(path: Path) -> tuple[SideFile | None, Doc | None, list[Problem]]:
    try:
        docs = read_docs(path)
    except DeploymentError as err:
        return None, None, err.items
    if not docs:
        return None, None, [Problem("", "the side file is empty", 1)]
    doc = docs[0]
    if not isinstance(doc.data, dict):
        return None, doc, [Problem("", "expected a mapping with traffic:", doc.start_line)]
    try:
        return SideFile.model_validate(doc.data), doc, []
    except ValidationError as err:
        return None, doc, validation_problems(SideFile, err, doc)


def read_workload(doc: Doc, path: Path, side_cache: dict[Path, Any]) -> Target | None:
    """A Target for one Deployment/StatefulSet document, or None if it runs no LLM server."""
    data = doc.data
    meta = data.get("metadata") or {}
    name = str(meta.get("name", "")) or None
    spec = data.get("spec") or {}
    template = spec.get("template") or {}
    pod = template.get("spec") or {}
    pod_at: Key = ("spec", "template", "spec")
    containers = pod.get("containers") or []
    found = Found()
    problems: list[Problem] = []
    notes: list[str] = []
    cmd = None
    container: dict[str, Any] = {}
    c_at: Key = ()
    for i, c in enumerate(containers if isinstance(containers, list) else []):
        if isinstance(c, dict):
            cmd = find_command(c, doc, (*pod_at, "containers", i))
            if cmd is not None:
                container, c_at = c, (*pod_at, "containers", i)
                break
    annotations = {
        **((template.get("metadata") or {}).get("annotations") or {}),
        **(meta.get("annotations") or {}),
    }
    if cmd is None:
        return None
    if str(annotations.get(ANNOTATION_PREFIX + SKIP_ANNOTATION, "")).lower() == "true":
        return None

    def ann_line(key: str) -> int:
        if key in (meta.get("annotations") or {}):
            return doc.line("metadata", "annotations", key)
        return doc.line("spec", "template", "metadata", "annotations", key)

    target = Target(
        file=str(path),
        kind=KUBERNETES,
        line=doc.start_line,
        name=name,
        base_dir=path.parent,
        server=cmd.server,
    )
    env = {
        str(e.get("name")): str(e.get("value"))
        for e in container.get("env") or []
        if isinstance(e, dict) and "value" in e
    }
    parse_flags(cmd, env, found, problems)
    if cmd.server == "sglang":
        for key, value in SGLANG_DEFAULTS.items():
            found.values.setdefault(key, value)
    image = str(container.get("image", ""))
    version = image.rsplit(":", 1)[-1].lstrip("v") if ":" in image.rsplit("/", 1)[-1] else None

    # engine values the schema does not hold directly
    quant = found.values.pop("quantization", None)
    if quant is not None:
        if str(quant).lower() == "fp8":
            found.put(
                "engine.weight_dtype", "fp8", found.lines.pop("quantization"), "--quantization"
            )
        else:
            problems.append(
                Problem(
                    "--quantization",
                    f"{quant!r} weights are not modelled; set kvplan.io/model "
                    "to a spec with the quantized weight dtype",
                    found.lines.pop("quantization"),
                )
            )
    if found.values.get("engine.weight_dtype") == "auto":
        found.values.pop("engine.weight_dtype")
    kv = found.values.get("engine.kv_cache_dtype")
    if kv is not None and str(kv).startswith("fp8"):
        found.values["engine.kv_cache_dtype"] = "fp8"
    dp = found.values.pop("dp", 1)
    dp_line = found.lines.pop("dp", None)

    # hardware: GPUs per pod, pod replicas, GPU product
    limit = _gpu_limit(container)
    tp = int(found.values.get("parallel.tensor", 1) or 1)
    pp = int(found.values.get("parallel.pipeline", 1) or 1)
    engine_gpus = tp * pp * int(dp or 1)
    replicas = spec.get("replicas", 1)
    replicas_line = doc.line("spec", "replicas") if "replicas" in spec else doc.line("spec")
    if limit is None:
        problems.append(
            Problem(
                "nvidia.com/gpu",
                "the server container sets no nvidia.com/gpu limit; add "
                f"resources.limits nvidia.com/gpu: {engine_gpus}",
                doc.line(*c_at),
            )
        )
    else:
        part, value = limit
        lim_line = doc.line(*c_at, "resources", part, "nvidia.com/gpu")
        try:
            per_pod = int(str(value))
        except ValueError:
            per_pod = 0
        if per_pod <= 0:
            problems.append(
                Problem("nvidia.com/gpu", f"{value!r} is not a positive count", lim_line)
            )
        elif per_pod < engine_gpus:
            what = f"--tensor-parallel-size {tp}" if cmd.server == "vllm" else f"--tp-size {tp}"
            if pp > 1 or dp > 1:
                what += f" x pipeline {pp} x data-parallel {dp}"
            problems.append(
                Problem(
                    "nvidia.com/gpu",
                    f"{what} needs {engine_gpus} GPUs but the container's "
                    f"nvidia.com/gpu is {per_pod}",
                    lim_line,
                )
            )
        else:
            if per_pod > engine_gpus:
                notes.append(
                    f"{per_pod - engine_gpus} of {per_pod} GPUs per pod unused by the server"
                )
            if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
                problems.append(Problem("replicas", f"{replicas!r} is not a count", replicas_line))
            elif replicas == 0:
                problems.append(Problem("replicas", "0 replicas hold no users", replicas_line))
            else:
                found.put("hardware.count", replicas * engine_gpus, replicas_line, "replicas")
                found.lines["hardware"] = lim_line
    target.engines_per_pod = int(dp or 1)
    if dp_line is not None:
        notes.append(f"{dp} data-parallel engines per pod")

    labels: list[tuple[str, int]] = []
    selector = pod.get("nodeSelector") or {}
    for key in (PRODUCT_LABEL, GKE_LABEL):
        if isinstance(selector, dict) and key in selector:
            labels.append((str(selector[key]), doc.line(*pod_at, "nodeSelector", key)))
    labels.extend(_affinity_products(pod, doc, pod_at))
    gpu_ann = annotations.get(ANNOTATION_PREFIX + "gpu")
    if gpu_ann is not None:
        found.put(
            "hardware.gpu", str(gpu_ann), ann_line(ANNOTATION_PREFIX + "gpu"), "kvplan.io/gpu"
        )
    elif labels:
        mapped: list[tuple[str, str, int]] = []
        for label, line in labels:
            try:
                mapped.append((catalog_name(label), label, line))
            except UnknownLabel as err:
                problems.append(Problem(PRODUCT_LABEL, str(err), line))
        if mapped and len(mapped) == len(labels):
            names = sorted({m[0] for m in mapped})
            gpu, label, line = mapped[0]
            try:
                resolve_gpu(gpu)
            except InputError:
                problems.append(
                    Problem(
                        PRODUCT_LABEL,
                        (
                            f"{label} maps to {gpu!r}, which the GPU catalog does not "
                            f"hold; add hardware_specs/{gpu}.yaml or set the annotation "
                            "kvplan.io/gpu to a catalog name (`kvplan gpus`)"
                        ),
                        line,
                    )
                )
            if len(names) > 1:
                notes.append(f"node affinity allows {', '.join(names)}; checked on {gpu}")
            found.put("hardware.gpu", gpu, line, PRODUCT_LABEL)
    else:
        problems.append(
            Problem(
                PRODUCT_LABEL,
                "no GPU product: add nodeSelector nvidia.com/gpu.product (for "
                "example NVIDIA-H100-80GB-HBM3), a node affinity on it, or the annotation "
                "kvplan.io/gpu",
                doc.line(*pod_at),
            )
        )

    # annotations, then the side file over them
    for key, value in annotations.items():
        if not str(key).startswith(ANNOTATION_PREFIX):
            continue
        short = str(key)[len(ANNOTATION_PREFIX) :]
        if short == SKIP_ANNOTATION or short == "gpu":
            continue
        if short not in ANNOTATIONS:
            hint = suggest(short, ANNOTATIONS)
            problems.append(
                Problem(str(key), f"unknown kvplan annotation{hint}", ann_line(str(key)))
            )
            continue
        found.put(ANNOTATIONS[short], value, ann_line(str(key)), str(key))

    side = side_file_for(path)
    if side is not None:
        if side not in side_cache:
            side_cache[side] = _read_side(side)
        side_spec, side_doc, side_problems = side_cache[side]
        for p in side_problems:
            problems.append(Problem(p.field, f"{side.name}: {p.message}", None))
        if side_spec is not None:
            entries = [side_spec]
            if name and name in side_spec.workloads:
                entries.append(side_spec.workloads[name])
            for entry in entries:
                for attr in ("traffic", "requirement"):
                    block = getattr(entry, attr)
                    if block is None:
                        continue
                    merged = _deep_merge(
                        {
                            k[len(attr) + 1 :]: v
                            for k, v in found.values.items()
                            if k.startswith(attr + ".")
                        },
                        block.model_dump(exclude_unset=True),
                    )
                    for k in [k for k in found.values if k.startswith(attr + ".")]:
                        found.values.pop(k)
                    for k, v in _flatten(merged, attr).items():
                        found.values[k] = v
                        found.names.setdefault(k, f"{side.name}: {k}")
                for attr, path_ in (
                    ("model", "model"),
                    ("gpu", "hardware.gpu"),
                    ("engine", "engine.name"),
                ):
                    value = getattr(entry, attr)
                    if value is not None:
                        found.values[path_] = value
                        found.names[path_] = f"{side.name}: {attr}"
                        found.lines.pop(path_, None)
                        problems[:] = [
                            p for p in problems if not (attr == "gpu" and p.field == PRODUCT_LABEL)
                        ]
            target.notes.append(f"traffic from {side.name}")

    if not any(k.startswith("traffic.") for k in found.values):
        problems.append(
            Problem(
                "traffic",
                "no traffic declared: add the annotation kvplan.io/peak-concurrent-users "
                "(or kvplan.io/arrival-rate-per-s with kvplan.io/mean-duration-s), and "
                f"kvplan.io/context-tokens-mean, or a side file {path.stem}.kvplan.yaml with a "
                "traffic: block",
                doc.line("metadata"),
            )
        )

    # the model: an annotation or side file wins over the served id
    model = found.values.get("model")
    if model is None:
        problems.append(
            Problem("model", "no model: the server command names none", doc.line(*c_at))
        )
    elif found.names.get("model") in ("--model", "--model-path", "the served model"):
        name_, why = _model_ref(str(model))
        if name_ is None:
            problems.append(Problem(found.names["model"], str(why), found.lines.get("model")))
        else:
            found.values["model"] = name_

    found.values.setdefault("engine.name", ENGINE_FOR_MANIFESTS)
    if version:
        found.values["engine.version"] = version

    target.names = {k: v for k, v in found.names.items()} | {
        "hardware.count": "replicas",
        "traffic": "kvplan.io traffic annotations",
    }
    target.doc = Doc(
        data=None,
        start_line=doc.start_line,
        lines={tuple(k.split(".")): v for k, v in found.lines.items()},
    )
    target.notes = notes + target.notes
    if problems:
        target.problems = problems
        return target
    tree: dict[str, Any] = {"apiVersion": "kvplan/v1", "name": name or path.stem}
    for k, v in found.values.items():
        _set(tree, k, v)
    tree.setdefault("hardware", {})
    try:
        target.deployment = parse_deployment(tree, str(path), target.doc)
    except DeploymentError as err:
        target.problems = target.renamed(err.items)
    return target


def _flatten(tree: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in tree.items():
        key = f"{prefix}.{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out
