"""Where a Hugging Face config comes from: a config.json file, a snapshot folder or a hub id,
with what else the source offers (a parameter count from the safetensors headers or the index,
ModelOpt's hf_quant_config.json beside it, notes on what could not be read).

Split from hf_import (which turns the config into a ModelSpec); hf_config reads the config itself.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.errors import InputError

_FLOAT_DTYPES = {"F64", "F32", "F16", "BF16"}
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class Loaded:
    """A config read from somewhere, with what else the source offered."""

    config: dict[str, Any]
    origin: str  # the path or hub id, as given
    hf_id: str | None = None
    default_name: str = "imported-model"
    param_count: int | None = None  # counted from the checkpoint, when the source had one
    param_source: str | None = None
    notes: list[str] = field(default_factory=list)
    quant_file: dict[str, Any] | None = None  # ModelOpt's hf_quant_config.json, when beside it


# ---------------------------------------------------------------- reading sources


def _read_json(path: Path) -> dict[str, Any]:
    from kvplan.inputs import load_json  # size, encoding, duplicate keys, finite numbers

    data = load_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "imported-model"


def safetensors_param_count(files: list[Path]) -> tuple[int, set[str]] | None:
    """Sum of tensor sizes from the safetensors headers (8-byte length, then JSON), and dtypes."""
    total, dtypes = 0, set()
    for path in files:
        try:
            with path.open("rb") as fh:
                (length,) = struct.unpack("<Q", fh.read(8))
                if length > 100_000_000:
                    return None
                header = json.loads(fh.read(length))
        except (OSError, struct.error, json.JSONDecodeError, UnicodeDecodeError):
            return None
        for key, info in header.items():
            if key == "__metadata__":
                continue
            n = 1
            for dim in info["shape"]:
                n *= int(dim)
            total += n
            dtypes.add(str(info["dtype"]))
    return total, dtypes


def _folder_params(folder: Path, cfg: Mapping[str, Any]) -> tuple[int, str] | None:
    """An exact count from a snapshot's weights: headers first, then the index's total_size."""
    files = sorted(folder.glob("*.safetensors"))
    if files:
        counted = safetensors_param_count(files)
        if counted is not None:
            total, dtypes = counted
            if dtypes <= _FLOAT_DTYPES:
                return total, f"sum of tensor sizes in the {len(files)} safetensors file header(s)"
    index = folder / "model.safetensors.index.json"
    if index.is_file() and "quantization_config" not in cfg:
        size = (_read_json(index).get("metadata") or {}).get("total_size")
        dtype = cfg.get("torch_dtype") or cfg.get("dtype")
        if isinstance(size, int) and size > 0 and isinstance(dtype, str):
            width = {"float32": 4, "float16": 2, "bfloat16": 2}.get(dtype)
            if width and size % width == 0:
                return size // width, (
                    f"model.safetensors.index.json total_size {size:,} bytes / {width} "
                    f"({dtype}; assumes every tensor is stored in it)"
                )
    return None


def read_source(source: str) -> Loaded:
    """A config.json file, a snapshot folder holding one, or a hub id (needs network)."""
    path = Path(source).expanduser()
    if path.is_dir():
        cfg_path = path / "config.json"
        if not cfg_path.is_file():
            raise InputError(f"{source}: folder has no config.json")
        cfg = _read_json(cfg_path)
        folder = path.resolve()
        # a hub cache snapshot: models--org--name/snapshots/<commit>
        cached = folder.parent.parent.name if folder.parent.name == "snapshots" else ""
        label = cached.split("--")[-1] if cached.startswith("models--") else folder.name
        loaded = Loaded(cfg, source, default_name=_slug(label))
        if cached.startswith("models--") and cached.count("--") >= 2:
            loaded.hf_id = "/".join(cached.split("--")[1:3])
        found = _folder_params(path, cfg)
        if found is not None:
            loaded.param_count, loaded.param_source = found
        loaded.quant_file = _quant_file(path)
    elif path.exists():  # a regular file; a FIFO or device is refused by read_text, unopened
        cfg = _read_json(path)
        stem = path.stem if path.stem != "config" else path.resolve().parent.name
        loaded = Loaded(cfg, source, default_name=_slug(stem))
        if path.name == "config.json":  # a snapshot's own file: its quantization file beside it
            loaded.quant_file = _quant_file(path.parent)
    elif _HUB_ID.match(source) and not source.endswith((".json", ".yaml", ".yml")):
        loaded = _read_hub(source)
    else:
        raise InputError(
            f"{source}: no such file or folder, and not a hub id of the form org/name"
        )
    name_or_path = loaded.config.get("_name_or_path")
    if loaded.hf_id is None and isinstance(name_or_path, str) and _HUB_ID.match(name_or_path):
        loaded.hf_id = name_or_path
    return loaded


def _quant_file(folder: Path) -> dict[str, Any] | None:
    from kvplan.specs.hub import QUANT_FILE  # a name only: imports no huggingface_hub

    path = folder / QUANT_FILE
    return _read_json(path) if path.is_file() else None


def _read_hub(repo_id: str) -> Loaded:
    """config.json through the hub cache (kvplan.specs.hub), and the safetensors headers."""
    from kvplan.specs import hub

    cfg_file = hub.config_path(repo_id)
    import huggingface_hub  # present: config_path needs it

    loaded = Loaded(
        _read_json(Path(cfg_file)),
        repo_id,
        hf_id=repo_id,
        default_name=_slug(repo_id.split("/")[1]),
    )
    quant_path, quant_note = hub.quant_file_path(repo_id)
    if quant_path is not None:
        loaded.quant_file = _read_json(quant_path)
    if quant_note is not None:
        loaded.notes.append(quant_note)
    if hub.offline():
        loaded.notes.append("HF_HUB_OFFLINE: safetensors headers not read; parameters estimated")
        return loaded
    try:
        meta = huggingface_hub.get_safetensors_metadata(repo_id)
        counts = dict(meta.parameter_count)
        if counts and set(counts) <= _FLOAT_DTYPES:
            loaded.param_count = sum(counts.values())
            loaded.param_source = "sum of tensor sizes in the hub's safetensors headers"
    except Exception:  # noqa: BLE001 - no safetensors: the count is estimated instead
        loaded.notes.append("safetensors headers unavailable on the hub; parameters estimated")
    return loaded
