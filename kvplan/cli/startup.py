"""What kvplan does, as a program only, to start at the import floor (benchmarks/cli_speed.py).

kvplan.cli imports this module before typer; when the process is `kvplan ...` or `python -m
kvplan ...` (`PROGRAM`), importing it applies the two settings below. Imported as a library
(tests, notebooks), none of this happens.

- pydantic's plugins stay unloaded (`PYDANTIC_DISABLE_PLUGINS=__all__`, unless the environment
  sets it): kvplan's models are its own internal schemas. pydantic still imports its plugin
  loader (`pydantic.plugin._loader`) the first time it builds a validator, and that module
  imports `importlib.metadata` (with email, zipfile, csv: about 15 ms, a sixth of the floor) only
  to find plugins it then does not load. `skip_plugin_loader` puts a stand-in under that name
  whose `get_plugins` answers `()` exactly where pydantic's own returns nothing (the variable set
  to `__all__`, `1` or `true`) and hands everything else to the real module, imported then.
- The cyclic garbage collector: start-up makes tens of thousands of container objects (module
  code, typer's and pydantic's classes) that live as long as the process, and with Python's
  default thresholds (700, 10, 10) a `size` run collects 82 times, walking them again and
  again. As a program kvplan collects the youngest generation every `GC_THRESHOLD[0]` new
  objects instead (15 collections; a few MB at most between two), and `freeze_startup` moves
  what start-up made out of the collector's way before the command runs (`gc.freeze`).
  Measured: `size` 1.89x -> 1.61x the import floor (benchmarks/cli_speed.py's measure, A/B,
  medians of 15). Reference counting frees everything else as before, and the command's own
  cycles are still collected.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

GC_THRESHOLD = (50_000, 20, 20)  # gc.set_threshold: young, middle, old generation
LOADER = "pydantic.plugin._loader"
ENV = "PYDANTIC_DISABLE_PLUGINS"
_DISABLED = ("__all__", "1", "true")  # the values pydantic's get_plugins reads as "none"


def as_program(argv: list[str]) -> bool:
    """True when this process is `kvplan ...` or `python -m kvplan ...` (not a test runner)."""
    if not argv or os.environ.get("_KVPLAN_COMPLETE"):  # completion lists every command
        return False
    first = os.path.basename(argv[0])
    parent = os.path.basename(os.path.dirname(argv[0]))
    return first == "kvplan" or (first == "__main__.py" and parent == "kvplan")


def collect_less() -> None:
    """The collector's thresholds for a program run (see the module docstring)."""
    import gc

    gc.set_threshold(*GC_THRESHOLD)


def _real_loader() -> Any:
    if isinstance(sys.modules.get(LOADER), _Stand):
        del sys.modules[LOADER]
    return importlib.import_module(LOADER)


class _Stand(types.ModuleType):
    """pydantic.plugin._loader until something needs more than "no plugins"."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's probes (__path__, ...): a plain module
            raise AttributeError(name)
        return getattr(_real_loader(), name)

    @staticmethod
    def get_plugins() -> Iterable[Any]:
        if os.environ.get(ENV) in _DISABLED:
            return ()
        return _real_loader().get_plugins()


def skip_plugin_loader() -> None:
    """Disable pydantic's plugins (unless the environment chose) and skip their loader."""
    os.environ.setdefault(ENV, "__all__")
    if LOADER not in sys.modules and os.environ[ENV] in _DISABLED:
        sys.modules[LOADER] = _Stand(LOADER)


def freeze_startup() -> None:
    """Leave what start-up made out of every later collection (see the module docstring)."""
    import gc

    gc.freeze()


PROGRAM = as_program(sys.argv)
if PROGRAM:
    collect_less()
    skip_plugin_loader()
