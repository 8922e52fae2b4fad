"""Reading a file as text: bounded in size, its encoding detected from the BOM or refused."""

from __future__ import annotations

import codecs
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


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, refusing folders, unreadable files and anything over `limit` bytes.

    The size is checked before reading and again while reading (a growing file, a FIFO), so
    at most `limit + 1` bytes are ever held."""
    if path.is_dir():
        raise InputFileError(path, "is a folder, not a file; name a file")
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as err:
        raise InputFileError(path, f"cannot read file: {err.strerror or err}") from None
    if len(data) > limit:
        raise InputFileError(
            path, f"file is larger than the {_fmt_size(limit)} kvplan reads; is it the right file?"
        )
    return data


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
