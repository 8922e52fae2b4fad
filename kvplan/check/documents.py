"""A YAML stream split into its documents, each parsed on its own: a broken document (a Secret
with a template placeholder) never sinks the workloads beside it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kvplan.deploy import DeploymentError, Problem
from kvplan.deploy.yamldoc import Doc, iter_docs
from kvplan.inputs.errors import InputFileError
from kvplan.inputs.text import read_text

_SEPARATOR = re.compile(r"^---(?:[ \t].*)?$")


@dataclass
class Broken:
    """A document that is not YAML: its text, first line and the parser's complaint."""

    text: str
    start_line: int
    problem: Problem

    @property
    def templated(self) -> bool:
        return "{{" in self.text or "${" in self.text


def read_documents(path: Path) -> list[Doc | Broken]:
    """Every non-empty document of a file, or a Broken for each one YAML cannot read.
    Raises DeploymentError when the file itself cannot be read."""
    try:  # the reader every command shares: binary data, UTF-16 without a BOM, a huge file
        # are named with what to do (kvplan.inputs.text); newlines as Python's text mode reads
        text = read_text(path).replace("\r\n", "\n").replace("\r", "\n")
    except InputFileError as err:
        raise DeploymentError(str(path), [Problem("", err.problem, err.line)]) from None
    lines = text.splitlines(keepends=True)
    chunks: list[tuple[int, str]] = []
    start, buf = 0, list[str]()
    for i, line in enumerate(lines):
        if _SEPARATOR.match(line.rstrip("\r\n")):
            chunks.append((start, "".join(buf)))
            start, buf = i, [line]
        else:
            buf.append(line)
    chunks.append((start, "".join(buf)))
    out: list[Doc | Broken] = []
    for offset, chunk in chunks:
        if not chunk.strip():
            continue
        try:
            docs = list(iter_docs("\n" * offset + chunk, str(path)))
        except DeploymentError as err:
            first = next((n for n, ln in enumerate(chunk.splitlines()) if ln.strip()), 0)
            out.append(Broken(chunk, offset + first + 1, err.items[0]))
            continue
        out.extend(d for d in docs if d.data is not None)
    return out
