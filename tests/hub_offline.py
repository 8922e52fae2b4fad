"""The Hugging Face hub offline, for the tests that run `kvplan` in a fresh interpreter on a hub
cache they write (tests/resolve/test_resolver.py, tests/catalog/test_hf_quant_schemes.py,
tests/catalog/test_linear_quant.py): huggingface_hub's cache layout under HF_HOME, and the run."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import ROOT

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def hub_cache(home: Path, repo: str, files: Mapping[str, str]) -> None:
    """The layout huggingface_hub keeps under HF_HOME, hub/models--org--name/{refs/main,
    snapshots/<commit>/}, its snapshot holding `files` (name -> text)."""
    folder = home / "hub" / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(COMMIT)
    snap = folder / "snapshots" / COMMIT
    snap.mkdir(parents=True)
    for name, text in files.items():
        (snap / name).write_text(text)


def run_kvplan(args: list[str], env: Mapping[str, str],
               block_hub: bool = False) -> subprocess.CompletedProcess[str]:
    """`kvplan ARGS` in a fresh interpreter: this checkout first on its path, no colour, `env`
    over this process's environment; `block_hub`: as if huggingface_hub were not installed."""
    code = "import sys\n"
    if block_hub:
        code += "sys.modules['huggingface_hub'] = None  # as if the package were not installed\n"
    code += "from kvplan.cli import main\nsys.argv = ['kvplan', *sys.argv[1:]]\nmain()\n"
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", **env}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=full_env, timeout=60, cwd=ROOT)
