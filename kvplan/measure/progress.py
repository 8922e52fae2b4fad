"""`--measure` on the CPU with no extra flags: the default budget, stage progress, what time takes.

- Budget: with no `--kv-budget-gib` on the CPU, the cache budget is `CPU_DEFAULT_BUDGET_BYTES`
  (16 MiB) or a quarter of the RAM the kernel reports as available (`MemAvailable` in
  /proc/meminfo), whichever is smaller. The CPU has no allocator limit to search against, so
  the budget bounds the cache tensors alone, exactly as a stated `--kv-budget-gib` does.
- Context: with no `--context` on the CPU, sequences are `CPU_DEFAULT_CONTEXT_TOKENS` (128)
  long, so the uncached cost-of-a-token forwards stay short.
- Progress: one line per stage and per capacity trial on stderr, only when stderr is a
  terminal (never in pipes, files or tests' captured output).
- Time: no estimate in seconds (`time_line` says why): the line names what the run does and the
  bound `--time-limit` sets.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

CPU_DEFAULT_BUDGET_BYTES = 16 * 2**20
CPU_DEFAULT_CONTEXT_TOKENS = 128
RAM_SHARE = 4  # at most 1/4 of the available RAM


def available_ram_bytes(meminfo: str | None = None) -> int | None:
    """MemAvailable from /proc/meminfo (kB -> bytes); None where the kernel does not say."""
    if meminfo is None:
        try:
            with open("/proc/meminfo", encoding="utf-8") as fh:
                meminfo = fh.read()
        except OSError:
            return None
    for line in meminfo.splitlines():
        if line.startswith("MemAvailable:"):
            parts = line.split()
            return int(parts[1]) * 1024
    return None


def cpu_default_budget(available: int | None) -> tuple[int, str]:
    """(budget bytes, where it comes from) for a CPU run without --kv-budget-gib."""
    if available is None:
        return CPU_DEFAULT_BUDGET_BYTES, (
            f"default CPU budget {CPU_DEFAULT_BUDGET_BYTES // 2**20} MiB (available RAM unknown)")
    share = available // RAM_SHARE
    if share < CPU_DEFAULT_BUDGET_BYTES:
        return share, (f"default CPU budget: a quarter of the {available:,} B of available RAM "
                       f"(under {CPU_DEFAULT_BUDGET_BYTES // 2**20} MiB)")
    return CPU_DEFAULT_BUDGET_BYTES, (
        f"default CPU budget {CPU_DEFAULT_BUDGET_BYTES // 2**20} MiB (no --kv-budget-gib; "
        f"at most a quarter of the {available:,} B of available RAM)")


def time_line(params: int, limit_s: float) -> str:
    """What the run's length depends on, in no seconds (task h61misc).

    kvplan used to price the run's forward passes at the rate of a timed 256 x 256 matmul and
    say "expected to take about N s". It fell short by 2x or more: `kvplan size tiny-test-model
    --measure --device cpu` on a 2-core x86_64 (AMD EPYC, Python 3.11.7, torch 2.13.0+cpu) said
    about 10 s and took 21 s (38 s beside another job); docs/measure.md's run said about 6 s and
    took 18.9 s; on a loaded machine it said about 25 s and measured until --time-limit stopped it
    (123.9 s). A matmul's rate leaves out PyTorch's overhead per step and the machine's other
    work, which decide a small model's run; no recorded run prices a model kvplan has not
    measured. What holds is the deadline: it starts before the build, and the searches and
    timings start no new trial once it has passed (kvplan.measure.compare.Deadline)."""
    return (f"time not estimated (the device's speed, PyTorch's overhead per step and the "
            f"machine's other work decide it): building {params:,} parameters, then searches and "
            f"timings that start no new trial once --time-limit ({limit_s:g} s) has passed since "
            "the run began")


class Progress:
    """Stage lines on stderr when it is a terminal; silent otherwise."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.t0 = time.monotonic()
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        line = f"[{time.monotonic() - self.t0:5.1f} s] {text}"
        self.lines.append(line)
        if self.enabled:
            print(line, file=self.stream, flush=True)
