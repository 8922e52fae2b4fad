"""Problems in a deployment file, each tied to a field and, where known, a line."""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.errors import SpecError


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: the field (dotted path), what is wrong, its line."""

    field: str
    message: str
    line: int | None = None

    def text(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class DeploymentError(SpecError):
    """A deployment that cannot be checked, with one Problem per cause."""

    def __init__(self, path: str, problems: list[Problem]) -> None:
        self.items = problems
        super().__init__(
            path, [f"line {p.line}: {p.text()}" if p.line else p.text() for p in problems]
        )

    @property
    def line(self) -> int | None:
        return next((p.line for p in self.items if p.line is not None), None)
