"""One gate for every file kvplan reads: size, encoding, safe YAML/JSON, bounded numbers;
and atomic writing for every file it writes. Limits live in kvplan.inputs.limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.inputs.atomic import atomic_write, check_target, write_text_atomic
from kvplan.inputs.errors import InputFileError
from kvplan.inputs.jsonsafe import loads_json
from kvplan.inputs.limits import MAX_FILE_BYTES, MAX_LOG_BYTES
from kvplan.inputs.text import decode, read_bytes, read_text
from kvplan.inputs.yamlsafe import YamlDoc, load_yaml_text, yaml_documents


def load_yaml(path: Path) -> Any:
    """The one YAML document of a file (None when empty)."""
    return load_yaml_text(read_text(path), str(path))


def load_yaml_docs(path: Path) -> list[YamlDoc]:
    """Every document of a YAML file, each with its data or its own error."""
    return yaml_documents(read_text(path), str(path))


def load_json(path: Path) -> Any:
    return loads_json(read_text(path), str(path))


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LOG_BYTES",
    "InputFileError",
    "YamlDoc",
    "atomic_write",
    "check_target",
    "decode",
    "load_json",
    "load_yaml",
    "load_yaml_docs",
    "loads_json",
    "read_bytes",
    "read_text",
    "write_text_atomic",
]
