"""Calibration: kvplan's engine profiles against the public start-up logs (issue #13).

Run: python benchmarks/calibration.py [--label TEXT] [--always] [LOGDIR]. Prints the |error| in KV tokens
(shapes only) per engine, model class and part (fit / heldout / heldout-2..heldout-7,
tests/assets/logs/SPLIT.tsv), and the breakdown check, and appends them to
benchmarks/results/calibration.jsonl (with the label, when given: which code the record measured, e.g.
"before" a round's changes) when a figure moved since the file's last record; figures equal to the last
record's (its date and label aside) are not appended again unless --always is given.
Targets on the held-out part: dense vLLM median 2% (each within 5%), MoE/MLA/multimodal 5%,
SGLang and TensorRT-LLM 3%.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from kvplan.calibrate.compare import calibrate_files
    from kvplan.calibrate.split import PARTS, read_split
    from kvplan.errors import InputError
    from kvplan.render.calibration import split_summary

    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    label = None
    always = False
    while argv[:1] in (["--label"], ["--always"]):
        if argv[0] == "--always":
            always, argv = True, argv[1:]
        elif len(argv) >= 2:
            label, argv = argv[1], argv[2:]
        else:
            print("error: --label needs a text", file=sys.stderr)
            return 2
    logs = Path(argv[0]) if argv else ROOT / "tests" / "assets" / "logs"
    try:
        reports = calibrate_files([logs])
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    breakdown = [abs(c.error_pct) for r in reports for c in r.checks
                 if c.basis == "breakdown" and c.quantity == "KV memory"]
    split = read_split(logs / "SPLIT.tsv")
    record = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "logs": len(split),
        "logs_by_part": {p: sum(1 for e in split.values() if e.part == p)
                         for p in PARTS},
        "runs": len(reports),
        "breakdown_kv_memory_median_abs_error_pct": round(statistics.median(breakdown), 3),
        "breakdown_runs": len(breakdown),
        "shapes_kv_tokens": split_summary(reports),
    }
    if label:
        record["label"] = label
    for row in record["shapes_kv_tokens"]:
        print(f"{row['engine']:7} {row['model_class']:19} {row['part']:9} runs {row['runs']:2}  "
              f"median {row['median_abs_error_pct']:7.2f}%  worst {row['worst_abs_error_pct']:8.2f}%"
              f"  target {row['target_median']}")
    print(f"breakdown KV memory: median {record['breakdown_kv_memory_median_abs_error_pct']}% "
          f"of {len(breakdown)} runs")
    out = HERE / "results" / "calibration.jsonl"
    last = last_record(out)
    if not always and last is not None and same_figures(last, record):
        print(f"figures equal to the last record's ({last.get('date')}): nothing appended "
              f"(--always appends anyway)")
        return 0
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    return 0


# what a record says besides its figures
_NOT_FIGURES = ("date", "label")


def last_record(path: Path) -> dict[str, object] | None:
    """The last JSON line of `path` (None: no file or no line)."""
    if not path.is_file():
        return None
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return json.loads(lines[-1]) if lines else None


def same_figures(a: dict[str, object], b: dict[str, object]) -> bool:
    """Whether two records hold the same figures (their date and label aside)."""
    def figures(r: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in r.items() if k not in _NOT_FIGURES}
    return figures(a) == figures(b)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
