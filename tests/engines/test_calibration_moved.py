"""Every log moved to fit says so in its own header, and every part SPLIT.tsv uses is defined.

SPLIT.tsv keeps, in `#` comment lines above a log's row, why a held-out log was moved to fit
("# 99 and 123 were moved to fit (...)", "# 310-319 were moved to fit (...)"); the log's own
header then carries a `# moved:` line. A part used in a row must be defined in SPLIT.tsv's
header ("#       heldout-9 = ..."). These checks read the files; the broken-copy test shows
each check fails when its rule is broken.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

LOGS = Path(__file__).parents[1] / "assets" / "logs"

_MOVED = re.compile(r"^# ((?:\d+(?:-\d+)?)(?:(?:, | and )\d+(?:-\d+)?)*) (?:was|were) moved to fit")
_PART_DEF = re.compile(r"^# (?:part: |\s+)([a-z0-9-]+) = ")


def _numbers(subject: str) -> list[str]:
    """'91, 92, 93 and 110' -> 91 92 93 110; '128-130' -> 128 129 130 (two digits at least)."""
    out: list[str] = []
    for tok in re.split(r", | and ", subject):
        first, _, last = tok.partition("-")
        out += [str(i).zfill(2) for i in range(int(first), int(last or first) + 1)]
    return out


def _header_has_moved(log: Path) -> bool:
    for line in log.read_text().splitlines():
        if not line.startswith("#"):
            return False
        if line.startswith("# moved:"):
            return True
    return False


def problems(logs: Path) -> list[str]:
    """What breaks the rules in a directory holding SPLIT.tsv and its logs."""
    lines = (logs / "SPLIT.tsv").read_text().splitlines()
    rows: dict[str, tuple[str, str]] = {}
    moved: set[str] = set()
    defined: set[str] = set()
    for line in lines:
        if line.startswith("#"):
            if m := _MOVED.match(line):
                moved.update(_numbers(m.group(1)))
            if m := _PART_DEF.match(line):
                defined.add(m.group(1))
        elif line and not line.startswith("log\t"):
            name, part = line.split("\t")[:2]
            rows[name.split("-")[0]] = (name, part)
    found: list[str] = []
    for part in sorted({p for _, p in rows.values()} - defined):
        found.append(f"part {part} has no definition in SPLIT.tsv's header")
    for num in sorted(moved, key=int):
        name, part = rows[num]
        if part != "fit":
            found.append(f"{name}: described as moved to fit but its row is {part}")
        elif not _header_has_moved(logs / name):
            found.append(f"{name}: moved to fit in SPLIT.tsv but no '# moved:' header line")
    for name, part in sorted(rows.values(), key=lambda row: int(row[0].split("-")[0])):
        if _header_has_moved(logs / name) and part != "fit":
            found.append(f"{name}: has a '# moved:' header line but is in {part}")
    return found


def test_subjects_expand_to_log_numbers() -> None:
    """The subjects SPLIT.tsv's comments use: one log, a list, a range."""
    assert _numbers("36") == ["36"]
    assert _numbers("91, 92, 93 and 110") == ["91", "92", "93", "110"]
    assert _numbers("128-130") == ["128", "129", "130"]


def test_the_calibration_set_keeps_the_rules() -> None:
    assert problems(LOGS) == []


def test_the_moved_logs_are_the_ones_split_tsv_names() -> None:
    """Counted by hand from SPLIT.tsv's '... moved to fit' comments on 2026-12-06 (task h40moved):
    36 38 47 61 62 74 75 81 89 91 92 93 97 98 99 (15); 105 106 108 110 111 112 116 119 121 122 123
    (11); 126-132 (7); 136 139 140 142 143 144 (6); 202 211 213 214 215 (5); 249 250 251 253 254
    256 259 260 264 265 (10); 271-275 (5); 281 282 284 285 286 (5); 300 (1); 310-319 (10):
    15 + 11 + 7 + 6 + 5 + 10 + 5 + 5 + 1 + 10 = 75 logs; 341 moved by the lead after task
    h41round27 (2026-12-06): 76; 420 moved by task h42gputotals (2026-12-06, the L20's runtime
    total): 77; 447 moved by task h43graphs (2026-12-06, the CUDA-graph estimate by the capture
    sizes): 78; 480 moved by task h44graphbase (2026-12-06, the CUDA-graph estimate as a first
    capture + later graphs): 79, every one with a '# moved:' header line."""
    with_header = {p.name.split("-")[0] for p in LOGS.glob("*.log") if _header_has_moved(p)}
    assert len(with_header) == 79
    assert {"61", "93", "132", "215", "256", "111", "300", "310", "319", "341", "420",
            "447", "480"} <= with_header


def test_each_rule_fails_on_a_broken_copy(tmp_path: Path) -> None:
    copy = tmp_path / "logs"
    shutil.copytree(LOGS, copy, ignore=shutil.ignore_patterns("FITTED.tsv"))
    assert problems(copy) == []
    # 1. a moved log loses its '# moved:' header lines
    log61 = next(copy.glob("61-*.log"))
    log61.write_text("".join(line for line in log61.read_text().splitlines(keepends=True)
                             if not line.startswith("# moved:")))
    # 2. a held-out log gains one
    log301 = next(copy.glob("301-*.log"))
    log301.write_text("# moved: not really\n" + log301.read_text())
    # 3. a part's definition goes
    split = copy / "SPLIT.tsv"
    split.write_text("".join(line for line in split.read_text().splitlines(keepends=True)
                             if not line.startswith("#       heldout-15 = ")))
    assert problems(copy) == [
        "part heldout-15 has no definition in SPLIT.tsv's header",
        f"{log61.name}: moved to fit in SPLIT.tsv but no '# moved:' header line",
        f"{log301.name}: has a '# moved:' header line but is in heldout-23",
    ]
    # 4. a row described as moved goes back to a held-out part
    split.write_text(split.read_text().replace(f"{log61.name}\tfit", f"{log61.name}\theldout-2"))
    assert f"{log61.name}: described as moved to fit but its row is heldout-2" in problems(copy)
