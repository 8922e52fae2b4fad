"""CLI start-up: `kvplan size` and `kvplan check` on one file against the import floor, and a
10,000-row CSV sweep.

The floor is `python -c "import typer, rich, pydantic, yaml"`: what any CLI built on these pays
to start. Every case is run alternately with it in the same run, as CPU time (user + system of
the child process, from resource.getrusage), so that a busy machine weighs on both alike; the
figure is the median of `--runs`. Targets on a 2-core machine: `size` <= 1.5 x the floor,
`check` on one manifest <= 2 x (a kvplan/v1 file, and a Kubernetes manifest without traffic;
a manifest whose traffic has a length spread also imports numpy for the overflow risk, and is
reported beside them), the sweep under 2 s. `kvplan --help` and `models --format json` are
reported beside them (no target: they plan nothing).

A second reference, the "typer floor", is a generated typer app with the same options as
`kvplan size` (the same names and types, flags as flags) whose command does nothing: what typer
itself costs to parse that command line (typer 0.29 built a pydantic validator for every
option, even one not given, 1.7x the floor for this app; kvplan requires typer < 0.29, about
0.75x). What `size` costs above it is kvplan's own, pydantic's import included (`import
pydantic` is lazy: the floor loads none of its models' machinery).

A third, "typer floor + a pydantic model (kvplan's start-up settings)": the typer floor with
kvplan.cli.startup's settings (the collector's thresholds and freeze, no plugin-loader import)
and one pydantic model defined and validated, so pydantic.main and pydantic.fields load. It
is the least `size` can cost while it validates the kvplan/v1 record its flags make with
pydantic; what `size` costs above it is kvplan's own code. The package versions are recorded
with the figures.

The code timed is this checkout's (`python -m kvplan` with the checkout first on the path, or
`--code DIR`), with its bytecode compiled first, as an installed wheel has it, and the
catalog index (kvplan/specs/index.py) built by one warm-up run, as any run after the first has.

Run: python benchmarks/cli_speed.py [--runs N] [--no-record]. Prints the figures and appends
them to benchmarks/results/cli_speed.jsonl.
"""

from __future__ import annotations

import argparse
import compileall
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
HEAVY = ("torch", "transformers", "matplotlib", "numpy", "scipy", "yaml", "rich")
FLOOR = [sys.executable, "-c", "import typer, rich, pydantic, yaml"]
SIZE = ["size", "llama-3-8b", "--gpu", "h100", "--format", "json"]
# prepended to the typer floor app: kvplan.cli.startup loaded from its file (no kvplan.cli
# package import), its settings applied, one model validated; the freeze before the app runs
PYDANTIC_PREFIX = (
    "import importlib.util, sys\n"
    "_spec = importlib.util.spec_from_file_location('_startup', {path!r})\n"
    "_startup = importlib.util.module_from_spec(_spec)\n"
    "_spec.loader.exec_module(_startup)\n"
    "_startup.collect_less()\n"
    "_startup.skip_plugin_loader()\n"
    "import pydantic\n"
    "class M(pydantic.BaseModel):\n"
    "    x: int = 0\n"
    "M.model_validate({{'x': 1}})\n"
)
CHECKS = {  # one manifest each: a kvplan/v1 file with a mean only; a public Kubernetes
    # manifest with no traffic (the start-up verdict, vLLM's profile); one with a length spread
    "check one kvplan/v1 file": ["check", "examples/support-chatbot.yaml"],
    "check one Kubernetes manifest, no traffic (start-up verdict)": [
        "check", "tests/assets/check/corpus/gke/vllm-7b-it-h100-80gb.yaml"],
    "check one Kubernetes manifest (a length spread: numpy)": [
        "check", "examples/k8s/vllm-llama3-8b.yaml"],
}
# start-up without planning: every command registered for the help, and a catalog as JSON
# (task h42hygiene: both loaded the catalog's specs and pydantic_core, JSON also rich's table)
NO_PLAN = {
    "kvplan --help": ["--help"],
    "models --format json": ["models", "--format", "json"],
}
# the spread's overflow risk is numpy's FFT (issue 14 asks for it): numpy's import alone is
# about 0.8x the floor, so that case is reported beside the 2x target, not held to it
SPREAD = "check one Kubernetes manifest (a length spread: numpy)"
CODE = [ROOT]


def kvplan(*args: str) -> list[str]:
    return [sys.executable, "-m", "kvplan", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(CODE[0])}


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one fresh process; exit 0 or 1 (a verdict)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=CODE[0],
                          env=_env(), check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]!r}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def interleaved(cases: dict[str, list[str]], runs: int) -> dict[str, dict[str, float]]:
    """Median CPU and wall seconds of each case, the cases run in turn `runs` times."""
    for cmd in cases.values():
        run(cmd)  # warm the file cache (and the catalog index)
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    wall: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, cmd in cases.items():
            w, c = run(cmd)
            wall[name].append(w)
            cpu[name].append(c)
    return {k: {"cpu_s_median": round(statistics.median(cpu[k]), 4),
                "wall_s_median": round(statistics.median(wall[k]), 4)} for k in cases}


def typer_floor_script(command: str = "size", prefix: str = "") -> str:
    """A typer app with the options of `kvplan <command>` (and the root's flags) doing nothing,
    after `prefix` (code run first)."""
    sys.path.insert(0, str(CODE[0]))
    import typer.main

    from kvplan.cli import app

    cli = typer.main.get_command(app)
    params = cli.commands[command].params  # type: ignore[attr-defined]
    lines = ["from __future__ import annotations", prefix, "import enum, pathlib", "import typer",
             "from typing import Annotated, Optional",
             "class Choice(str, enum.Enum):\n    table = 'table'\n    json = 'json'\n"
             "    csv = 'csv'",
             "app = typer.Typer()", "@app.callback()",
             "def root(debug: bool = False, no_color: bool = False, version: bool = False):"
             "\n    pass", f"@app.command({command!r})"]
    args = []
    by_type = {"integer": int, "int range": int, "float": float, "float range": float,
               "boolean": bool, "path": Path, "choice": __import__("enum").Enum}
    for p in params:
        kind = getattr(getattr(p, "type_descriptor", None), "annotation", None)  # typer 0.29
        if kind is None:  # typer 0.27-0.28: the click type's name
            kind = by_type.get(getattr(p.type, "name", ""), str)
        if isinstance(kind, type) and issubclass(kind, __import__("enum").Enum):
            name = "Choice"
        elif kind is Path:
            name = "pathlib.Path"
        elif kind in (int, float, str, bool):
            name = kind.__name__
        else:
            name = "str"
        if p.param_type_name == "argument":
            args.append(f"{p.name}: str")
        elif name == "bool":
            args.append(f"{p.name}: Annotated[bool, typer.Option({p.opts[0]!r})] = False")
        else:
            args.append(f"{p.name}: Annotated[Optional[{name}], typer.Option({p.opts[0]!r})]"
                        " = None")
    lines.append(f"def {command}(" + ", ".join(args) + "):\n    pass")
    if prefix:
        lines.append("_startup.freeze_startup()")
    lines.append("app()")
    return "\n".join(lines) + "\n"


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name) for name in ("typer", "pydantic", "rich", "PyYAML", "numpy")}


def heavy_imports() -> list[str]:
    """Modules from HEAVY that `kvplan size` imports (must be none)."""
    code = (
        f"import sys, runpy; sys.argv={['kvplan', *SIZE]!r};"
        "import io, contextlib\n"
        "try:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        runpy.run_module('kvplan', run_name='__main__')\n"
        "except SystemExit: pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=CODE[0], env=_env())
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (median)")
    parser.add_argument("--code", type=Path, default=ROOT, help="time this checkout's kvplan")
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--note", default="", help="recorded with the figures (machine load)")
    args = parser.parse_args()
    CODE[0] = args.code.resolve()
    compileall.compile_dir(CODE[0] / "kvplan", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        floor_app = Path(tmp) / "typer_floor.py"
        floor_app.write_text(typer_floor_script("size"))
        pydantic_app = Path(tmp) / "typer_floor_pydantic.py"
        pydantic_app.write_text(typer_floor_script(
            "size", PYDANTIC_PREFIX.format(path=str(CODE[0] / "kvplan/cli/startup.py"))))
        cases = {"floor": FLOOR, "size": kvplan(*SIZE),
                 "typer floor for size's options": [sys.executable, str(floor_app), *SIZE],
                 "typer floor + a pydantic model (kvplan's start-up settings)": [
                     sys.executable, str(pydantic_app), *SIZE],
                 **{name: kvplan(*argv) for name, argv in CHECKS.items()},
                 **{name: kvplan(*argv) for name, argv in NO_PLAN.items()}}
        load_before = os.getloadavg()[0]
        fig = interleaved(cases, args.runs)
        contexts = ",".join(str(256 + 13 * i) for i in range(625))  # 625 x 2 x 2 x 2 x 2 rows
        out = Path(tmp) / "sweep.csv"
        sweep_cmd = kvplan("size", "llama-3.1-8b", "--gpu", "h100,h200", "--context", contexts,
                           "--kv-dtype", "fp16,fp8", "--allocation", "paged,reserved",
                           "--tp", "1,2", "--format", "csv", "--output", str(out))
        sweep_s = statistics.median(run(sweep_cmd)[0] for _ in range(3))
        rows = len(out.read_text().splitlines()) - 1
    floor = fig["floor"]["cpu_s_median"]
    ratios = {k: round(v["cpu_s_median"] / floor, 2) for k, v in fig.items()}
    heavy = heavy_imports()
    record = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "benchmark": "cli_speed",
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "versions": _versions(),
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "note": args.note,
        "runs": args.runs,
        "import_floor_cpu_median_s": floor,
        "cpu_median_s": {k: v["cpu_s_median"] for k, v in fig.items()},
        "wall_median_s": {k: v["wall_s_median"] for k, v in fig.items()},
        "cpu_over_floor": ratios,
        "targets": {"size": 1.5, **{name: 2.0 for name in CHECKS if name != SPREAD}},
        "sweep_rows": rows,
        "sweep_csv_median_s": round(sweep_s, 3),
        "heavy_imports_on_size_path": heavy,
    }
    print(f"medians of {args.runs}, CPU time (user + system), each against the floor "
          f"`import typer, rich, pydantic, yaml` = {floor * 1000:.0f} ms in the same run; "
          f"load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}")
    for name, value in fig.items():
        target = record["targets"].get(name)  # type: ignore[attr-defined]
        goal = f"   (target <= {target}x)" if target else ""
        print(f"  {name:<58} {value['cpu_s_median'] * 1000:6.0f} ms  {ratios[name]:.2f}x{goal}")
    print(f"{rows:,}-row CSV sweep, median of 3 (wall): {sweep_s:.3f} s   (target < 2 s)")
    print(f"heavy modules imported by `size`: {', '.join(heavy) or 'none'}")
    if not args.no_record:
        with (HERE / "results" / "cli_speed.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
