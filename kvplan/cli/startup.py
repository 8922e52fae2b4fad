"""What kvplan does, as a program only, to start at the import floor (benchmarks/cli_speed.py).

Imported as a library (tests, notebooks), none of this happens.

- pydantic's plugins stay unloaded (`PYDANTIC_DISABLE_PLUGINS=__all__`, unless the environment
  sets it): kvplan's models are its own internal schemas. pydantic still imports its plugin
  loader (`pydantic.plugin._loader`) the first time it builds a validator, and that module
  imports `importlib.metadata` (with email, zipfile, csv: about 15 ms, a sixth of the floor) only
  to find plugins it then does not load. `skip_plugin_loader` puts a stand-in under that name
  whose `get_plugins` answers `()` exactly where pydantic's own returns nothing (the variable set
  to `__all__`, `1` or `true`) and hands everything else to the real module, imported then.
- The objects start-up makes (module code, typer's and pydantic's classes) live as long as the
  process: `freeze_startup` moves them out of the cyclic collector's way before the command
  runs (`gc.freeze`), so that the collections the command's own work triggers do not walk them
  again and again (about a tenth of `size`'s time). Nothing is collected less: start-up makes
  no garbage worth collecting, and the command's own objects are collected as before.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

LOADER = "pydantic.plugin._loader"
ENV = "PYDANTIC_DISABLE_PLUGINS"
_DISABLED = ("__all__", "1", "true")  # the values pydantic's get_plugins reads as "none"


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
        return _real_loader().get_plugins()  # type: ignore[no-any-return]


def skip_plugin_loader() -> None:
    """Disable pydantic's plugins (unless the environment chose) and skip their loader."""
    os.environ.setdefault(ENV, "__all__")
    if LOADER not in sys.modules and os.environ[ENV] in _DISABLED:
        sys.modules[LOADER] = _Stand(LOADER)


def freeze_startup() -> None:
    """Leave what start-up made out of every later collection (see the module docstring)."""
    import gc

    gc.freeze()
