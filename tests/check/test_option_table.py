"""Every engine's option table behind one interface (kvplan.check.engine_flags.table, task
h43tables): its options, source, and where a release stands against it.

vLLM's table is the 0.34.0 wheel's and SGLang's the 0.5.23 wheel's (each module's SOURCE): a
release below is "older", that release and later "at_or_after". trtllm-serve's is a commit
between releases, bounded by TABLE_RELEASE: up to 1.2.0rc2 "older", 1.2.0rc3 up to 1.3.0rc5
"unpinned", 1.3.0rc6 on "at_or_after". A text that names no release has no position (None).
"""

from __future__ import annotations

import pytest

from kvplan.check.argv import TABLES
from kvplan.check.engine_flags import OPTION_TABLES
from kvplan.check.engine_flags.table import OptionTable


def test_the_three_tables() -> None:
    """Labels as the messages write them (vLLM 0.34.0, SGLang 0.5.23, trtllm-serve 00209af149e7)
    and argv's TABLES built from them; only trtllm's has options added after it."""
    got = {e: (t.program, t.label, t.is_pinned) for e, t in OPTION_TABLES.items()}
    assert got == {"vllm": ("vLLM", "0.34.0", True), "sglang": ("SGLang", "0.5.23", True),
                   "trtllm": ("trtllm-serve", "00209af149e7", False)}
    for engine, table in OPTION_TABLES.items():
        assert TABLES[engine] == (table.flags, table.label)
    assert not OPTION_TABLES["vllm"].added_after and not OPTION_TABLES["sglang"].added_after
    assert "--grpc" in OPTION_TABLES["trtllm"].added_after


@pytest.mark.parametrize(("engine", "release", "place"), [
    ("vllm", "0.33.0", "older"), ("vllm", "0.8.5-v0", "older"), ("vllm", "0.34.0", "at_or_after"),
    ("vllm", "0.35.1", "at_or_after"), ("vllm", "latest", None), ("vllm", None, None),
    ("sglang", "0.5.5.post3", "older"), ("sglang", "0.5.22", "older"),
    ("sglang", "0.5.23", "at_or_after"), ("sglang", "0.6.0", "at_or_after"),
    ("trtllm", "1.2.0rc2", "older"), ("trtllm", "1.2.0rc3", "unpinned"),
    ("trtllm", "1.3.0rc5", "unpinned"), ("trtllm", "1.3.0rc6", "at_or_after"),
    ("trtllm", "1.3.0", "at_or_after"), ("trtllm", "00209af", None),
])
def test_position(engine: str, release: str | None, place: str | None) -> None:
    assert OPTION_TABLES[engine].position(release) == place


def test_a_bounded_table_of_any_engine() -> None:
    """The interface is not trtllm's alone: a table bounded at 1.0 (older through) and 2.0 (at
    or after from) places 0.9 and 1.0 older, 1.0.1 and 1.9 unpinned, 2.0 and 3.0 at or after."""
    table = OptionTable("x", frozenset({"--a"}), {}, "abcdef", at_or_after_from="2.0",
                        older_through="1.0")
    assert [table.position(r) for r in ("0.9", "1.0", "1.0.1", "1.9", "2.0", "3.0")] == [
        "older", "older", "unpinned", "unpinned", "at_or_after", "at_or_after"]
    assert not table.is_pinned
