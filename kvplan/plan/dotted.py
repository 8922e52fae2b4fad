"""Dotted field paths (`engine.max_model_len`) into a record's nested data: read, set, drop,
and every leaf. Split from kvplan.plan.record (which re-exports them)."""

from __future__ import annotations

from typing import Any


def get_field(data: dict[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def set_field(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[last] = value


def drop_field(data: dict[str, Any], dotted: str) -> None:
    *parents, last = dotted.split(".")
    node: Any = data
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    out: dict[str, Any] = {}
    for key, value in data.items():
        out.update(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return out
