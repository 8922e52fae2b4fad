"""Speed of `kvplan calibrate`'s log reading (kvplan.calibrate.parse): every line of a start-up
log is tried against each engine's line patterns (80 when this was written).

1. `kvplan calibrate tests/assets/logs --format csv`: the calibration set, every log in one
   fresh process; the CSV's SHA-256 is recorded beside the time, so a speed-up that changed
   any output shows as a changed digest.
2. A 50 MB log made of the calibration set's real lines: every line of tests/assets/logs/*.log
   that the reader reads as a log line (not blank, not a `#` comment, header or directive;
   vLLM V0's "# GPU blocks: N" kept), each distinct line once per round, in a new order each
   round (seeded), with the round in its `MM-DD HH:MM:SS` time stamp and its `pid=N`, until the
   file holds 50 MB. Lines with neither (a config dump's `  key=value`) repeat once a round; the
   count of distinct lines is recorded. Timed in-process: parse_file's CPU time
   (time.process_time), best of `--runs`, and the runs and lines it found.

Target: 50 MB read in under 4.5 s of CPU on the 2-core development machine (7.7 s before
task harden's prefilter, this script on main 604675e0), the CSV identical.

Run: python benchmarks/calibrate_speed.py [--runs 3] [--mb 50] [--no-record] [--note TEXT].
Prints the figures and appends them to benchmarks/results/calibrate_speed.jsonl.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOGS = ROOT / "tests" / "assets" / "logs"
TARGET_CPU_S_PER_50MB = 4.5
STAMP = re.compile(r"\b(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
PID = re.compile(r"\bpid=(\d+)")
V0_BLOCKS = re.compile(r"#\s*(GPU|cuda|CUDA) blocks")


def log_lines() -> list[str]:
    """The distinct lines of the calibration set that parse_text reads as log lines."""
    seen: dict[str, None] = {}
    for path in sorted(LOGS.glob("*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            stripped = line.strip()
            if not stripped or (stripped.startswith("#") and not V0_BLOCKS.match(stripped)):
                continue
            seen.setdefault(line, None)
    return list(seen)


def _in_round(line: str, n: int) -> str:
    """`line` with round `n` in its time stamp (minutes and seconds) and pid."""
    line = STAMP.sub(lambda m: f"{m[1]}-{m[2]} {m[3]}:{n // 60 % 60:02d}:{n % 60:02d}", line)
    return PID.sub(lambda m: f"pid={int(m[1]) + n}", line)


def build_log(path: Path, mb: int) -> tuple[int, int, int]:
    """Write the generated log; (bytes, lines, distinct lines)."""
    base = log_lines()
    rng = random.Random(45)
    out: list[str] = []
    size, n = 0, 0
    while size < mb * 10**6:
        order = base[:]
        rng.shuffle(order)
        for line in order:
            text = _in_round(line, n)
            out.append(text)
            size += len(text.encode("utf-8")) + 1
        n += 1
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return size, len(out), len(set(out))


def cli_csv(code: Path) -> tuple[float, str]:
    """CPU seconds (user + system) and SHA-256 of `kvplan calibrate tests/assets/logs --format
    csv` run from `code` (one fresh process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "kvplan", "calibrate", str(LOGS), "--format",
                           "csv"], capture_output=True, cwd=code, check=False,
                          env={**os.environ, "PYTHONPATH": str(code)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"kvplan calibrate exited {proc.returncode}: {proc.stderr[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, hashlib.sha256(proc.stdout).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case (best CPU time)")
    parser.add_argument("--mb", type=int, default=50, help="size of the generated log, MB")
    parser.add_argument("--code", type=Path, default=ROOT, help="time this checkout's kvplan")
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--note", default="", help="recorded with the figures (machine load)")
    args = parser.parse_args()
    code = args.code.resolve()
    sys.path.insert(0, str(code))
    from kvplan.calibrate.parse import ORDERED, parse_file

    load_before = os.getloadavg()[0]
    cli = [cli_csv(code) for _ in range(args.runs)]
    digests = {d for _, d in cli}
    with tempfile.TemporaryDirectory(prefix="harden-") as tmp:
        big = Path(tmp) / "calibration-lines.log"
        size, lines, distinct = build_log(big, args.mb)
        best, found = float("inf"), None
        for _ in range(args.runs):
            start = time.process_time()
            parsed = parse_file(big)
            best = min(best, time.process_time() - start)
            found = parsed
    assert found is not None
    run = found.runs[0]
    record = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "benchmark": "calibrate_speed",
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "note": args.note,
        "runs": args.runs,
        "patterns": len(ORDERED),
        "calibrate_assets_csv_cpu_s_best": round(min(c for c, _ in cli), 3),
        "calibrate_assets_csv_sha256": sorted(digests),
        "generated_log": {"bytes": size, "lines": lines, "distinct_lines": distinct},
        "parse_cpu_s_best": round(best, 3),
        "parse_cpu_s_per_50mb": round(best * 50e6 / size, 3),
        "parsed": {"runs": len(found.runs), "values": len(run.values),
                   "settings": len(run.settings), "unparsed": len(run.unparsed),
                   "errors": len(run.errors)},
        "target_cpu_s_per_50mb": TARGET_CPU_S_PER_50MB,
    }
    print(f"best of {args.runs}, CPU time; load {load_before:.2f} -> {os.getloadavg()[0]:.2f}")
    print(f"  kvplan calibrate tests/assets/logs --format csv: "
          f"{record['calibrate_assets_csv_cpu_s_best']:.2f} s, sha256 {', '.join(sorted(digests))}")
    print(f"  parse_file on {size / 1e6:.1f} MB ({lines:,} lines, {distinct:,} distinct): "
          f"{best:.2f} s = {record['parse_cpu_s_per_50mb']:.2f} s per 50 MB "
          f"(target < {TARGET_CPU_S_PER_50MB} s); {record['parsed']}")
    if not args.no_record:
        with (HERE / "results" / "calibrate_speed.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
