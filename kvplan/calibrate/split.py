"""The calibration set's honest split: which logs constants were fitted on, which are held out.

A log directory may carry two manifests (tab-separated, `#` comments):
- SPLIT.tsv: `log  part  engine  class`, part `fit`, `heldout`, `heldout-2`, `heldout-3`,
  `heldout-4` ... `heldout-52` (later held-out rounds, each gathered
  after the constants of the round before were set, reported as its own part), `fresh-h100`,
  `fresh-logs13` and `fresh-logs14` (fresh logs that test a pattern read off held-out logs, tasks
  h100logs, logs13 and logs14: held out too),
  class dense | moe | mla | sliding | multimodal | unknown;
- FITTED.tsv: `constant  logs  what`, the constants of kvplan/engines and the log prefixes (NN)
  each was tuned on. No held-out log may appear there (`leaks` lists any that do).
Logs outside a manifest are reported as part `unsplit`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kvplan.errors import InputError

PARTS = ("fit", "heldout", "heldout-2", "heldout-3", "heldout-4", "heldout-5",
         "heldout-6", "heldout-7", "heldout-8", "heldout-9", "heldout-10", "heldout-11",
         "heldout-12", "heldout-13", "heldout-14", "heldout-15", "heldout-16",
         "heldout-17", "heldout-18", "heldout-19", "heldout-20",
         "heldout-21", "heldout-22", "heldout-23", "heldout-24",
         "heldout-25", "heldout-26", "heldout-27", "heldout-28",
         "heldout-29", "heldout-30", "heldout-31",
         "heldout-32", "heldout-33", "heldout-34", "heldout-35",
         "heldout-36", "heldout-37", "heldout-39", "heldout-40",
         "heldout-41", "heldout-42", "heldout-43", "heldout-44",
         "heldout-45", "heldout-46", "heldout-47", "heldout-49",
         "heldout-50", "heldout-51", "heldout-52", "fresh-h100", "fresh-logs13",
         "fresh-logs14")
# held-out parts not named heldout-N: logs gathered to test a pattern read off held-out logs
FRESH_PARTS = ("fresh-h100", "fresh-logs13", "fresh-logs14")
POOLED = "heldout-all"  # every held-out part together, in the summary only (not a SPLIT.tsv part)
CLASSES = ("dense", "moe", "mla", "sliding", "multimodal", "unknown")


def is_heldout(part: str) -> bool:
    """A held-out part: `heldout`, `heldout-N` or a fresh part (never fitted on)."""
    return part.startswith("heldout") or part in FRESH_PARTS


@dataclass(frozen=True)
class Entry:
    log: str
    part: str
    engine: str
    model_class: str


def _rows(path: Path) -> list[list[str]]:
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if cells[0] in ("log", "constant"):
            continue
        rows.append([str(lineno)] + cells)
    return rows


def read_split(path: Path) -> dict[str, Entry]:
    """SPLIT.tsv -> {log file name: Entry}. Raises InputError naming a bad line."""
    out: dict[str, Entry] = {}
    for lineno, *cells in _rows(path):
        if len(cells) < 4 or cells[1] not in PARTS or cells[3] not in CLASSES:
            raise InputError(f"{path}:{lineno}: expected log, part ({'/'.join(PARTS)}), engine, "
                             f"class ({'/'.join(CLASSES)}); got {cells}")
        if cells[0] in out:
            raise InputError(f"{path}:{lineno}: {cells[0]} is listed twice")
        out[cells[0]] = Entry(cells[0], cells[1], cells[2], cells[3])
    return out


def read_fitted(path: Path) -> dict[str, list[str]]:
    """FITTED.tsv -> {constant: [log prefixes]}."""
    out: dict[str, list[str]] = {}
    for lineno, *cells in _rows(path):
        if len(cells) < 2:
            raise InputError(f"{path}:{lineno}: expected constant, logs, what")
        out[cells[0]] = [x.strip() for x in cells[1].split(",") if x.strip()]
    return out


def leaks(split: dict[str, Entry], fitted: dict[str, list[str]]) -> list[str]:
    """Constants whose fitting logs include a held-out (or unknown) log, one line each."""
    by_prefix: dict[str, list[Entry]] = {}
    for entry in split.values():
        by_prefix.setdefault(entry.log.split("-")[0], []).append(entry)
    problems = []
    for constant, prefixes in fitted.items():
        for prefix in prefixes:
            entries = by_prefix.get(prefix)
            if not entries:
                problems.append(f"{constant}: log {prefix} is not in SPLIT.tsv")
            elif any(e.part != "fit" for e in entries):
                problems.append(f"{constant}: fitted on held-out log {entries[0].log}")
    return problems


def split_for(paths: Iterable[Path]) -> dict[str, Entry]:
    """The SPLIT.tsv entries of every directory the logs come from."""
    out: dict[str, Entry] = {}
    for folder in sorted({p.parent for p in paths}):
        manifest = folder / "SPLIT.tsv"
        if manifest.is_file():
            out.update(read_split(manifest))
    return out


@dataclass(frozen=True)
class Cell:
    """Median and worst |error| (percent) of one group of runs."""

    engine: str
    model_class: str
    part: str
    errors: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.errors)

    @property
    def worst(self) -> float:
        return max(self.errors)


def group(rows: Iterable[tuple[str, str, str, float]]) -> list[Cell]:
    """(engine, class, part, |error|) rows -> one Cell per (engine, class family, part).

    Classes are reported as `dense` or `moe/mla/multimodal` (the issue's two targets);
    sliding counts as dense, unknown is left out. Every held-out run is also pooled into part
    `heldout-all` (all held-out parts together), listed after the last held-out part.
    """
    cells: dict[tuple[str, str, str], list[float]] = {}
    for engine, model_class, part, err in rows:
        if model_class == "unknown":
            continue
        family = "dense" if model_class in ("dense", "sliding") else "moe/mla/multimodal"
        cells.setdefault((engine, family, part), []).append(err)
        if is_heldout(part):
            cells.setdefault((engine, family, POOLED), []).append(err)
    order = {part: i for i, part in enumerate((*PARTS, POOLED))}
    keys = sorted(cells, key=lambda k: (k[0], k[1], order.get(k[2], len(order)), k[2]))
    return [Cell(e, c, p, tuple(cells[e, c, p])) for e, c, p in keys]
