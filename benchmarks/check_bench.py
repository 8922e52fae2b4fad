"""Benchmark of realistic work: `kvplan check` on distinct deployments, and `fleet --search`.

1. `kvplan check DIR --format json` on 100 and on 1,000 distinct kvplan/v1 files from the
   seeded generator in benchmarks/corpus.py (each its own model, GPU, TP, traffic spread,
   risk and count; about half short, so fixes are searched). Targets: 100 files < 5 s,
   1,000 files < 30 s.
2. `kvplan check tests/assets/check/corpus --format json`: the real-manifest corpus of the
   check issue (public Kubernetes, Helm, KServe, LWS, KubeRay, AIBrix, Dynamo and Compose
   files, tests/assets/check/corpus/SOURCES.md), every file in one run. Its verdicts are the
   hand-derived ones of tests/assets/check/corpus-expected.yaml, some of them ERROR, so the
   run exits 2; the summary counts are recorded with the time.
3. `kvplan fleet llama-3-8b -n 20000 --context-p50 1200 --context-p95 6000 --search` over
   every catalog GPU (a lognormal spread: the overflow risk per candidate). Target < 2 s.

Each is a fresh CLI process, timed by its median wall time over the runs, with the CPU time
it used (user + system, from the children's rusage) beside it; the reference
`python -c "import typer, rich, pydantic, yaml"` is measured in the same run, so a busy
machine shows in both. Results are appended, dated, to benchmarks/results/check_bench.jsonl.

Run: `python benchmarks/check_bench.py [--runs 5] [--runs-large 3] [--sizes 100,1000]`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import build  # noqa: E402

REFERENCE = [sys.executable, "-c", "import typer, rich, pydantic, yaml"]
CORPUS = "tests/assets/check/corpus"  # relative to the checkout timed
FLEET_SEARCH = ["fleet", "llama-3-8b", "-n", "20000", "--context", "8192", "--context-p50",
                "1200", "--context-p95", "6000", "--search", "--format", "json"]


def kvplan(*args: str) -> list[str]:
    return [sys.executable, "-m", "kvplan", *args]


CODE = [ROOT]  # the checkout whose kvplan is timed (--code: another one, for a before/after)


def run_once(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system) and stdout of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # run from the checkout: `python -m` puts the working folder first on the path
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=CODE[0],
                          env={**os.environ, "PYTHONPATH": str(CODE[0])})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def measure(cmd: list[str], runs: int, ok: tuple[int, ...] = (0,)) -> tuple[dict[str, float], str]:
    walls, cpus, out = [], [], ""
    for _ in range(runs):
        wall, cpu, out = run_once(cmd, ok)
        walls.append(wall)
        cpus.append(cpu)
    figures = {"wall_s_median": round(statistics.median(walls), 3),
               "wall_s_max": round(max(walls), 3),
               "cpu_s_median": round(statistics.median(cpus), 3), "runs": runs}
    return figures, out


def _revision(path: Path) -> str:
    """The commit of a checkout (with +dirty for uncommitted changes), else its path."""
    try:
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "kvplan"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return str(path)
    return head + ("+dirty" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (median)")
    parser.add_argument("--runs-large", type=int, default=3, help="runs for 1,000 files")
    parser.add_argument("--sizes", default="100,1000", help="corpus sizes, comma-separated")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--code", type=Path, default=ROOT,
                        help="time the kvplan of this checkout (e.g. an older commit's tree)")
    parser.add_argument("--label", default="", help="recorded with the figures (e.g. before)")
    args = parser.parse_args()
    CODE[0] = args.code.resolve()

    run_once(REFERENCE)  # warm the file cache
    load_before = os.getloadavg()[0]
    reference, _ = measure(REFERENCE, args.runs)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for files in (int(s) for s in args.sizes.split(",")):
            folder = Path(tmp) / f"c{files}"
            build(folder, files, args.seed)
            runs = args.runs if files <= 100 else args.runs_large
            figures, out = measure(kvplan("check", str(folder), "--format", "json"), runs,
                                   ok=(0, 1))
            summary = json.loads(out)["summary"]
            rows.append({"case": f"check {files} distinct files (seed {args.seed})", **figures,
                         "pass": summary["pass"], "fail": summary["fail"],
                         "error": summary["error"],
                         "target_s": 5.0 if files <= 100 else 30.0})
    corpus = kvplan("check", str(CODE[0] / CORPUS), "--format", "json")
    run_once(corpus, ok=(0, 1, 2))  # the catalog index, and the file cache
    figures, out = measure(corpus, args.runs, ok=(0, 1, 2))
    summary = json.loads(out)["summary"]
    rows.append({"case": f"check {CORPUS} (real manifests, one run)", **figures,
                 "files": len({r["file"] for r in json.loads(out)["results"]})
                 + len(summary["skipped_files"]),
                 "pass": summary["pass"], "warn": summary["warn"], "fail": summary["fail"],
                 "error": summary["error"], "target_s": 5.0})
    figures, out = measure(kvplan(*FLEET_SEARCH), args.runs)
    rows.append({"case": "fleet --search llama-3-8b 20000 users p50 1200 p95 6000, all GPUs",
                 **figures, "configurations": len(json.loads(out)["results"]), "target_s": 2.0})
    reference_after, _ = measure(REFERENCE, args.runs)
    stamp = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "benchmark": "check_bench",
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "code": _revision(CODE[0]),
        "label": args.label,
        "reference_wall_s_median": reference["wall_s_median"],
        "reference_cpu_s_median": reference["cpu_s_median"],
        "reference_after_wall_s_median": reference_after["wall_s_median"],
    }
    print(f"reference `import typer, rich, pydantic, yaml`: {reference['wall_s_median']} s wall "
          f"(after: {reference_after['wall_s_median']} s), {reference['cpu_s_median']} s CPU; "
          f"load average {stamp['load_avg_1m_before']} -> {stamp['load_avg_1m']}")
    for r in rows:
        print(f"{r['case']}: {r['wall_s_median']} s wall median of {r['runs']} "
              f"(max {r['wall_s_max']} s), {r['cpu_s_median']} s CPU; target < {r['target_s']} s")
    if not args.no_record:
        out_file = HERE / "results" / "check_bench.jsonl"
        with out_file.open("a", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({**stamp, **r}) + "\n")
        print(f"recorded in {out_file.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
