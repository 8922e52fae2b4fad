"""`kvplan size --measure`: build a model's architecture with random weights and check the plan.

Only the run (`kvplan.measure.run` and its stages) and `kvplan.measure.device` import torch and
transformers, and only when `--measure` is given. Everything else here (predictions, comparisons,
the capacity search, the spec -> config mapping) is pure and importable without the extra.
"""

from __future__ import annotations

import importlib.util

from kvplan.errors import InputError

EXTRA_PACKAGES = ("torch>=2.4", "transformers>=5.17")
# the packages themselves: the `kvplan` on PyPI is another project, so `kvplan[measure]` is only
# right from a checkout (`pip install ".[measure]"`)
INSTALL_HINT = "pip install " + " ".join(f"'{p}'" for p in EXTRA_PACKAGES) + (
    ' (or, from a kvplan checkout, pip install ".[measure]")')


class MeasureUnavailable(InputError):
    """The optional `measure` extra is not installed (exit code 2)."""


def missing_packages() -> list[str]:
    """Names of the extra's packages that cannot be imported here (without importing them)."""
    return [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]


def require_extra() -> None:
    """Raise a one-line error naming exactly what to install when the extra is missing."""
    missing = missing_packages()
    if missing:
        raise MeasureUnavailable(
            f"--measure needs {' and '.join(missing)}, which {'is' if len(missing) == 1 else 'are'}"
            f" not installed; run: {INSTALL_HINT}"
        )
