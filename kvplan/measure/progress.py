"""`--measure` on the CPU with no extra flags: the default budget, stage progress, an estimate.

- Budget: with no `--kv-budget-gib` on the CPU, the cache budget is `CPU_DEFAULT_BUDGET_BYTES`
  (16 MiB) or a quarter of the RAM the kernel reports as available (`MemAvailable` in
  /proc/meminfo), whichever is smaller. The CPU has no allocator limit to search against, so
  the budget bounds the cache tensors alone, exactly as a stated `--kv-budget-gib` does.
- Context: with no `--context` on the CPU, sequences are `CPU_DEFAULT_CONTEXT_TOKENS` (128)
  long, so the uncached cost-of-a-token forwards stay short.
- Progress: one line per stage and per capacity trial on stderr, only when stderr is a
  terminal (never in pipes, files or tests' captured output).
- Estimate: before building, a 256 x 256 matmul is timed on the device; the forward passes the
  run will make (2 x parameters FLOPs per token) are priced at that rate, and the build at the
  rate `torch.empty(...).normal_()` fills 4 Mi elements. The searches and timings never run past
  `--time-limit`, so the estimate is capped at build + that limit.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

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


@dataclass(frozen=True)
class Estimate:
    """How long a run is expected to take, and the parts."""

    build_s: float
    work_s: float  # forward passes of the searches and timings, before the time limit
    limit_s: float

    @property
    def total_s(self) -> float:
        return self.build_s + min(self.work_s, self.limit_s)

    def line(self) -> str:
        capped = " (capped by --time-limit)" if self.work_s > self.limit_s else ""
        return (f"expected to take about {self.total_s:.0f} s: building the weights "
                f"~{self.build_s:.0f} s, then measuring ~{min(self.work_s, self.limit_s):.0f} s"
                f"{capped}")


def forward_tokens(context: int, capacity_guess: int, decode_steps: int, repeats: int) -> int:
    """Tokens the run pushes through the model (the work the estimate prices).

    KV per token: one prefill of 2 x 32 tokens. Capacity: two searches of about 4 trials, each
    `decode_steps` steps over the batch. Token cost: at context/16, /4 and context - 1, a
    cached prefill plus (repeats + 1) cached 1-token steps and (repeats + 1) uncached forwards.
    """
    kv = 2 * min(context, 32)
    capacity = 2 * 4 * decode_steps * max(1, capacity_guess)
    lengths = sorted({max(1, context // 16), max(1, context // 4), context - 1})
    cost = sum(n + (repeats + 1) * (1 + n + 1) for n in lengths)
    return kv + capacity + cost


def estimate(params: int, tokens: int, limit_s: float, torch: Any, device: Any) -> Estimate:
    """Price `tokens` forward tokens and the build of `params` weights on `device` (timed)."""
    a = torch.ones((256, 256), device=device)
    t0 = time.perf_counter()
    for _ in range(4):
        a = a @ a * (1.0 / 256)
    float(a[0, 0])
    matmul_s = (time.perf_counter() - t0) / 4
    flops = 2 * 256**3 / max(matmul_s, 1e-9)
    t0 = time.perf_counter()
    torch.empty(4 * 2**20, device=device).normal_()
    fill_rate = 4 * 2**20 / max(time.perf_counter() - t0, 1e-9)
    return Estimate(build_s=params / fill_rate, work_s=2 * params * tokens / flops,
                    limit_s=limit_s)


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
