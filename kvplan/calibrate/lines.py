"""The line patterns of engine start-up logs: a run's record, and the registry each engine's
module (lines_vllm, lines_sglang, lines_trtllm) adds its patterns to; kvplan.calibrate.parse
applies every pattern to every line that holds its literal text (kvplan.calibrate.prefilter), in
registration order."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

NUM = r"(-?[\d,]*\.?\d+)"
# No figure an engine prints at start-up (GiB, MiB, tokens, blocks, seconds) comes near 10^15:
# a larger one is a damaged line, refused with its line (a 10^30 GiB "mem usage" reached a
# stand-in GPU's schema as exit 3 before task h51sweep)
MAX_FIGURE = 1e15


class FigureError(ValueError):
    """A number on a log line beyond any start-up figure: parse.py names the file."""

    def __init__(self, key: str, value: float, lineno: int) -> None:
        self.key, self.value, self.lineno = key, value, lineno
        super().__init__(f"{key} {value:g}")


def _f(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass
class Run:
    """One engine start-up: what the log says, by key (GiB, tokens, ratios as floats)."""

    label: str
    engine: str | None = None
    version: str | None = None
    model_hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)  # from the log and directives
    lines: dict[str, tuple[int, str]] = field(default_factory=dict)  # key -> (line no, text)
    errors: list[str] = field(default_factory=list)  # engine refusal messages
    unparsed: list[tuple[int, str]] = field(default_factory=list)
    ranks: dict[int, float] = field(default_factory=dict)  # rank -> KV GiB it printed
    # lines that classify the run without a value: key -> (line no, the text from the match on)
    marks: dict[str, tuple[int, str]] = field(default_factory=dict)
    # what the log's own lines overrode of a directive, said in the run's notes
    overridden: list[str] = field(default_factory=list)

    def put(self, key: str, value: float, lineno: int, text: str) -> None:
        if not math.isfinite(value) or abs(value) > MAX_FIGURE:
            raise FigureError(key, value, lineno)
        self.values[key] = value
        self.lines[key] = (lineno, text.strip())

    def read_settings(self, text: str, keys: tuple[tuple[str, str], ...],
                      replace: bool = False) -> None:
        """Each (key, regex) whose regex finds its first group in `text`, as a setting; a
        setting already read is kept unless `replace` (a later, fuller line wins)."""
        for key, rx in keys:
            found = re.search(rx, text)
            if found and (replace or key not in self.settings):
                self.settings[key] = found[1]


@dataclass
class LogFile:
    path: Path
    runs: list[Run]
    header: dict[str, str]


Handler = Callable[[Run, "re.Match[str]", int, str], None]
PATTERNS: list[tuple[str, re.Pattern[str], Handler]] = []


def pattern(engine: str, regex: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        PATTERNS.append((engine, re.compile(regex), fn))
        return fn

    return deco


def values(engine: str, regex: str, *keys: str) -> None:
    """A line whose numbered groups are, in order, the values of `keys` (in the log's units)."""

    def put(r: Run, m: re.Match[str], n: int, t: str) -> None:
        for i, key in enumerate(keys, start=1):
            r.put(key, _f(m[i]), n, t)

    PATTERNS.append((engine, re.compile(regex), put))


def setting(engine: str, regex: str, key: str, value: str | None = None) -> None:
    """A line that sets one setting: `value`, or (None) the line's first group."""

    def put(r: Run, m: re.Match[str], n: int, t: str) -> None:
        r.settings[key] = m[1] if value is None else value

    PATTERNS.append((engine, re.compile(regex), put))
