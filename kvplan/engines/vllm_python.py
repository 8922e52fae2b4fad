"""What vLLM's Python API takes, release by release (task h82vllmrel): the fields of EngineArgs
(the keywords `EngineArgs(...)` takes, and so those `LLM(...)` hands it through **kwargs) and of
AsyncEngineArgs, and the parameters of `LLM.__init__` a positional argument reaches. Read with
Python's ast from the vllm wheels on PyPI by benchmarks/extract_vllm_python.py into
vllm_python_releases.json (loaded on first use: a script that pins no vllm never loads it).

A pinned release is placed as kvplan.check.engine_flags.history places SGLang's:
- "read": a release read (PEP 440 equal): its own fields, so a keyword it lacks is refused as its
  EngineArgs refuses it (TypeError: unexpected keyword argument), naming the release;
- "between": between two read releases: a keyword either has is taken, one neither has noted;
- "before" / "newer": outside the releases read: not placed here (the caller keeps the option
  table it reads keywords with when no release is pinned, kvplan.check.engine_flags.vllm).

Positional arguments of `LLM(model, tokenizer, ...)`: vLLM took every parameter of LLM.__init__
positionally, deprecated after the model (@deprecate_args, a DeprecationWarning; vllm 0.9.0
entrypoints/llm.py:161-167, PR #9424), until PR #18802 (merged 2025-05-28) made them keyword
only: 0.9.0 is the last release read that takes them (llm.py:168-197, `def __init__(self, model:
str, tokenizer: Optional[str] = None, tokenizer_mode ...`), 0.9.1 the first that does not
(llm.py:155-159, `def __init__(self, model: str, *, task ...`), where another positional
argument raises TypeError.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kvplan.engines.release import read_release

DATA = Path(__file__).with_name("vllm_python_releases.json")
# the first release whose LLM.__init__ takes nothing but the model positionally (vllm 0.9.1
# entrypoints/llm.py:155-159; 0.9.0's :168-197 takes every parameter so, deprecated :161-167)
POSITIONAL_GONE = "0.9.1"
POSITIONAL_LAST = "0.9.0"

Kind = Literal["read", "between"]


@functools.cache
def _data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))["releases"]
    return loaded


def _key(text: str) -> tuple[object, ...] | None:
    found = read_release(text)
    return None if found is None else found.key()


def releases() -> tuple[str, ...]:
    """The releases read, oldest first."""
    return tuple(_data())


def wheel(release: str) -> str:
    return str(_data()[release]["wheel"])


def fields(release: str, cls: str) -> frozenset[str]:
    """The keywords `cls` (EngineArgs, AsyncEngineArgs; LLM passes to EngineArgs) takes in a
    read release."""
    got = _data()[release]
    out = set(got["fields"])
    if cls == "AsyncEngineArgs":
        out |= set(got["async_fields"])
    if cls == "LLM":
        out |= set(got["llm_params"]) | set(got["llm_keyword_only"])
    return frozenset(out)


def fields_source(release: str, cls: str) -> str:
    """Where `cls`'s keywords were read in a read release."""
    got = _data()[release]
    if cls == "AsyncEngineArgs":
        where = (f"vllm/engine/arg_utils.py:{got['async_line']} AsyncEngineArgs(EngineArgs), "
                 f":{got['engine_args_line']} EngineArgs")
    else:
        where = f"vllm/engine/arg_utils.py:{got['engine_args_line']} EngineArgs"
    return f"vllm {release} {where}, in {got['wheel']}"


def positional_params(release: str) -> tuple[str, ...]:
    """LLM.__init__'s parameters after `model` a positional argument reaches in a read
    release (empty from 0.9.1)."""
    return tuple(_data()[release]["llm_params"][1:])


def positional_line(release: str) -> int:
    """The line of the first keyword-only parameter of LLM.__init__ (0: none is)."""
    return int(_data()[release]["llm_posargs_line"])


def llm_source(release: str) -> str:
    got = _data()[release]
    return f"vllm {release} vllm/entrypoints/llm.py:{got['llm_line']}"


def first_with(field: str, after: str, cls: str) -> str | None:
    """The first read release after `after` whose `cls` takes `field`."""
    later = releases()[releases().index(after) + 1:]
    return next((r for r in later if field in fields(r, cls)), None)


def last_with(field: str, before: str, cls: str) -> str | None:
    """The last read release before `before` whose `cls` took `field`."""
    earlier = releases()[: releases().index(before)]
    return next((r for r in reversed(earlier) if field in fields(r, cls)), None)


@dataclass(frozen=True)
class Placed:
    """A pinned release among the releases read: `kind`, the read release at or below it and
    the one above (`below`, `above`)."""

    release: str
    kind: Kind
    below: str
    above: str | None

    def takes(self, field: str, cls: str) -> bool:
        """Whether `cls` takes `field` in the release ("between": either neighbour does)."""
        if field in fields(self.below, cls):
            return True
        return self.kind == "between" and self.above is not None and \
            field in fields(self.above, cls)

    def in_neither(self, field: str, cls: str) -> bool:
        return self.kind == "between" and not self.takes(field, cls)

    def positionals(self) -> tuple[str, ...]:
        """The parameters positional arguments after the model reach: a read release's;
        between two read ones, those both put at the same place ("" where they differ)."""
        low = positional_params(self.below)
        if self.kind == "read":
            return low
        high = positional_params(self.above) if self.above is not None else ()
        return tuple(a if a == b else "" for a, b in zip(low, high, strict=False))


def place(release: object, table_release: str) -> Placed | None:
    """Where a pinned release stands among the releases read; None for no release, one before
    the oldest read, or one at or after `table_release` (the option table's own, vLLM 0.34.0:
    its keywords are read with that table, as a script that pins no release is)."""
    if release is None:
        return None
    key = _key(str(release))
    top = _key(table_release)
    if key is None or top is None or key >= top:
        return None
    keyed = [(_key(r), r) for r in releases()]
    below = [r for k, r in keyed if k is not None and k <= key]
    above = [r for k, r in keyed if k is not None and k > key]
    if not below:
        return None
    text = str(read_release(str(release)))
    if _key(below[-1]) == key:
        return Placed(text, "read", below[-1], above[0] if above else None)
    return Placed(text, "between", below[-1], above[0] if above else None)


def positional_gone(release: object) -> bool | None:
    """Whether `release` is at or after POSITIONAL_GONE (None: it names no release)."""
    key = _key(str(release)) if release is not None else None
    gone = _key(POSITIONAL_GONE)
    return None if key is None or gone is None else key >= gone
