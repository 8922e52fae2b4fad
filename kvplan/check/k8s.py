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
from kvplan.engines.interface import parse_version
from kvplan.errors import InputError
from kvplan.specs.loader import all_models, suggest

WORKLOAD_KINDS = ("Deployment", "StatefulSet")
# A manifest is checked with the profile of the server it runs (vllm or sglang), at the version
# its image tag names; `kvplan.io/engine: ideal` asks for the plain arithmetic instead.

ANNOTATION_PREFIX = "kvplan.io/"
# annotation -> kvplan/v1 field
ANNOTATIONS = {
    "peak-concurrent-users": "traffic.peak_concurrent_users",
    "arrival-rate-per-s": "traffic.arrival_rate_per_s",
    "mean-duration-s": "traffic.mean_duration_s",
    "peak-to-mean": "traffic.peak_to_mean",
    "context-tokens-mean": "traffic.context_tokens.mean",
    "context-tokens-p50": "traffic.context_tokens.p50",
    "context-tokens-p95": "traffic.context_tokens.p95",
    "context-tokens-p99": "traffic.context_tokens.p99",
    "risk": "traffic.risk",
    "min-tokens-per-s-per-user": "traffic.min_tokens_per_s_per_user",
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


class _Workload:
    """Reads one Deployment/StatefulSet document into kvplan fields, one concern per method."""

    def __init__(self, doc: Doc, path: Path) -> None:
        self.doc, self.path = doc, path
        data = doc.data
        self.meta = data.get("metadata") or {}
        self.name = str(self.meta.get("name", "")) or None
        self.spec = data.get("spec") or {}
        template = self.spec.get("template") or {}
        self.pod = template.get("spec") or {}
        self.pod_at: Key = ("spec", "template", "spec")
        self.annotations = {
            **((template.get("metadata") or {}).get("annotations") or {}),
            **(self.meta.get("annotations") or {}),
        }
        self.found = Found()
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.container: dict[str, Any] = {}
        self.c_at: Key = ()
        self.cmd: Command | None = None
        self.dp = 1

    def problem(self, field: str, message: str, line: int | None) -> None:
        self.problems.append(Problem(field, message, line))

    def ann_line(self, key: str) -> int:
        if key in (self.meta.get("annotations") or {}):
            return self.doc.line("metadata", "annotations", key)
        return self.doc.line("spec", "template", "metadata", "annotations", key)

    def find_server(self) -> bool:
        containers = self.pod.get("containers") or []
        for i, c in enumerate(containers if isinstance(containers, list) else []):
            if isinstance(c, dict):
                cmd = find_command(c, self.doc, (*self.pod_at, "containers", i))
                if cmd is not None:
                    self.cmd, self.container = cmd, c
                    self.c_at = (*self.pod_at, "containers", i)
                    return True
        return False

    def engine(self) -> None:
        """Server flags, translated to kvplan/v1 engine fields."""
        assert self.cmd is not None
        found = self.found
        env = {
            str(e.get("name")): str(e.get("value"))
            for e in self.container.get("env") or []
            if isinstance(e, dict) and "value" in e
        }
        parse_flags(self.cmd, env, found, self.problems)
        if self.cmd.server == "sglang":
            for key, value in SGLANG_DEFAULTS.items():
                found.values.setdefault(key, value)
        quant = found.values.pop("quantization", None)
        quant_line = found.lines.pop("quantization", None)
        if quant is not None and str(quant).lower() == "fp8":
            found.put("engine.weight_dtype", "fp8", quant_line or 0, "--quantization")
        elif quant is not None:
            self.problem(
                "--quantization",
                f"{quant!r} weights are not modelled; set kvplan.io/model to a spec with the "
                "quantized weight dtype",
                quant_line,
            )
        if found.values.get("engine.weight_dtype") == "auto":
            found.values.pop("engine.weight_dtype")
        kv = found.values.get("engine.kv_cache_dtype")
        if kv is not None and str(kv).startswith("fp8"):
            found.values["engine.kv_cache_dtype"] = "fp8"
        self.dp = int(found.values.pop("dp", 1) or 1)
        if found.lines.pop("dp", None) is not None and self.dp > 1:
            self.notes.append(f"{self.dp} data-parallel engines per pod")
        found.values.setdefault("engine.name", self.cmd.server)
        image = str(self.container.get("image", ""))
        if ":" in image.rsplit("/", 1)[-1] and "engine.version" not in found.values:
            tag = image.rsplit(":", 1)[-1]
            try:
                parse_version(tag)
                found.values["engine.version"] = tag.lstrip("vV")
            except InputError:
                self.notes.append(
                    f"image tag {tag!r} names no version: the {self.cmd.server} profile's "
                    "default version is used"
                )

    def gpus(self) -> None:
        """GPUs: pod replicas x the GPUs one server uses; the limit must hold them."""
        assert self.cmd is not None
        doc, found = self.doc, self.found
        tp = int(found.values.get("parallel.tensor", 1) or 1)
        pp = int(found.values.get("parallel.pipeline", 1) or 1)
        engine_gpus = tp * pp * self.dp
        replicas = self.spec.get("replicas", 1)
        at = ("spec", "replicas") if "replicas" in self.spec else ("spec",)
        replicas_line = doc.line(*at)
        limit = _gpu_limit(self.container)
        if limit is None:
            self.problem(
                "nvidia.com/gpu",
                "the server container sets no nvidia.com/gpu limit; add resources.limits "
                f"nvidia.com/gpu: {engine_gpus}",
                doc.line(*self.c_at),
            )
            return
        part, value = limit
        lim_line = doc.line(*self.c_at, "resources", part, "nvidia.com/gpu")
        try:
            per_pod = int(str(value))
        except ValueError:
            per_pod = 0
        if per_pod <= 0:
            self.problem("nvidia.com/gpu", f"{value!r} is not a positive count", lim_line)
            return
        if per_pod < engine_gpus:
            what = (
                f"--tensor-parallel-size {tp}" if self.cmd.server == "vllm" else f"--tp-size {tp}"
            )
            if pp > 1 or self.dp > 1:
                what += f" x pipeline {pp} x data-parallel {self.dp}"
            self.problem(
                "nvidia.com/gpu",
                f"{what} needs {engine_gpus} GPUs but the container's nvidia.com/gpu is {per_pod}",
                lim_line,
            )
            return
        if per_pod > engine_gpus:
            self.notes.append(f"{per_pod - engine_gpus} of {per_pod} GPUs per pod unused")
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            self.problem("replicas", f"{replicas!r} is not a count", replicas_line)
        elif replicas == 0:
            self.problem("replicas", "0 replicas hold no users", replicas_line)
        else:
            found.put("hardware.count", replicas * engine_gpus, replicas_line, "replicas")
            found.lines["hardware"] = lim_line

    def gpu_type(self) -> None:
        """The GPU product: kvplan.io/gpu, else the node selector or required affinity."""
        doc = self.doc
        key = ANNOTATION_PREFIX + "gpu"
        if key in self.annotations:
            gpu = str(self.annotations[key])
            self.found.put("hardware.gpu", gpu, self.ann_line(key), key)
            return
        labels: list[tuple[str, int]] = []
        selector = self.pod.get("nodeSelector") or {}
        for label_key in (PRODUCT_LABEL, GKE_LABEL):
            if isinstance(selector, dict) and label_key in selector:
                line = doc.line(*self.pod_at, "nodeSelector", label_key)
                labels.append((str(selector[label_key]), line))
        labels.extend(_affinity_products(self.pod, doc, self.pod_at))
        if not labels:
            self.problem(
                PRODUCT_LABEL,
                "no GPU product: add nodeSelector nvidia.com/gpu.product (for example "
                "NVIDIA-H100-80GB-HBM3), a node affinity on it, or the annotation kvplan.io/gpu",
                doc.line(*self.pod_at),
            )
            return
        mapped: list[tuple[str, str, int]] = []
        for label, line in labels:
            try:
                mapped.append((catalog_name(label), label, line))
            except UnknownLabel as err:
                self.problem(PRODUCT_LABEL, str(err), line)
        if len(mapped) != len(labels):
            return
        gpu, label, line = mapped[0]
        try:
            resolve_gpu(gpu)
        except InputError:
            self.problem(
                PRODUCT_LABEL,
                f"{label} maps to {gpu!r}, which the GPU catalog does not hold; add "
                f"hardware_specs/{gpu}.yaml or set the annotation kvplan.io/gpu to a catalog "
                "name (`kvplan gpus`)",
                line,
            )
        names = sorted({m[0] for m in mapped})
        if len(names) > 1:
            self.notes.append(f"node affinity allows {', '.join(names)}; checked on {gpu}")
        self.found.put("hardware.gpu", gpu, line, PRODUCT_LABEL)

    def read_annotations(self) -> None:
        for key, value in self.annotations.items():
            if not str(key).startswith(ANNOTATION_PREFIX):
                continue
            short = str(key)[len(ANNOTATION_PREFIX) :]
            if short in (SKIP_ANNOTATION, "gpu"):
                continue
            if short not in ANNOTATIONS:
                hint = suggest(short, ANNOTATIONS)
                self.problem(str(key), f"unknown kvplan annotation{hint}", self.ann_line(str(key)))
                continue
            self.found.put(ANNOTATIONS[short], value, self.ann_line(str(key)), str(key))

    def side_file(self, side_cache: dict[Path, Any]) -> bool:
        """Apply `<manifest>.kvplan.yaml`; its blocks replace the annotations' whole blocks.
        False when the side file is broken (its problems are reported)."""
        side = side_file_for(self.path)
        if side is None:
            return True
        if side not in side_cache:
            side_cache[side] = _read_side(side)
        spec, _, side_problems = side_cache[side]
        for p in side_problems:
            where = f"{side}, line {p.line}" if p.line else str(side)
            self.problem("", f"in side file {where}: {p.text()}", None)
        if spec is None:
            return False
        found = self.found
        entries = [spec]
        if self.name and self.name in spec.workloads:
            entries.append(spec.workloads[self.name])
        for entry in entries:
            for block in ("traffic", "requirement"):
                value = getattr(entry, block)
                if value is None:
                    continue
                for k in [k for k in found.values if k.startswith(block + ".")]:
                    found.values.pop(k)
                    found.lines.pop(k, None)
                for k, v in _flatten(value.model_dump(exclude_unset=True), block).items():
                    found.values[k] = v
                    found.names[k] = f"{side.name}: {k}"
                if block == "traffic":
                    self.notes.append(f"traffic from {side.name}")
            for attr, key in (
                ("model", "model"),
                ("gpu", "hardware.gpu"),
                ("engine", "engine.name"),
            ):
                value = getattr(entry, attr)
                if value is None:
                    continue
                found.values[key] = value
                found.names[key] = f"{side.name}: {attr}"
                found.lines.pop(key, None)
                if attr == "gpu":
                    self.problems[:] = [p for p in self.problems if p.field != PRODUCT_LABEL]
        return True

    def require_traffic(self) -> None:
        if not any(k.startswith("traffic.") for k in self.found.values):
            self.problem(
                "traffic",
                "no traffic declared: add the annotation kvplan.io/peak-concurrent-users (or "
                "kvplan.io/arrival-rate-per-s with kvplan.io/mean-duration-s), and "
                f"kvplan.io/context-tokens-mean, or a side file {self.path.stem}.kvplan.yaml "
                "with a traffic: block",
                self.doc.line("metadata"),
            )

    def model(self) -> None:
        """A Hugging Face id becomes the catalog name with that hf_id; an id the catalog does
        not hold is an error saying how to add it. Catalog names and spec paths pass as is."""
        found = self.found
        model = found.values.get("model")
        if model is None:
            self.problem(
                "model", "no model: the server command names none", self.doc.line(*self.c_at)
            )
            return
        source = found.names.get("model", "model")
        from_server = source in ("--model", "--model-path", "the served model")
        index = hf_index()
        if str(model).lower() in index:
            found.values["model"] = index[str(model).lower()][0]
        elif from_server:
            name, why = _model_ref(str(model))
            if name is None:
                self.problem(source, str(why), found.lines.get("model"))
            else:
                found.values["model"] = name

    def target(self) -> Target:
        assert self.cmd is not None
        found = self.found
        target = Target(
            file=str(self.path),
            kind=KUBERNETES,
            line=self.doc.start_line,
            name=self.name,
            base_dir=self.path.parent,
            server=self.cmd.server,
            engines_per_pod=self.dp,
            notes=self.notes,
        )
        target.names = dict(found.names) | {
            "hardware.count": "replicas",
            "traffic": "kvplan.io traffic annotations",
        }
        target.doc = Doc(
            data=None,
            start_line=self.doc.start_line,
            lines={tuple(k.split(".")): v for k, v in found.lines.items()},
        )
        if self.problems:
            target.problems = self.problems
            return target
        tree: dict[str, Any] = {"apiVersion": "kvplan/v1", "name": self.name or self.path.stem}
        for k, v in found.values.items():
            _set(tree, k, v)
        tree.setdefault("hardware", {})
        try:
            target.deployment = parse_deployment(tree, str(self.path), target.doc)
        except DeploymentError as err:
            target.problems = target.renamed(err.items)
        return target


def read_workload(doc: Doc, path: Path, side_cache: dict[Path, Any]) -> Target | None:
    """A Target for one Deployment/StatefulSet document, or None if it runs no LLM server."""
    w = _Workload(doc, path)
    if not w.find_server():
        return None
    if str(w.annotations.get(ANNOTATION_PREFIX + SKIP_ANNOTATION, "")).lower() == "true":
        return None
    w.engine()
    w.gpus()
    w.gpu_type()
    w.read_annotations()
    if w.side_file(side_cache):
        w.require_traffic()
    w.model()
    return w.target()


def _flatten(tree: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in tree.items():
        key = f"{prefix}.{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out
