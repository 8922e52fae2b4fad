"""The values vLLM's --kv-cache-dtype takes, per release (tasks h90hostile, h101kvint; every
release from 0.3.0 to 0.34.0 read in task vllmleft): a value outside them stops the engine
(argparse's choices on the command line; CacheConfig's Literal for LLM(kv_cache_dtype=...) and
EngineArgs), and kvplan names them in its refusals and fixes instead of kvplan's own precision
names; a value the stated release does not take, as written, is refused by
kvplan.engines.kv_spelling (task kvspell).

Read from the wheels on PyPI (pip download vllm==X --no-deps) by
benchmarks/extract_vllm_kv_dtypes.py into vllm_kv_dtypes.json: per release the values, the file
and lines they were read at, the wheel and its sha256 (loaded on first use). 0.3.0-0.8.4 spell the
choices out in vllm/engine/arg_utils.py's add_argument; from 0.8.5 they are the `CacheDType`
Literal (vllm/config.py, vllm/config/cache.py from 0.10.1). Where they change:
auto/fp8_e5m2 (0.3.0) -> auto/fp8 (0.4.1, fp8_e5m2 gone) -> + fp8_e5m2, fp8_e4m3 (0.4.3) ->
+ fp8_inc (0.10.0) -> + bfloat16 (0.11.0) -> + fp8_ds_mla (0.11.1) -> + float16 (0.18.0) ->
+ turboquant_*, int8_per_token_head, fp8_per_token_head, nvfp4 (0.20.0) -> + int4_per_token_head
(0.25.0) -> + nvfp4_4over6 (0.28.0) -> + nvfp4_ds_mla (0.30.0) -> + ultraquant_4bit (0.32.0) ->
+ octave_* (0.33.0). A release that is no PyPI release read (0.12.5) and lies between two read
releases with the same values takes them; any other is named with the newest read's values and
said not to be read.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from kvplan.engines.release import read_numbers

DATA = Path(__file__).with_name("vllm_kv_dtypes.json")
NEWEST_READ = "0.34.0"


@functools.cache
def _data() -> tuple[tuple[tuple[int, ...], str, str, tuple[str, ...]], ...]:
    """(release numbers, release, where read, values) per read release, oldest first; a post
    release (0.5.3.post1) folds into its base release, whose values it repeats."""
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    lists = [tuple(v) for v in loaded["values"]]
    out: dict[tuple[int, ...], tuple[tuple[int, ...], str, str, tuple[str, ...]]] = {}
    for release, _wheel, _sha, where, index in loaded["releases"]:
        key = _pad(read_numbers(release) or ())
        if key not in out:
            out[key] = (key, release, f"{where.split(' (', 1)[0]} in the vllm {release} wheel",
                        lists[index])
    return tuple(sorted(out.values()))


def _pad(ver: tuple[int, ...]) -> tuple[int, ...]:
    return (ver + (0, 0, 0, 0))[:4]


def read_releases() -> tuple[str, ...]:
    """The releases read, oldest first."""
    return tuple(r for _, r, _, _ in _data())


def kv_dtype_values(version: str | None) -> tuple[str, tuple[str, ...], str, bool]:
    """(the release whose values are named, the values, where they were read, whether they are
    `version`'s own): a stated release read (or between two read ones with the same values)
    gets its own, and no release the newest read's (the release kvplan plans with); any other
    gets the newest read's, with False (its own were not read)."""
    data = _data()
    newest = data[-1]
    ver = read_numbers(version) if version is not None else None
    if ver is None:
        return newest[1], newest[3], newest[2], version is None
    key = _pad(ver)
    below = [row for row in data if row[0] <= key]
    above = [row for row in data if row[0] > key]
    if below and below[-1][0] == key:
        return str(version), below[-1][3], below[-1][2], True
    if below and above and below[-1][3] == above[0][3]:
        return (str(version), below[-1][3], f"{below[-1][2]}; {version} itself not read, "
                f"{above[0][1]} takes the same", True)
    return newest[1], newest[3], newest[2], False


def first_with(value: str) -> str | None:
    """The first release read whose --kv-cache-dtype takes `value` (None: none does)."""
    return next((r for _, r, _, values in _data() if value in values), None)

