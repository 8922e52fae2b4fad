"""The error of a file that cannot be read: which file, which line, what to do."""

from __future__ import annotations

from pathlib import Path

from kvplan.errors import InputError


class InputFileError(InputError):
    """A file refused before its content is used: unreadable, too big, not text, bad YAML/JSON."""

    def __init__(self, path: Path | str, problem: str, line: int | None = None) -> None:
        self.path = str(path)
        self.problem = problem
        self.line = line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{self.path}: {where}{problem}")
