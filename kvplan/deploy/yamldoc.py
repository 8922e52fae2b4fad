"""YAML documents with the line of every field, read through kvplan.inputs (the safe loader)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.inputs import InputFileError, YamlDoc, load_yaml_docs
from kvplan.inputs.yamlsafe import yaml_documents

Key = tuple[str | int, ...]


@dataclass(frozen=True)
class Doc:
    """One YAML document: its data and the 1-based line of every key path in it."""

    data: Any
    start_line: int
    lines: dict[Key, int] = field(default_factory=dict)
    error: DeploymentError | None = None  # set (and data None) when this document is refused

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


def _error(err: InputFileError) -> DeploymentError:
    return DeploymentError(err.path, [Problem("", err.problem, err.line)])


def _doc(item: YamlDoc) -> Doc:
    lines: dict[Key, int] = {}
    if item.node is not None:
        _walk(item.node, (), lines)  # bounded: kvplan.inputs refused any expansion past its limit
    return Doc(data=item.data, start_line=item.start_line, lines=lines,
               error=None if item.error is None else _error(item.error))


def iter_docs(text: str, source: str) -> Iterator[Doc]:
    """Every document of a YAML stream, through kvplan.inputs; the first broken one raises."""
    for item in yaml_documents(text, source):
        if item.error is not None:
            raise _error(item.error)
        yield _doc(item)


def read_docs_each(path: Path) -> list[Doc]:
    """All documents of one file, each judged on its own: a broken document comes back with
    `error` set (and no data) instead of failing the file. Empty documents are dropped; a file
    that cannot be read at all (missing, too big, not text) raises DeploymentError."""
    try:
        items = load_yaml_docs(path)
    except InputFileError as err:
        raise _error(err) from None
    return [d for d in map(_doc, items) if d.error is not None or d.data is not None]


def read_docs(path: Path) -> list[Doc]:
    """All documents of one file; empty documents are dropped. Errors name the file and line;
    the first broken document raises (read_docs_each gives each document its own result)."""
    docs = read_docs_each(path)
    for doc in docs:
        if doc.error is not None:
            raise doc.error
    return docs
