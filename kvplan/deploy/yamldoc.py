"""YAML documents with the line of every field: safe loader only, one parse for data and lines."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kvplan.deploy.problems import DeploymentError, Problem

try:  # the C parser is much faster and just as safe
    _SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader

Key = tuple[str | int, ...]


@dataclass(frozen=True)
class Doc:
    """One YAML document: its data and the 1-based line of every key path in it."""

    data: Any
    start_line: int
    lines: dict[Key, int] = field(default_factory=dict)

    def line(self, *path: str | int) -> int:
        """The line of the deepest part of `path` that exists (the document start if none)."""
        key: Key = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.start_line


def _walk(node: yaml.Node, prefix: Key, out: dict[Key, int]) -> None:
    out.setdefault(prefix, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            path = (*prefix, key)
            out[path] = key_node.start_mark.line + 1
            _walk(value_node, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*prefix, i), out)


def dotted(path: Key) -> str:
    """`spec.containers[0].args` from a key path."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _yaml_error(source: str, err: yaml.YAMLError) -> DeploymentError:
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    if isinstance(err, yaml.constructor.ConstructorError):
        problem = f"{problem} (only plain YAML is accepted; tags such as !!python/... are refused)"
    line = mark.line + 1 if mark is not None else None
    return DeploymentError(source, [Problem("", f"malformed YAML: {problem}", line)])


def iter_docs(text: str, source: str) -> Iterator[Doc]:
    """Every document of a YAML stream, parsed once with the safe loader."""
    loader = _SafeLoader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - check_node said there is one
                break
            lines: dict[Key, int] = {}
            _walk(node, (), lines)
            data = loader.construct_document(node)
            yield Doc(data=data, start_line=node.start_mark.line + 1, lines=lines)
    except yaml.YAMLError as err:
        raise _yaml_error(source, err) from None
    finally:
        loader.dispose()


def read_docs(path: Path) -> list[Doc]:
    """All documents of one file; empty documents are dropped. Errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise DeploymentError(str(path), [Problem("", f"cannot read file: {reason}")]) from None
    return [d for d in iter_docs(text, str(path)) if d.data is not None]
