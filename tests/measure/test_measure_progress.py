"""The CPU defaults of `--measure` (budget, context) and its time line, without torch."""

from __future__ import annotations

import io

from kvplan.measure.progress import (
    Progress,
    available_ram_bytes,
    cpu_default_budget,
    time_line,
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


def test_the_time_line_gives_no_seconds_it_cannot_keep() -> None:
    """Task h61misc: the matmul-priced "about 10 s" took 21 s (tiny-test-model on a 2-core
    x86_64); the line says what the time depends on and the bound --time-limit sets, from the
    parameters built (tiny-test-model: 134,515,008) and the limit (120 s default, 7.5 s given)."""
    assert time_line(134_515_008, 120.0) == (
        "time not estimated (the device's speed, PyTorch's overhead per step and the machine's "
        "other work decide it): building 134,515,008 parameters, then searches and timings that "
        "start no new trial once --time-limit (120 s) has passed since the run began")
    assert "--time-limit (7.5 s)" in time_line(1, 7.5)
    assert "about" not in time_line(134_515_008, 120.0)


def test_progress_is_silent_off_a_terminal() -> None:
    buf = io.StringIO()
    p = Progress(buf)  # StringIO is not a terminal
    p.say("building")
    assert buf.getvalue() == "" and p.lines[0].endswith("building")
    loud = Progress(buf, enabled=True)
    loud.say("capacity")
    assert buf.getvalue().rstrip().endswith("capacity")
