"""Mutated real inputs through every command: no exit 3, no traceback, no silent ignore.

Every real input under tests/assets (manifests, kvplan/v1 files, compose files, shell scripts,
model, hardware and config.json specs, traffic samples, engine logs) is mutated and each mutant
runs in-process (typer's CliRunner on kvplan.cli's app) through the commands that read it:

- YAML/JSON: for each key path (mapping keys and list items), the value replaced by each of
  null, "", "abc", -1, 0, 10**30, 1.5, [], {}, true, a 10,000-character string and a list
  nested 50 deep; the key deleted; the key duplicated.
- scripts and logs: truncated at random lines, two flags' values swapped, a flag repeated, an
  unknown flag added (before a flag in live code or arguments only: not in a comment, a
  docstring, a heredoc body or a notebook's markdown cell), non-UTF-8 bytes inserted (logs:
  their `# kvplan:` directives likewise).

A run is flagged `exit3` (exit code 3), `exc` (an exception CliRunner caught: a crash past the
CLI's handler), `traceback` ("Traceback" in the output), `slow` (over --slow CPU seconds) or
`silent`: exit 0/1 with a value of the wrong type in a key the baseline run reads (the output
moved) and no mention of the key in the output. Each mutant is run in a copy of its file's
folder (the files beside it stay readable) and the file keeps its name.

    python benchmarks/sweep.py                       # everything, a few hours on two cores
    python benchmarks/sweep.py --paths 8 --seed 1    # at most 8 key paths per document
    python benchmarks/sweep.py --only check/corpus --out /tmp/sweep
    python benchmarks/sweep.py --replay /tmp/sweep/flags.jsonl   # rerun what was flagged

Writes OUT/flags.jsonl (one line per flagged run, the mutant's file beside it under OUT/mutants)
and OUT/summary.json (runs and flags per command); prints the summary.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script
from benchmarks.sweep_mutants import (  # noqa: E402
    dump_docs,
    structured_mutants,
    text_mutants,
)

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "tests" / "assets"
SKIP_DIRS = ("hostile", "image_tags", "model_ids", "catalog_search", "docs")
SKIP_NAMES = ("SPLIT.tsv", "FITTED.tsv", "corpus-expected.yaml", "config-file-expected.yaml")

GPU = ("--gpu", "h100")
TRACE = ("fleet", "llama-3-8b", "--gpu", "h100", "-n", "50", "--context-sample")


@dataclass
class Input:
    """One real file, its kind and the commands that read it (FILE stands for the file)."""

    path: Path
    kind: str  # manifest, script, model, gpu, config, trace, log
    fmt: str  # yaml, json, text
    commands: list[tuple[str, ...]] = field(default_factory=list)


def _kind(path: Path) -> tuple[str, str] | None:
    rel = path.relative_to(ASSETS).as_posix()
    top = rel.split("/")[0]
    suffix = path.suffix.lower()
    if top in SKIP_DIRS or path.name in SKIP_NAMES or suffix in (".md", ".tsv", ".xml", ".txt"):
        return None
    if top == "logs":
        return ("log", "text") if suffix == ".log" else None
    if top == "hardware_specs":
        return "gpu", "yaml"
    if suffix == ".json":
        return ("config", "json") if "config" in path.name or top == "hf_configs" else None
    if suffix in (".csv", ".jsonl"):
        return "trace", "text"
    if top in ("model_specs", "specs") or "/" not in rel:
        return "model", "yaml"
    if suffix in (".yaml", ".yml"):
        return "manifest", "yaml"
    return "script", "text"  # .sh, Dockerfile, .txt, .log under check/


def _commands(kind: str) -> list[tuple[str, ...]]:
    return {
        "manifest": [("check", "FILE"), ("check", "FILE", "--format", "json"),
                     ("explain", "FILE"), ("size", "FILE"), ("fleet", "FILE")],
        "script": [("check", "FILE"), ("check", "FILE", "--format", "json"),
                   ("explain", "FILE"), ("size", "FILE"), ("fleet", "FILE")],
        "model": [("size", "FILE", *GPU), ("explain", "FILE", *GPU),
                  ("fleet", "FILE", *GPU, "-n", "50")],
        "gpu": [("size", "llama-3-8b", "--gpu", "FILE")],
        "config": [("import", "FILE"), ("size", "FILE", *GPU), ("explain", "FILE", *GPU)],
        "trace": [(*TRACE, "FILE")],
        "log": [("calibrate", "FILE")],
    }[kind]


def inputs(only: str | None, skip: str | None = None) -> list[Input]:
    found = []
    for path in sorted(ASSETS.rglob("*")):
        rel = path.relative_to(ASSETS).as_posix()
        if not path.is_file() or (only and only not in rel) or (skip and skip in rel):
            continue
        k = _kind(path)
        if k:
            found.append(Input(path, k[0], k[1], _commands(k[0])))
    return found


# ---- running ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    code: int
    output: str
    cpu: float
    wall: float
    exc: str


def run(runner: Any, app: Any, argv: list[str]) -> Outcome:
    start, wall = time.process_time(), time.perf_counter()
    result = runner.invoke(app, argv)
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    exc = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = f"{type(result.exception).__name__}: {result.exception}"[:300]
    return Outcome(result.exit_code, result.output, cpu, wall, exc)


def write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def _header(text: str) -> str:
    """The comment lines (kvplan directives among them) kept above a re-dumped YAML body."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.lstrip().startswith("#"))


def _norm(output: str, tmp: str) -> str:
    return re.sub(r"line\W{0,3}\d+", "line N", output.replace(tmp, ""))


def mentions(output: str, dotted: str) -> bool:
    leaf = dotted.split(":")[-1].split(".")
    words = [str(p) for p in leaf if not str(p).isdigit()]
    return bool(words) and words[-1].lower() in output.lower()


def judge(o: Outcome, b: Outcome, mutation: str, otype: str, dotted: str, kind: str, tmp: str,
          slow: float) -> list[str]:
    """The flags one run earns against its file's unmutated (re-dumped) baseline `b`."""
    hits = []
    if o.code == 3:
        hits.append("exit3")
    if o.exc:
        hits.append("exc")
    if "Traceback" in o.output:
        hits.append("traceback")
    if o.cpu > slow:
        hits.append("slow")
    wrong_type = mutation not in ("delete", "duplicate", "null") and (
        (otype in ("int", "float") and mutation in
         ("abc", "empty", "list", "map", "long", "deep", "true"))
        or (otype == "str" and mutation in ("list", "map", "deep"))
        or (otype in ("list", "dict") and mutation not in ("list", "map")))
    if (o.code in (0, 1) and b.code in (0, 1) and wrong_type
            and _norm(o.output, tmp) != _norm(b.output, tmp) and not mentions(o.output, dotted)):
        hits.append("silent")
    read = o.code in (0, 1) and not mentions(o.output, dotted)
    moved = _norm(o.output, tmp) != _norm(b.output, tmp)
    if read and b.code in (0, 1) and otype == "num" and mutation == "abc" and moved:
        hits.append("silent")  # a number's flag or log setting given a word, read in silence
    if read and otype == "directive" and mutation not in ("repeat",):
        hits.append("silent")  # a `# kvplan:` directive's bad value or unknown key, unnamed
    if read and mutation == "unknown" and otype == "text" and kind == "script":
        hits.append("silent")  # an unknown flag, never named
    if mutation == "duplicate" and o.code in (0, 1) and kind == "config":
        hits.append("silent")  # JSON's duplicate keys: the last wins in silence, unless refused
    return hits


def baseline_text(text: str, fmt: str) -> tuple[list[Any], str, str] | None:
    """(documents, comment header, the re-dumped unmutated text) of a YAML/JSON file."""
    try:
        docs = ([json.loads(text)] if fmt == "json" else
                [d for d in yaml.safe_load_all(text) if d is not None])
    except (ValueError, yaml.YAMLError):
        return None
    header = _header(text) if fmt == "yaml" else ""
    return docs, header, dump_docs(docs, fmt, header)


def command_name(cmd: tuple[str, ...] | list[str]) -> str:
    return cmd[0] + (" --format json" if cmd[0] == "check" and "json" in cmd else "")


class Workspace:
    """A copy of the file's folder (the files beside it stay readable), the file keeps its name."""

    def __init__(self, item: Input) -> None:
        self.item = item
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        folder = Path(self.tmp) / item.path.parent.name
        shutil.copytree(item.path.parent, folder, ignore=shutil.ignore_patterns("*.log")
                        if item.kind != "log" else None)
        self.target = folder / item.path.name

    def argv(self, cmd: tuple[str, ...] | list[str]) -> list[str]:
        return [str(self.target) if a == "FILE" else a for a in cmd]

    def close(self) -> None:
        self._tmp.cleanup()


def mutants_of(item: Input, text: str, paths: int, rng: random.Random
               ) -> tuple[str, Iterator[tuple[str, str, str, str]]] | None:
    """(the baseline text, the mutants) of one file; None for a file that does not parse."""
    if item.fmt == "text":
        return text, text_mutants(text, rng, item.path.suffix.lower())
    parsed = baseline_text(text, item.fmt)
    if parsed is None:
        return None
    docs, header, base = parsed
    return base, structured_mutants(docs, item.fmt, header, paths, rng)


def sweep(args: argparse.Namespace) -> int:
    from typer.testing import CliRunner

    from kvplan.cli import app

    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    (out / "mutants").mkdir(parents=True)
    runner = CliRunner()
    rng = random.Random(args.seed)
    runs: Counter[str] = Counter()
    flags: dict[str, Counter[str]] = defaultdict(Counter)
    flagged = (out / "flags.jsonl").open("w", encoding="utf-8")
    deadline = time.monotonic() + args.budget if args.budget else None
    n_flag = 0
    for item in inputs(args.only, args.skip):
        if deadline and time.monotonic() > deadline:
            print("budget spent; stopping", file=sys.stderr)
            break
        rel = item.path.relative_to(ASSETS).as_posix()
        try:
            text = item.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        made = mutants_of(item, text, args.paths, rng)
        if made is None:
            continue
        base_text, mutants = made
        ws = Workspace(item)
        write(ws.target, base_text)
        base = {cmd: run(runner, app, ws.argv(cmd)) for cmd in item.commands}
        for dotted, mutation, otype, mtext in mutants:
            write(ws.target, mtext)
            for cmd in item.commands:
                o = run(runner, app, ws.argv(cmd))
                name = command_name(cmd)
                runs[name] += 1
                hits = judge(o, base[cmd], mutation, otype, dotted, item.kind, ws.tmp, args.slow)
                for h in hits:
                    flags[name][h] += 1
                if hits:
                    n_flag += 1
                    saved = out / "mutants" / f"{n_flag:05d}{item.path.suffix}"
                    write(saved, mtext)
                    flagged.write(json.dumps({
                        "flags": hits, "file": rel, "path": dotted, "mutation": mutation,
                        "otype": otype, "argv": list(cmd), "exit": o.code,
                        "cpu": round(o.cpu, 2), "exc": o.exc, "mutant": str(saved),
                        "output": o.output.replace(ws.tmp, "TMP")[-600:],
                    }) + "\n")
                    flagged.flush()
        ws.close()
        print(f"{rel}: {sum(runs.values())} runs, {n_flag} flagged", file=sys.stderr)
    summary = {"runs": dict(runs), "flags": {k: dict(v) for k, v in flags.items()}}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 1 if n_flag else 0


def replay(path: str, slow: float) -> int:
    """Each flagged run again, judged again against its file's baseline: the flags left."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    runner = CliRunner()
    left: dict[str, Counter[str]] = defaultdict(Counter)
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        src = ASSETS / rec["file"]
        item = next(i for i in inputs(rec["file"]) if i.path == src)
        made = mutants_of(item, src.read_text(encoding="utf-8"), 1, random.Random(0))
        assert made is not None
        ws = Workspace(item)
        write(ws.target, made[0])
        b = run(runner, app, ws.argv(rec["argv"]))
        ws.target.write_bytes(Path(rec["mutant"]).read_bytes())
        o = run(runner, app, ws.argv(rec["argv"]))
        hits = judge(o, b, rec["mutation"], rec.get("otype", ""), rec["path"], item.kind, ws.tmp,
                     slow)
        ws.close()
        for h in hits:
            left[command_name(rec["argv"])][h] += 1
        if hits:
            last = o.output.strip().splitlines()[-1:] if o.output.strip() else ""
            print(hits, rec["file"], rec["path"], rec["mutation"], rec["argv"], o.code, last)
    print(json.dumps({k: dict(v) for k, v in left.items()}, indent=2))
    return 1 if left else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="only files whose path under tests/assets holds this")
    parser.add_argument("--skip", help="leave out files whose path under tests/assets holds this")
    parser.add_argument("--paths", type=int, default=0,
                        help="at most this many key paths per document (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow", type=float, default=2.0, help="CPU seconds a run may take")
    parser.add_argument("--budget", type=float, default=0, help="stop after this many seconds")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "kvplan-sweep"))
    parser.add_argument("--replay", help="rerun and judge again the runs a flags.jsonl holds")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, hard))
    if args.replay:
        return replay(args.replay, args.slow)
    return sweep(args)


if __name__ == "__main__":
    sys.exit(main())
