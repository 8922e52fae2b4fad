"""A value one `kvplan check` run gathers from all of its files before any is checked.

Some formats split one deployment over several files (OME's BaseModel and ServingRuntime beside
its InferenceService; KAITO's inference ConfigMap beside its Workspace): the run collects them
once, and each reader sees them through `current()` while the run checks its files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from kvplan.deploy.yamldoc import Doc

T = TypeVar("T")


class RunScope(Generic[T]):
    """`of(files)` collects the run's value and makes it `current()` inside the block; outside
    any block `current()` is the empty value (a reader called on its own sees no side files)."""

    def __init__(self, name: str, empty: T, collect: Callable[[list[Path]], T]) -> None:
        self._var: ContextVar[T] = ContextVar(name, default=empty)  # noqa: B039 - never mutated
        self._collect = collect

    def current(self) -> T:
        return self._var.get()

    @contextmanager
    def of(self, files: list[Path]) -> Iterator[T]:
        run = self._collect(files)
        token = self._var.set(run)
        try:
            yield run
        finally:
            self._var.reset(token)


def mapping_documents(files: list[Path], marker: str) -> Iterator[tuple[Path, Doc]]:
    """Each YAML document that is a mapping, of the files whose text holds `marker` (a cheap
    filter before parsing). A file that cannot be read or parsed is skipped here: the run
    reports it when it checks that file."""
    from kvplan.check.documents import Broken, read_documents
    from kvplan.deploy import DeploymentError

    for path in files:
        try:
            if marker not in path.read_text(encoding="utf-8", errors="replace"):
                continue
            docs = read_documents(path)
        except (OSError, DeploymentError):
            continue
        for doc in docs:
            if not isinstance(doc, Broken) and isinstance(doc.data, dict):
                yield path, doc
