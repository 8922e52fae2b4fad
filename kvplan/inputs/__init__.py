"""One gate for every file kvplan reads: size, encoding, safe YAML/JSON, bounded numbers;
and atomic writing for every file it writes. Limits live in kvplan.inputs.limits.

The names below are imported when first used (PEP 562), so that `from kvplan.inputs import
limits` or `kvplan.inputs.atomic` does not load the YAML parser on a path that reads no YAML.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvplan.inputs.errors import InputFileError
from kvplan.inputs.limits import MAX_FILE_BYTES, MAX_LOG_BYTES

if TYPE_CHECKING:
    from kvplan.inputs.atomic import atomic_write, check_target, write_text_atomic
    from kvplan.inputs.jsonsafe import loads_json
    from kvplan.inputs.text import decode, read_bytes, read_text
    from kvplan.inputs.yamlsafe import YamlDoc

_LAZY = {
    "atomic_write": "atomic", "check_target": "atomic", "write_text_atomic": "atomic",
    "loads_json": "jsonsafe", "decode": "text", "read_bytes": "text", "read_text": "text",
    "YamlDoc": "yamlsafe",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"kvplan.inputs.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kvplan.inputs' has no attribute {name!r}")


def load_yaml(path: Path) -> Any:
    """The one YAML document of a file (None when empty)."""
    from kvplan.inputs.text import read_text
    from kvplan.inputs.yamlsafe import load_yaml_text

    return load_yaml_text(read_text(path), str(path))


def load_yaml_docs(path: Path) -> list[YamlDoc]:
    """Every document of a YAML file, each with its data or its own error."""
    from kvplan.inputs.text import read_text
    from kvplan.inputs.yamlsafe import yaml_documents

    return yaml_documents(read_text(path), str(path))


def load_json(path: Path) -> Any:
    from kvplan.inputs.jsonsafe import loads_json
    from kvplan.inputs.text import read_text

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
