"""Mutation testing of kvplan's core packages with mutmut, one package at a time.

For each package the code, the spec catalogs and the tests are copied to a work directory, a
pyproject.toml there tells mutmut which files to mutate and which (fast, targeted) tests guard
them, and `mutmut run` tries every mutant. The score counts a mutant as caught when a test
failed or timed out, or when benchmarks/results/equivalent_mutants.md documents it as an
equivalent mutant (a change no input can observe); everything else, "no tests" included, is a
survivor. One JSON line per package goes to benchmarks/results/mutation.jsonl (date, tool
version, counts, score, the survivors), and the survivors' diffs to
benchmarks/results/mutation-survivors-<package>.md.

    python benchmarks/mutation.py                  # kvplan/capacity (the CI run)
    python benchmarks/mutation.py traffic engines  # others, slower
    python benchmarks/mutation.py capacity --min-score 0.9   # exit 1 below 90%
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
EQUIVALENTS = RESULTS / "equivalent_mutants.md"
M = "tests/mutants/"


@dataclass(frozen=True)
class Package:
    """What to mutate (globs relative to the root) and the tests that guard it."""

    mutate: tuple[str, ...]
    tests: tuple[str, ...]


PACKAGES = {
    "capacity": Package(
        ("kvplan/capacity/*",),
        ("tests/test_capacity.py", M + "test_pipeline.py", M + "test_shapes.py",
         M + "test_state_means.py", M + "test_threshold.py", M + "test_capacity_results.py",
         M + "test_capacity_inputs.py")),
    "engines": Package(
        ("kvplan/engines/*",),
        ("tests/engines/test_engine_profiles.py", "tests/engines/test_calibration.py",
         M + "test_engines_fixes.py")),
    "traffic": Package(
        ("kvplan/traffic/*",),
        ("tests/traffic/test_risk.py", "tests/traffic/test_search.py", "tests/traffic/test_decode.py",
         "tests/traffic/test_lengths.py", M + "test_risk_search.py", M + "test_pipeline.py",
         M + "test_threshold.py", M + "test_state_means.py")),
    "verdict": Package(
        ("kvplan/check/verdict.py",),
        ("tests/check/test_check_cli.py", "tests/check/test_check_deploy.py",
         M + "test_engines_fixes.py", M + "test_threshold.py")),
    "deploy": Package(
        ("kvplan/deploy/*",),
        ("tests/check/test_check_deploy.py", "tests/check/test_check_cli.py", M + "test_threshold.py")),
}

CAUGHT = {"killed", "timeout", "caught by type check"}
COPY = ("kvplan", "model_specs", "hardware_specs", "tests", "examples")
IGNORE = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")


def documented_equivalents() -> dict[str, str]:
    """Mutant name -> reason, from the lines "- `name`: reason" of equivalent_mutants.md."""
    if not EQUIVALENTS.exists():
        return {}
    found = re.findall(r"^- `([^`]+)`: (.+)$", EQUIVALENTS.read_text(), re.M)
    return dict(found)


def pyproject(pkg: Package) -> str:
    def toml_list(items: tuple[str, ...] | list[str]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    return "\n".join([
        "[tool.pytest.ini_options]",
        'addopts = "--strict-markers -q"',
        'markers = ["slow: tests that take more than a few seconds"]',
        "",
        "[tool.mutmut]",
        'source_paths = ["kvplan"]',
        f"only_mutate = {toml_list(pkg.mutate)}",
        'also_copy = ["model_specs", "hardware_specs", "examples"]',
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow"]',
        f"pytest_add_cli_args_test_selection = {toml_list(pkg.tests)}",
        "",
    ])


def prepare(name: str, pkg: Package, work: Path) -> Path:
    root = work / name
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for part in COPY:
        shutil.copytree(ROOT / part, root / part, ignore=IGNORE)
    (root / "pyproject.toml").write_text(pyproject(pkg))
    return root


def mutmut(root: Path, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HYPOTHESIS_PROFILE": "ci", "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=root, env=env, text=True,
                          capture_output=True, timeout=timeout, check=False)


def statuses(root: Path) -> dict[str, str]:
    out = mutmut(root, "results", "--all", "true").stdout
    return dict(re.findall(r"^\s+(\S+): (.+)$", out, re.M))


def run_package(name: str, work: Path, children: int, limit_s: float) -> dict[str, object]:
    pkg = PACKAGES[name]
    root = prepare(name, pkg, work)
    start = time.monotonic()
    try:
        done = mutmut(root, "run", "--max-children", str(children), timeout=limit_s)
        finished = done.returncode == 0
        if not finished:
            print(f"{name}: mutmut run exited {done.returncode}:\n{done.stdout[-2000:]}"
                  f"{done.stderr[-3000:]}", file=sys.stderr)
    except subprocess.TimeoutExpired:
        finished = False
    seconds = round(time.monotonic() - start, 1)
    found = statuses(root)
    equivalents = documented_equivalents()
    counts: dict[str, int] = {}
    for status in found.values():
        counts[status] = counts.get(status, 0) + 1
    checked = {k: s for k, s in found.items() if s != "not checked"}
    caught = sum(1 for s in checked.values() if s in CAUGHT)
    survivors = sorted(k for k, s in checked.items() if s not in CAUGHT and k not in equivalents)
    equivalent = sum(1 for k, s in checked.items() if s not in CAUGHT and k in equivalents)
    score = (caught + equivalent) / len(checked) if checked else 0.0
    diffs = {k: mutmut(root, "show", k).stdout for k in survivors}
    write_survivors(name, survivors, diffs)
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool": "mutmut",
        "tool_version": version("mutmut"),
        "python": sys.version.split()[0],
        "package": name,
        "mutated": list(pkg.mutate),
        "tests": list(pkg.tests),
        "finished": finished,
        "seconds": seconds,
        "max_children": children,
        "mutants": len(found),
        "checked": len(checked),
        "caught": caught,
        "equivalent_documented": equivalent,
        "survived": len(survivors),
        "counts": counts,
        "score": round(score, 4),
        "survivors": survivors,
    }


def write_survivors(name: str, survivors: list[str], diffs: dict[str, str]) -> None:
    lines = [f"# Surviving mutants: {name}", "",
             "Each is either a missing test or an equivalent mutant to document in "
             "equivalent_mutants.md. Regenerated by benchmarks/mutation.py.", ""]
    for k in survivors:
        diff = "\n".join(line for line in diffs[k].splitlines()
                         if line.startswith(("+", "-")) and not line.startswith(("+++", "---")))
        lines += [f"## `{k}`", "", "```diff", diff, "```", ""]
    (RESULTS / f"mutation-survivors-{name}.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", help=f"of {', '.join(PACKAGES)} (default: capacity)")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--limit-s", type=float, default=1800.0, help="per package")
    parser.add_argument("--work", type=Path, default=None, help="default: a temporary folder")
    parser.add_argument("--min-score", type=float, default=None, help="exit 1 below this")
    args = parser.parse_args(argv)
    unknown = [p for p in args.packages if p not in PACKAGES]
    if unknown:
        parser.error(f"unknown package {unknown[0]}; use one of {', '.join(PACKAGES)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="kvplan-mutation-"))
    worst = 1.0
    for name in args.packages or ["capacity"]:
        record = run_package(name, work, args.max_children, args.limit_s)
        with (RESULTS / "mutation.jsonl").open("a") as f:
            f.write(json.dumps(record) + "\n")
        print(f"{name}: score {record['score']:.1%} ({record['caught']} caught + "
              f"{record['equivalent_documented']} documented equivalent of {record['checked']} "
              f"checked; {record['survived']} survived) in {record['seconds']} s")
        worst = min(worst, float(record["score"]))  # type: ignore[arg-type]
        if not record["finished"]:
            print(f"{name}: stopped at the time limit; the score covers the mutants checked")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if args.min_score is not None and worst < args.min_score else 0


if __name__ == "__main__":
    sys.exit(main())
