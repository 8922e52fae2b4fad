"""kvplan's own additions to a manifest: `kvplan.io/...` annotations and a side file
`<manifest>.kvplan.yaml` with the traffic (the manifest formats say nothing about load)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import ValidationError

from kvplan.deploy import Problem, validation_problems
from kvplan.deploy.problems import DeploymentError
from kvplan.deploy.yamldoc import Doc, read_docs

if TYPE_CHECKING:
    from kvplan.check.manifests.side_schema import SideFile

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
    "trt-activation-bytes": "engine.trt_activation_bytes",
    "tp-transport": "engine.tp_transport",  # nvlink | pcie-p2p | host (no manifest field says it)
    "topk-topp-sampler": "engine.topk_topp_sampler",  # native | flashinfer (vLLM 0.10)
    # serve | offline: a container running a Python script is not evidence of the LLM class
    "vllm-entrypoint": "engine.entrypoint",
}
SKIP_ANNOTATION = "skip"


def skips(annotations: dict[str, Any]) -> bool:
    """`kvplan.io/skip: "true"`: the workload is left out of the check, whether or not kvplan
    reads its server (task readfix: it was an ERROR "runs vLLM, but not through a server command
    kvplan reads" wherever the document had a kind, since task h100readers' unserved ERROR)."""
    return str(annotations.get(ANNOTATION_PREFIX + SKIP_ANNOTATION, "")).lower() == "true"


def side_files(path: Path) -> list[Path]:
    """Every side file next to `path`: `llama.kvplan.yaml`, `llama.kvplan.yml`,
    `llama.yaml.kvplan.yaml` or `llama.yaml.kvplan.yml` next to `llama.yaml` (side_owner's
    spellings, all four), whatever it is (a folder, a link that loops, a FIFO: read_side refuses
    it, task h70hostile; is_file() had passed them over in silence)."""
    names = dict.fromkeys((path.stem + ".kvplan.yaml", path.stem + ".kvplan.yml",
                           path.name + ".kvplan.yaml", path.name + ".kvplan.yml"))
    return [path.with_name(n) for n in names if os.path.lexists(path.with_name(n))]


def side_file_for(path: Path) -> Path | None:
    """The side file read for `path` (side_files' first), None without one."""
    found = side_files(path)
    return found[0] if found else None


def _not_a_file(path: Path) -> str | None:
    """Why `path` cannot be read as a side file, None when it is a regular file (a link to one
    included). Never opened otherwise: a FIFO would block the read."""
    if path.is_file():
        return None
    if path.is_dir():
        what = "a folder"
    elif path.is_symlink() and not path.exists():
        what = "a symbolic link that leads to no file (a loop, or a missing target)"
    else:
        what = "not a regular file (a FIFO, socket or device)"
    return f"{what}, not the YAML file a side file is; replace it with one, or remove it"


# what a side file sits beside: a manifest, a launch script or a Python script or notebook
# (kvplan.check.manifests.shell's SHELL_SUFFIXES and kvplan.check.outcome's PY_SUFFIXES, repeated
# here to keep this module free of the readers' imports; a test holds them equal). The .py and
# .ipynb readers read their side file too (site_targets), but a side file beside one was read as
# a document of its own when named with it (tasks h70review, h70hostile)
_SIDE_OF = (".yaml", ".yml", ".sh", ".bash", ".zsh", ".ksh", ".py", ".ipynb")


def is_side_file(path: Path) -> bool:
    """A `.kvplan.yaml` file with a manifest, launch script, Python script or notebook of the same
    stem next to it (`serve.kvplan.yaml` or `serve.sh.kvplan.yaml` beside `serve.sh`, as
    side_file_for finds it): a folder walked or a glob leaves it out instead of reading it as a
    document of its own."""
    return side_owner(path) is not None


def side_owner(path: Path) -> Path | None:
    """The manifest, script or notebook a side file sits beside (None: `path` is no side
    file)."""
    name = path.name
    for suffix in (".kvplan.yaml", ".kvplan.yml"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            if stem.endswith(_SIDE_OF):
                return path.parent / stem if _owns(path.parent / stem) else None
            found = next((path.parent / (stem + ext) for ext in _SIDE_OF
                          if _owns(path.parent / (stem + ext))), None)
            bare = path.parent / stem  # `serve.kvplan.yaml` beside a `#!/bin/bash` file `serve`
            if found is None and "." not in stem and bare.is_file() and has_shell_line(bare):
                return bare
            return found
    return None


def _owns(path: Path) -> bool:
    """Whether `path` is a file that reads a side file: a manifest or script, or Python that
    starts an engine (python_script.starts_engine, as a folder walk reads it; a kvplan/v1 plan
    beside a client script is a document of its own)."""
    if not path.is_file():
        return False
    if path.suffix in (".py", ".ipynb"):
        from kvplan.check.manifests.python_walk import starts_engine

        return starts_engine(path)
    return True


# a shell's `#!` line: `#!/bin/bash`, `#!/usr/bin/env bash`, `#!/usr/bin/env -S sh -e`
_SHELL_LINE = re.compile(rb"^#![ \t]*/\S*/(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:ba|da|z|k|a)?sh\b")


def has_shell_line(path: Path) -> bool:
    """Whether a file starts with a shell's `#!` line (a launch script without a suffix, read
    in a folder walk by kvplan.check.discover)."""
    try:
        with path.open("rb") as f:
            return _SHELL_LINE.match(f.read(128)) is not None
    except OSError:
        return False


def read_side(path: Path) -> tuple[SideFile | None, Doc | None, list[Problem]]:
    why = _not_a_file(path)
    if why is not None:
        return None, None, [Problem("", why, 0)]
    try:
        docs = read_docs(path)
    except DeploymentError as err:
        return None, None, err.items
    if not docs:
        return None, None, [Problem("", "the side file is empty", 1)]
    doc = docs[0]
    if not isinstance(doc.data, dict):
        return None, doc, [Problem("", "expected a mapping with traffic:", doc.start_line)]
    from kvplan.check.manifests.side_schema import SideFile  # pydantic, only for a side file

    try:
        return SideFile.model_validate(doc.data), doc, []
    except ValidationError as err:
        return None, doc, validation_problems(SideFile, err, doc)


def flatten(tree: dict[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in tree.items():
        key = f"{prefix}.{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out
