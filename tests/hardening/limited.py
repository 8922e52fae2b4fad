"""Run kvplan in a child process under a memory cap, timing its CPU use."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
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


# The child reports its own peak: on Linux a forked child's ru_maxrss starts at the parent's
# high-water mark and exec keeps it, so after a big test (the docs load every page) wait4 would
# charge the pytest process's 500+ MB to a 60 MB kvplan run. /proc/self/status's VmHWM is the
# exec'd image's own peak; it is read at exit, and wait4's figure stays as the fallback.
_WRAP = """\
import atexit, os, runpy, sys
def _peak():
    try:
        with open('/proc/self/status') as f:
            kb = next(int(ln.split()[1]) for ln in f if ln.startswith('VmHWM:'))
        with open(os.environ['KVPLAN_TEST_PEAK_FILE'], 'w') as out:
            out.write(str(kb * 1024))
    except Exception:
        pass
atexit.register(_peak)
sys.argv[0] = 'kvplan'
runpy.run_module('kvplan', run_name='__main__', alter_sys=True)
"""


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def run_limited(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
                stdin: Path | None = None) -> Outcome:
    """`python -m kvplan ARGS` with RLIMIT_AS at 500 MB; the CPU seconds and peak memory it used.

    The usage is this one child's, from os.wait4: RUSAGE_CHILDREN's ru_maxrss is the largest of
    every child the test process ever waited for, so one big subprocess earlier in the session
    (a torch import) would be charged to every later case.
    """
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80", "NO_COLOR": "1",
                "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    full_env.pop("KVPLAN_DEBUG", None)
    peak_file = tempfile.NamedTemporaryFile(delete=False)  # noqa: SIM115 - read after the child
    peak_file.close()
    full_env["KVPLAN_TEST_PEAK_FILE"] = peak_file.name
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(stdin or os.devnull, "rb") as given:  # `-` reads this file (default: nothing)
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-c", _WRAP, *args], stdin=given, stdout=out, stderr=err,
            env=full_env, cwd=cwd or ROOT, preexec_fn=_cap)
        timer = threading.Timer(WALL_TIMEOUT_S, proc.kill)  # a hang still ends the test
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    cpu = usage.ru_utime + usage.ru_stime
    try:
        reported = Path(peak_file.name).read_text()
    finally:
        os.unlink(peak_file.name)
    peak = int(reported) if reported.strip() else usage.ru_maxrss * 1024
    return Outcome(proc.returncode, stdout, stderr, cpu, peak)


def one_error_line(out: Outcome) -> str:
    """The single error line; click's usage banner (Usage:/Try) around it is allowed."""
    lines = [ln for ln in out.error_lines() if not ln.startswith(("Usage:", "Try '"))]
    assert len(lines) == 1, out.stderr
    return lines[0]


def assert_bounded(out: Outcome) -> None:
    """No traceback, and within the CPU and memory bounds."""
    assert "Traceback" not in out.stderr + out.stdout
    assert out.cpu_s < CPU_BOUND_S, f"{out.cpu_s:.1f} CPU s"
    assert out.peak_rss_bytes < MEMORY_CAP_BYTES
