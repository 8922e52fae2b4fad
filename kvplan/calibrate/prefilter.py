"""A cheap test before the line patterns: the literal text each pattern cannot match without.

kvplan.calibrate.parse tries every pattern (80 when this was written) on every line of a log,
about 8 s of CPU for 50 MB (benchmarks/calibrate_speed.py). Most lines of a real log match
none. Each pattern's *needles* are read off its parsed form: the longest run of plain
characters it always matches (outside any optional part, repeat or inner alternation); a
pattern that is an alternation at its top level has one needle per branch. A line holding none
of a pattern's needles cannot match it, so skipping that search changes nothing; one combined
regex of every needle skips the whole loop for a line that holds none of them. A pattern with
no such run (none today) has no needles and is always tried.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

try:  # Python 3.11 moved sre_parse to re._parser (importing sre_parse warns there)
    _parser: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - Python 3.10
    _parser = importlib.import_module("sre_parse")

MIN_NEEDLE = 3  # shorter runs (": ", "x") say little about a line: the pattern is always tried
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _best(options: list[frozenset[str]]) -> frozenset[str] | None:
    """The option whose shortest needle is longest (then the fewest needles)."""
    usable = [o for o in options if o]
    if not usable:
        return None
    return max(usable, key=lambda o: (min(map(len, o)), -len(o), sorted(o)))


def _options(items: Any) -> list[frozenset[str]]:
    """Sets of literal text a parsed sequence always matches: every match holds one member of
    each set. A run of plain characters is a set of one; a group or a part repeated at least
    once adds its own; an alternation adds the union of its branches' best sets, when each
    branch has one."""
    options: list[frozenset[str]] = []
    run: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(arg))
            continue
        options.append(frozenset(["".join(run)]) if run else frozenset())
        run = []
        if name == "SUBPATTERN" and not arg[1] & re.IGNORECASE:  # a group is always matched
            options.extend(_options(arg[-1]))  # ((?i:...) stands for more than its literals)
        elif name in _REPEATS and arg[0] >= 1:  # matched at least once
            options.extend(_options(arg[2]))
        elif name == "BRANCH":
            best = [_best(_options(branch)) for branch in arg[1]]
            if all(b is not None for b in best):
                options.append(frozenset().union(*(b for b in best if b is not None)))
    options.append(frozenset(["".join(run)]) if run else frozenset())
    return options


def needles(regex: str, flags: int = 0) -> tuple[str, ...]:
    """Literal text one piece of which any match of `regex` holds; () when none is sure."""
    if (flags | re.compile(regex).flags) & re.IGNORECASE:  # a literal then stands for more
        return ()  # than itself (a leading (?i) too)
    best = _best(_options(_parser.parse(regex, flags)))
    if best is None or min(map(len, best)) < MIN_NEEDLE:
        return ()
    return tuple(sorted(best))


def gate(all_needles: list[tuple[str, ...]]) -> re.Pattern[str] | None:
    """One regex that finds any of the needles; None when a pattern has none (it is always
    tried). The needles are written as a trie (`Directly load (?:AOT compil)?|...`): a plain
    alternation of 90 needles tried each of them at every character, twice as slow."""
    if any(not n for n in all_needles):
        return None
    trie: dict[str, Any] = {}
    for needle in {n for group in all_needles for n in group}:
        node = trie
        for ch in needle:
            node = node.setdefault(ch, {})
        node[""] = {}  # a needle ends here
    return re.compile(_trie_regex(trie))


def _trie_regex(node: dict[str, Any]) -> str:
    branches = [re.escape(ch) + _trie_regex(sub) for ch, sub in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def prefilter(text: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """A pattern's needles as the parse loop tests them: one as a string (`needle in line`,
    the cheapest test), several as a tuple; (None, ()) when it has none (always tried)."""
    if len(text) == 1:
        return text[0], ()
    return None, text
