"""Domain errors. The CLI turns each into one line and an exit code, in one place."""

from __future__ import annotations


class KvplanError(Exception):
    """Base class for errors a user can fix. `str(err)` is the whole message."""

    exit_code = 2


class InputError(KvplanError):
    """Invalid input: a bad option value, an unknown name, a malformed file (exit code 2)."""


class SpecError(InputError):
    """A spec or deployment file that does not validate. Carries the file and the field."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__("; ".join(f"{path}: {p}" for p in problems))


def internal_error_line(err: BaseException) -> str:
    """The one line an unexpected exception (a bug in kvplan) becomes, exit code 3."""
    msg = str(err).splitlines()[0] if str(err) else ""
    return (f"internal error: {type(err).__name__}: {msg}; this is a bug in kvplan; please "
            "report it with --debug output")
