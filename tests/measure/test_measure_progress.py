"""The CPU defaults of `--measure` (budget, context) and its time estimate, without torch."""

from __future__ import annotations

import io

from kvplan.measure.progress import (
    Estimate,
    Progress,
    available_ram_bytes,
    cpu_default_budget,
    forward_tokens,
)

MEMINFO = "MemTotal:       24684544 kB\nMemFree:        23684544 kB\nMemAvailable:   24197632 kB\n"


def test_available_ram_reads_memavailable() -> None:
    assert available_ram_bytes(MEMINFO) == 24_197_632 * 1024  # kB -> B
    assert available_ram_bytes("MemTotal: 1 kB\n") is None


def test_default_budget_is_16_mib_bounded_by_a_quarter_of_free_ram() -> None:
    assert cpu_default_budget(24_197_632 * 1024)[0] == 16 * 1024 * 1024
    # 40 MiB available: a quarter is 10 MiB = 10,485,760 B
    budget, why = cpu_default_budget(40 * 1024 * 1024)
    assert budget == 10_485_760 and "quarter" in why
    assert cpu_default_budget(None)[0] == 16_777_216


def test_forward_tokens_counts_each_stage() -> None:
    # context 128, 5 sequences, 4 decode steps, 3 repeats:
    # kv 2 x 32 = 64; capacity 2 x 4 x 4 x 5 = 160;
    # lengths 8, 32, 127: sum n + 4 x (n + 2) = (8 + 40) + (32 + 136) + (127 + 516) = 859
    assert forward_tokens(128, 5, 4, 3) == 64 + 160 + 859


def test_estimate_is_capped_by_the_time_limit() -> None:
    est = Estimate(build_s=3.0, work_s=500.0, limit_s=120.0)
    assert est.total_s == 123.0
    assert "capped by --time-limit" in est.line()
    assert Estimate(1.0, 10.0, 120.0).total_s == 11.0


def test_progress_is_silent_off_a_terminal() -> None:
    buf = io.StringIO()
    p = Progress(buf)  # StringIO is not a terminal
    p.say("building")
    assert buf.getvalue() == "" and p.lines[0].endswith("building")
    loud = Progress(buf, enabled=True)
    loud.say("capacity")
    assert buf.getvalue().rstrip().endswith("capacity")
