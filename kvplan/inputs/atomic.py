"""Atomic output: write a temporary file beside the target, then rename it into place."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from kvplan.inputs.errors import InputFileError


def check_target(path: Path, option: str = "--output") -> Path:
    """Refuse a target that cannot be written before any work is done; `option` is the flag
    that named it (--output, --save), as the refusal says."""
    path = path.expanduser()
    if path.is_dir():
        raise InputFileError(path, f"is a folder; give a file name for {option}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputFileError(path, f"folder {folder} does not exist; create it first")
    return path


def check_writable(path: Path, option: str = "--output") -> Path:
    """check_target, and a temporary file made and removed in the target's folder: the same
    call atomic_write makes, so a folder kvplan may not write (no permission, a read-only
    disk, /proc) is refused before the work, not after it was printed (task uxfix: `fleet
    --save` to such a path printed the whole plan, then the error)."""
    path = check_target(path, option)
    with contextlib.suppress(OSError):
        os.unlink(_temporary(path))
    return path


def _temporary(path: Path) -> str:
    """An empty temporary file beside `path` (its folder checked by check_target), its name;
    a folder kvplan may not write is one line naming the file."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=folder)
    except OSError as err:
        raise InputFileError(path, f"cannot write: {err.strerror or err}; choose another "
                             "path") from None
    os.close(fd)
    return tmp_name


def _mode(path: Path) -> int:
    """The permission bits the written file gets: an existing file's own, else what open()
    would give a new file (0o666 less the umask). mkstemp makes its file 0o600, so before
    task freshuser every -o and --save file was readable by its owner alone."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path: Path, write: Callable[[Path], None], option: str = "--output") -> Path:
    """Call `write(tmp)` on a temporary file in the target's folder, then rename it over
    `path`. On any failure the old file is untouched and the temporary file is removed; an
    OSError (no permission, a full disk) becomes one line naming the file."""
    path = check_target(path, option)
    tmp = Path(_temporary(path))
    try:
        write(tmp)
        os.chmod(tmp, _mode(path))
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


def write_text_atomic(path: Path, text: str, option: str = "--output") -> Path:
    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    return atomic_write(path, write, option)


# every option that names a file kvplan writes, by its parameter name: -o/--output (every
# command's text, json, csv; import's spec; plot's picture) and size/fleet's --save
WRITES = {"output": "--output", "save_to": "--save"}


def refuse_unwritable(kwargs: dict[str, object]) -> None:
    """A file kvplan cannot write is refused before any work is done, in one line (exit 2), for
    every command (called by kvplan.cli.common.cli_errors with the command's arguments): until
    task uxfix `fleet --save /proc/x.yaml` printed the plan, then the error."""
    for key, option in WRITES.items():
        value = kwargs.get(key)
        if isinstance(value, Path):
            check_writable(value, option)
