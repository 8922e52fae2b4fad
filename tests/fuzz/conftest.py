"""The fuzz suite's bounds: an address-space cap while it runs, and a count of inputs tried."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from tests.fuzz.strategies import TRIED

MEMORY_BOUND_BYTES = 500 * 2**20  # on top of what the test process already maps


def _mapped_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.fixture(autouse=True)
def _memory_cap() -> Iterator[None]:
    """RLIMIT_AS at the current size + 500 MB: an input that costs more ends in MemoryError
    (exit 3 in the CLI, a failed test), not a machine out of memory. Restored afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _mapped_bytes() + MEMORY_BOUND_BYTES
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TRIED:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(TRIED.items()))
        terminalreporter.write_line(f"fuzz: {sum(TRIED.values())} inputs tried ({parts})")
