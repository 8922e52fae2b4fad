"""CLI speed: `kvplan size` against the import floor, and a 10,000-row CSV sweep.

The floor is `python -c "import typer, rich, pydantic, yaml"`: what any CLI built on these pays.
Both are timed in the same run, interleaved, as CPU time (user + system of the child process,
from resource.getrusage) and as wall time; the target is size's CPU time <= 1.5 x the floor's.

Run: python benchmarks/cli_speed.py [--runs N]. Prints the figures and appends them to
benchmarks/results/cli_speed.jsonl. Targets on a 2-core machine: CPU ratio <= 1.5, sweep under 2 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAVY = ("torch", "transformers", "matplotlib", "numpy", "scipy")


def kvplan_cmd() -> list[str]:
    exe = shutil.which("kvplan")
    return [exe] if exe else [sys.executable, "-m", "kvplan"]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def cpu_time(cmd: list[str]) -> float:
    """User + system CPU seconds of one run of `cmd` (a child process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_medians(a: list[str], b: list[str], runs: int) -> tuple[float, float]:
    """Median CPU time of two commands, run alternately so that load affects both alike."""
    cpu_time(a), cpu_time(b)  # warm the file cache
    ta, tb = [], []
    for _ in range(runs):
        ta.append(cpu_time(a))
        tb.append(cpu_time(b))
    return statistics.median(ta), statistics.median(tb)


def median_time(cmd: list[str], runs: int) -> float:
    timed(cmd)  # warm the file cache
    return statistics.median(timed(cmd) for _ in range(runs))


def heavy_imports() -> list[str]:
    """Modules from HEAVY that `kvplan size` imports (must be none)."""
    code = (
        "import sys, runpy; sys.argv=['kvplan','size','llama-3-8b','--gpu','h100','--format','json'];"
        "import io, contextlib\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        runpy.run_module('kvplan', run_name='__main__')\n"
        "except SystemExit: pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    kv = kvplan_cmd()
    size_cmd = [*kv, "size", "llama-3-8b", "--gpu", "h100", "--format", "json"]
    floor_cmd = [sys.executable, "-c", "import typer, rich, pydantic, yaml"]
    size_cpu, floor_cpu = cpu_medians(size_cmd, floor_cmd, args.runs)
    size_s = median_time(size_cmd, args.runs)
    base_s = median_time([sys.executable, "-c", "pass"], args.runs)
    contexts = ",".join(str(256 + 13 * i) for i in range(625))  # 625 x 2 x 2 x 2 x 2 = 10,000 rows
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sweep.csv"
        sweep_cmd = [*kv, "size", "llama-3.1-8b", "--gpu", "h100,h200", "--context", contexts,
                     "--kv-dtype", "fp16,fp8", "--allocation", "paged,reserved", "--tp", "1,2",
                     "--format", "csv", "--output", str(out)]
        sweep_s = statistics.median(timed(sweep_cmd) for _ in range(3))
        rows = len(out.read_text().splitlines()) - 1
    heavy = heavy_imports()
    record = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
        "size_call_median_s": round(size_s, 3),
        "size_cpu_median_s": round(size_cpu, 3),
        "import_floor_cpu_median_s": round(floor_cpu, 3),
        "size_cpu_over_floor": round(size_cpu / floor_cpu, 2),
        "python_pass_median_s": round(base_s, 3),
        "sweep_rows": rows,
        "sweep_csv_median_s": round(sweep_s, 3),
        "heavy_imports_on_size_path": heavy,
    }
    print(f"kvplan size (json), median of {args.runs}: {size_s:.3f} s wall, {size_cpu:.3f} s CPU")
    print(f"import floor (typer, rich, pydantic, yaml): {floor_cpu:.3f} s CPU; size / floor = "
          f"{size_cpu / floor_cpu:.2f}x   (target <= 1.5x)")
    print(f"python -c pass, median of {args.runs}:      {base_s:.3f} s")
    print(f"{rows:,}-row CSV sweep, median of 3:      {sweep_s:.3f} s   (target < 2 s)")
    print(f"heavy modules imported by `size`:     {', '.join(heavy) or 'none'}")
    with (HERE / "results" / "cli_speed.jsonl").open("a") as fh:
        fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
