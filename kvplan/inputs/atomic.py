"""Atomic output: write a temporary file beside the target, then rename it into place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from kvplan.inputs.errors import InputFileError


def check_target(path: Path) -> Path:
    """Refuse a target that cannot be written before any work is done."""
    path = path.expanduser()
    if path.is_dir():
        raise InputFileError(path, "is a folder; give a file name for --output")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputFileError(path, f"folder {folder} does not exist; create it first")
    return path


def atomic_write(path: Path, write: Callable[[Path], None]) -> Path:
    """Call `write(tmp)` on a temporary file in the target's folder, then rename it over
    `path`. On any failure the old file is untouched and the temporary file is removed; an
    OSError (no permission, a full disk) becomes one line naming the file."""
    path = check_target(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=folder)
    except OSError as err:
        raise InputFileError(path, f"cannot write: {err.strerror or err}; choose another "
                             "path") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise InputFileError(path, f"cannot write: {err.strerror or err}; the old file is "
                             "unchanged; free space or choose another path") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    return atomic_write(path, write)
