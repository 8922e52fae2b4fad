"""Reading a file as text: bounded in size, its encoding detected from the BOM or refused."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from kvplan.inputs.errors import InputFileError
from kvplan.inputs.limits import MAX_FILE_BYTES

# Longest BOM first: a UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_SAVE_AS = "save it as UTF-8 text"


def _fmt_size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n:,} bytes"


def not_regular(mode: int) -> str | None:
    """What a file of this st_mode is when it is neither a regular file nor a folder (a FIFO,
    a socket, a device), said for a message; None for a regular file or a folder."""
    for test, what in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "not a regular file"


def what_is_there(path: Path, here: str = "on this machine") -> str:
    """Why `path`, named as a file, is not read, to follow its name in a message: "is not a
    file {here}" when nothing is there, else what it is (a folder, a FIFO, a socket, a device),
    as refuse_not_regular says it (task h100readers: a FIFO named by a script's --config was
    "not a file on this machine")."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return f"is not a file {here}"
    if stat.S_ISDIR(mode):
        return f"is a folder {here}, not a file"
    what = not_regular(mode)
    if what is None:
        return f"is not a file {here}"
    return f"is {what} {here}, not a regular file (kvplan reads only regular files; not opened)"


def refuse_not_regular(path: Path | str, what: str) -> InputFileError:
    """The one line for a FIFO, socket or device named where kvplan reads a file: reading a
    FIFO blocks until something writes to it (kvplan size/explain/fleet hung on one, task
    h90hostile), and a device may never end."""
    return InputFileError(path, f"is {what}, not a regular file; kvplan reads only regular "
                          "files: save the content to a file and name that")


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, refusing folders, FIFOs, sockets, devices, unreadable files and
    anything over `limit` bytes.

    The file is opened without blocking (O_NONBLOCK: opening a FIFO with no writer otherwise
    waits for one) and refused unless the opened file is regular (fstat, so a file swapped
    after a check is still caught). The size is checked again while reading (a growing file),
    so at most `limit + 1` bytes are ever held."""
    if path.is_dir():
        raise InputFileError(path, "is a folder, not a file; name a file")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise InputFileError(path, f"cannot read file: {err.strerror or err}") from None
    try:
        what = not_regular(os.fstat(fd).st_mode)
        if what is not None:
            raise refuse_not_regular(path, what)
        with os.fdopen(fd, "rb") as fh:
            fd = -1  # closed by the file object
            data = fh.read(limit + 1)
    except OSError as err:
        raise InputFileError(path, f"cannot read file: {err.strerror or err}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:
        raise InputFileError(
            path, f"file is larger than the {_fmt_size(limit)} kvplan reads; is it the right file?"
        )
    return data


def regular_or_refused(path: Path) -> None:
    """Refuse (InputFileError) a path that is there but is a FIFO, socket or device, without
    opening it; a regular file, a folder or a missing path passes (its reader says the rest)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return
    what = not_regular(mode)
    if what is not None:
        raise refuse_not_regular(path, what)


def decode(data: bytes, path: Path | str, allow_nul: bool = False) -> str:
    """UTF-8 (with or without a BOM) or UTF-16/UTF-32 with a BOM; anything else is refused.
    A NUL byte marks a binary file, except in logs (`allow_nul`), where a stray one appears."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as err:
                raise InputFileError(
                    path, f"starts with a {label} byte-order mark but is not valid {label} "
                    f"(byte {err.start + len(bom)}); {_SAVE_AS}") from None
    if b"\x00" in data and not allow_nul:
        if len(data) >= 4 and (data[1] == 0 and data[3] == 0 or data[0] == 0 and data[2] == 0):
            raise InputFileError(path, f"looks like UTF-16 without a byte-order mark; {_SAVE_AS} "
                                 "(or UTF-16 with a BOM)")
        offset = data.index(b"\x00")
        raise InputFileError(
            path, f"binary data (a NUL byte at offset {offset}), not text; {_SAVE_AS}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputFileError(
            path, f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}); {_SAVE_AS}"
        ) from None
    return text


def read_text(path: Path, limit: int = MAX_FILE_BYTES, allow_nul: bool = False) -> str:
    """A text file, size-limited and decoded; line endings are kept as written."""
    return decode(read_bytes(path, limit), path, allow_nul)
