"""Run kvplan in a child process under a memory cap, timing its CPU use."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MEMORY_CAP_BYTES = 500 * 2**20  # RLIMIT_AS: address space, a stricter bound than resident memory
CPU_BOUND_S = 5.0  # CPU seconds: immune to how busy the machine is
WALL_TIMEOUT_S = 60  # a hang still ends the test
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    cpu_s: float
    peak_rss_bytes: int

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def run_limited(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Outcome:
    """`python -m kvplan ARGS` with RLIMIT_AS at 500 MB; the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80", "NO_COLOR": "1",
                "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    full_env.pop("KVPLAN_DEBUG", None)
    proc = subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "kvplan", *args], capture_output=True, text=True,
        env=full_env, cwd=cwd or ROOT, preexec_fn=_cap, timeout=WALL_TIMEOUT_S, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Outcome(proc.returncode, proc.stdout, proc.stderr, cpu, after.ru_maxrss * 1024)
