"""The catalog index: every spec file's data in one compact file, so that a command needing one
spec neither parses nor checks the other hundred YAML files.

- What it holds, per kind (model_specs, hardware_specs) and list of folders: each catalog name,
  its file (earlier folders shadowing later ones, as `kvplan.specs.loader` searches them) and
  the data kvplan's safe YAML reader returned for it. A file that fails to read is held as
  "not read" and is read again where it is loaded, so it raises the very error it raises
  without an index. Specs are validated where they are loaded, from this data, by the same
  call as from the file: the index changes no result, only the time.
- Key: the folders; each file's path, size and modification time (ns); the reader's own
  source files (size and time); the Python and kvplan versions. Any difference rebuilds it.
- Where: `$KVPLAN_CACHE_DIR` (an empty value: no file, the index lives in memory for one run),
  else the user cache folder (`$XDG_CACHE_HOME` or `~/.cache`; `~/Library/Caches` on macOS;
  `%LOCALAPPDATA%` on Windows) + `kvplan/`. One file per kind and folder list, written
  atomically; a folder that cannot be written only costs the time.
- A file changed less than `RACY_NS` before the build is indexed for this run but the index
  is not written, so an edit of the same size within one clock tick is never missed.
- Format: `marshal` (exact for YAML's plain types: int and float, keys that are not strings),
  behind a header with `FORMAT`. Within one process the index is built or read once per folder
  list (`clear()` forgets it).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import time
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

FORMAT = 1
ENV_CACHE = "KVPLAN_CACHE_DIR"
RACY_NS = 2_000_000_000  # coarse file-system clocks tick in up to 2 s
_NOT_READ = ("kvplan-index:not-read",)  # a file the reader refused: read again on load
# the reader's source files: when kvplan's YAML checks change, so may the data
_READER = ("inputs/yamlsafe.py", "inputs/limits.py", "inputs/text.py", "inputs/__init__.py",
           "specs/index.py")


class Entry:
    """One catalog file: its path and the data read from it (`ok` False: read it again)."""

    __slots__ = ("path", "data", "ok")

    def __init__(self, path: Path, data: Any, ok: bool) -> None:
        self.path = path
        self.data = data
        self.ok = ok


def cache_dir() -> Path | None:
    """The folder the index files go in; None when `$KVPLAN_CACHE_DIR` is set empty or no
    home folder can be found."""
    env = os.environ.get(ENV_CACHE)
    try:
        if env is not None:
            return Path(env).expanduser() if env else None
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # Path.home(): no HOME and no user database entry
        return None
    return base / "kvplan"


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


def scan(dirs: tuple[Path, ...]) -> dict[str, Path]:
    """Catalog name -> file (`*.yaml`, matched as `Path.glob` matches it), earlier folders
    shadowing later ones. os.scandir: a tenth of the time of Path.glob."""
    found: dict[str, Path] = {}
    for folder in dirs:
        try:
            with os.scandir(folder) as it:
                names = sorted(e.name for e in it if os.path.normcase(e.name).endswith(".yaml"))
        except OSError:
            continue
        for name in names:
            stem = name if name == ".yaml" else name[: -len(".yaml")]  # Path(name).stem
            found.setdefault(stem, folder / name)
    return found


def signature(kind: str, dirs: tuple[Path, ...], files: dict[str, Path]) -> tuple[Any, ...]:
    """What the index must match: see the module docstring."""
    from kvplan import __version__

    package = Path(__file__).resolve().parents[1]
    reader = tuple(_stat(package / name) for name in _READER)
    listed = tuple((stem, str(path), *_stat(path)) for stem, path in files.items())
    return (FORMAT, kind, sys.version, __version__, tuple(map(str, dirs)), reader, listed)


def _file_for(kind: str, dirs: tuple[Path, ...]) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    tag = zlib.crc32("\0".join([kind, *map(str, dirs)]).encode("utf-8", "surrogateescape"))
    return folder / f"{kind}-{tag:08x}.idx"


def _read(path: Path, key: tuple[Any, ...]) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            stored = marshal.load(fh)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if (not isinstance(stored, tuple) or len(stored) != 2 or stored[0] != key
            or not isinstance(stored[1], dict)):
        return None
    return stored[1]


def _write(path: Path, key: tuple[Any, ...], data: dict[str, Any]) -> None:
    """Write atomically (a temporary file renamed into place); any OSError leaves no file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            marshal.dump((key, data), fh)
        os.replace(tmp, path)
    except (OSError, ValueError):  # ValueError: data marshal cannot hold (never from YAML)
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _build(files: dict[str, Path]) -> dict[str, Any]:
    from kvplan.errors import InputError
    from kvplan.specs.loader import read_yaml

    data: dict[str, Any] = {}
    for stem, path in files.items():
        try:
            data[stem] = read_yaml(path)
        except InputError:
            data[stem] = _NOT_READ
    return data


def _racy(key: tuple[Any, ...], now_ns: int) -> bool:
    return any(mtime > now_ns - RACY_NS for _stem, _path, mtime, _size in key[-1])


@lru_cache(maxsize=16)
def load(kind: str, dirs: tuple[Path, ...]) -> dict[str, Entry]:
    """Catalog name -> Entry for one kind and folder list: from the index file when it
    matches, else read from the YAML files (and the index written for the next run)."""
    files = scan(dirs)
    key = signature(kind, dirs, files)
    where = _file_for(kind, dirs)
    data = _read(where, key) if where is not None else None
    if data is None or data.keys() != files.keys():
        now = time.time_ns()
        data = _build(files)
        if where is not None and not _racy(key, now):
            _write(where, key, data)
    return {stem: Entry(files[stem], data[stem], data[stem] != _NOT_READ) for stem in files}


def clear() -> None:
    """Forget the indexes this process read (the next `load` checks the files again)."""
    load.cache_clear()
