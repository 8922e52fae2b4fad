"""--measure tests: the torch ones run wherever the extra is installed, and must run in CI."""

from __future__ import annotations

import importlib.util
import os

import pytest


@pytest.fixture(scope="session")
def measure_extra() -> None:
    """Skip without torch/transformers on a developer's machine; fail in CI (CI=true)."""
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must install the measure extra; missing: {', '.join(missing)}")
        pytest.skip(f"the measure extra is not installed ({', '.join(missing)})")
    import torch

    # One thread: on a small shared machine (CI has 2 cores) a second busy process makes
    # torch's two spinning threads ten times slower; one thread stays fast either way.
    torch.set_num_threads(1)
