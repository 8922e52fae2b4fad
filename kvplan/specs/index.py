"""The catalog index: every spec file's data in one compact file, so that a command needing one
spec neither parses nor checks the other hundred YAML files.

- What it holds, per kind (model_specs, hardware_specs) and list of folders: each catalog name,
  its file (earlier folders shadowing later ones, as `kvplan.specs.loader` searches them), the
  data kvplan's safe YAML reader returned for it, and the spec pydantic validated from that
  data (kvplan.specs.frozen), so that loading a spec costs neither the validation nor building
  pydantic's validators. A file that fails to read is held as "not read" and is read again
  where it is loaded, and a spec that fails validation is validated again where it is loaded,
  so each raises the very error it raises without an index: the index changes no result,
  only the time.
- Key: the folders; each file's path, size and modification time (ns); the reader's and the
  schema's own source files (size and time); the Python, pydantic and kvplan versions. Any
  difference rebuilds it.
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

FORMAT = 2
ENV_CACHE = "KVPLAN_CACHE_DIR"
RACY_NS = 2_000_000_000  # coarse file-system clocks tick in up to 2 s
_NOT_READ = ("kvplan-index:not-read",)  # a file the reader refused: read again on load
# the reader's and the schema's source files: when kvplan's YAML checks or the schema change,
# so may the data and the validated specs
_READER = ("inputs/yamlsafe.py", "inputs/limits.py", "inputs/text.py", "inputs/__init__.py",
           "specs/index.py", "specs/schema.py", "specs/frozen.py", "specs/loader.py", "units.py")


class Entry:
    """One catalog file: its path, the data read from it (`ok` False: read it again) and its
    validated spec as kvplan.specs.frozen encodes it (None: validate it where it is loaded)."""

    __slots__ = ("path", "data", "ok", "spec")

    def __init__(self, path: Path, data: Any, ok: bool, spec: Any = None) -> None:
        self.path = path
        self.data = data
        self.ok = ok
        self.spec = spec


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
    from pydantic.version import VERSION as PYDANTIC

    from kvplan import __version__

    package = Path(__file__).resolve().parents[1]
    reader = tuple(_stat(package / name) for name in _READER)
    listed = tuple((stem, str(path), *_stat(path)) for stem, path in files.items())
    return (FORMAT, kind, sys.version, __version__, PYDANTIC, tuple(map(str, dirs)), reader,
            listed)


def _file_for(kind: str, dirs: tuple[Path, ...]) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    tag = zlib.crc32("\0".join([kind, *map(str, dirs)]).encode("utf-8", "surrogateescape"))
    return folder / f"{kind}-{tag:08x}.idx"


def _read(path: Path, key: tuple[Any, ...]) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            stored = marshal.loads(fh.read())  # one read: marshal.load(fh) reads in pieces
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


def _validate(kind: str, files: dict[str, Path], data: dict[str, Any]) -> dict[str, Any]:
    """Catalog name -> its spec validated and encoded (kvplan.specs.frozen), or None where
    the file did not read or the spec is invalid (validated again, and refused, on load)."""
    from kvplan.specs.loader import encoded_spec

    return {stem: encoded_spec(kind, files[stem], data[stem]) if data[stem] != _NOT_READ
            else None for stem in files}


def _racy(key: tuple[Any, ...], now_ns: int) -> bool:
    return any(mtime > now_ns - RACY_NS for _stem, _path, mtime, _size in key[-1])


@lru_cache(maxsize=16)
def load(kind: str, dirs: tuple[Path, ...]) -> dict[str, Entry]:
    """Catalog name -> Entry for one kind and folder list: from the index file when it
    matches, else read from the YAML files (and the index written for the next run)."""
    files = scan(dirs)
    key = signature(kind, dirs, files)
    where = _file_for(kind, dirs)
    stored = _read(where, key) if where is not None else None
    if stored is None or any(not isinstance(stored.get(part), dict)
                             or stored[part].keys() != files.keys() for part in ("data", "specs")):
        now = time.time_ns()
        data = _build(files)
        stored = {"data": data, "specs": _validate(kind, files, data)}
        if where is not None and not _racy(key, now):
            _write(where, key, stored)
    data, specs = stored["data"], stored["specs"]
    return {stem: Entry(files[stem], data[stem], data[stem] != _NOT_READ, specs[stem])
            for stem in files}


def clear() -> None:
    """Forget the indexes this process read (the next `load` checks the files again)."""
    load.cache_clear()
