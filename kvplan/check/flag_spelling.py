"""How an option's spelling is judged against an engine's option table: the tables themselves
(TABLES), a misspelling one or two letters from a real option (misspelling_of), and the
closest option offered in a message (did_you_mean). kvplan.check.argv re-exports them."""

from __future__ import annotations

import difflib

from kvplan.check.engine_flags import OPTION_TABLES
from kvplan.engine_traits import traits

# engine -> (its option table's options, what messages call the table's source: a release, or
# for trtllm a commit, which is no release: an image's release is placed against a table by
# OptionTable.position, never compared with the hash)
TABLES = {engine: (table.flags, table.label) for engine, table in OPTION_TABLES.items()}


def _edits(a: str, b: str, most: int) -> int:
    """Levenshtein distance of a and b, or most + 1 once it is past `most`."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > most:
            return most + 1
    return row[-1]


def _spelt(engine: str, flag: str) -> str:
    """`flag` as the engine's table spells it: vLLM's `--max_model_len` is `--max-model-len`."""
    return "--" + flag.lstrip("-").replace("_", "-") if traits(engine).dash_is_underscore \
        else flag


def misspelling_of(engine: str, flag: str) -> str | None:
    """The engine option `flag` is one or two letters away from (`--gpu-memory-utilisation`):
    a misspelling no release accepts, whatever the image's version. Options removed across
    releases differ from today's by whole words, never by a letter or two. A short name (under
    8 characters with its dashes: `--confg`) counts at one letter only, and not below 6
    (`--tp`): two letters turn short names into one another (`--port`, `--host`)."""
    table = TABLES[engine][0]
    name = _spelt(engine, flag)
    most = 2 if len(name) >= 8 else 1 if len(name) >= 6 and name.startswith("--") else 0
    if not most:
        return None
    near = [f for f in table if _edits(name, f, most) <= most]
    return near[0] if len(near) == 1 else None


def undeclared_single_dash(engine: str, flag: str) -> str | None:
    """Why `flag`, a single-dash option of two letters or more (SGLang's `-dp 4`,
    sgl-project/sglang#8833), is refused by every release read, or None where it is not such an
    option or a read release declares it (vLLM's `-tp`, `-dp`). argparse takes a single-dash
    multi-letter option only as declared: its prefix matching runs over the long options, which
    start `--` (Lib/argparse.py `_get_option_tuples`: `-dp` looks for `-d` and for options that
    start `-dp`), so with neither declared the parser stops with "unrecognized arguments".
    The long option the letters begin (`--dp` -> `--dp-size`) is named when it is the only one."""
    if not flag.startswith("-") or flag.startswith("--") or len(flag) < 3:
        return None
    table = OPTION_TABLES.get(engine)
    if table is None:
        return None
    read = table.history
    declared = set(table.flags)
    if read is not None:
        for options in read.sets.values():
            declared |= options
        span = f"no {table.program} release read, {read.releases[0]} to {read.releases[-1]}"
    else:
        span = f"{table.program} {table.label}"
    if flag in declared or flag[:2] in declared:
        return None
    longer = sorted(f for f in declared if f.startswith("-" + flag))
    hint = f"; did you mean {longer[0]} (the long option `-{flag}` abbreviates)?" \
        if len(longer) == 1 else ""
    return (f"{table.program} has no option {flag}: argparse matches a single-dash option of "
            f"two letters or more only as declared (its abbreviations are of long options), "
            f"and {span}, declares {flag} or {flag[:2]}, so it stops with \"unrecognized "
            f"arguments: {flag} ...\"{hint}")


def did_you_mean(engine: str, flag: str, table: frozenset[str] | None = None) -> str:
    table = TABLES[engine][0] if table is None else table
    name = _spelt(engine, flag)
    close = difflib.get_close_matches(name, sorted(table), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""
