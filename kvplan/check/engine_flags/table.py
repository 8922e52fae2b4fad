"""One interface for every engine's option table: its options, its source, and where a release
stands against it (task h43tables).

A table read from one release's source (vLLM 0.34.0, SGLang 0.5.23) is `pinned`: a release below
it is "older" (an option the table lacks may be one that release still has: noted), the release
itself and later ones are "at_or_after" (an option it lacks is refused). A table read from a
commit between releases (trtllm-serve's, kvplan.check.engine_flags.trtllm) is `bounded`: releases
up to `older_through` are "older", releases from `at_or_after_from` on are "at_or_after", and the
ones between are "unpinned" (no source read says whether they have every option of the table:
noted, saying so). `added_after` names options the engine gained after the table's source that
kvplan does not read (noted, never refused, on any release).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from kvplan.check.engine_flags.history import History

Position = Literal["older", "unpinned", "at_or_after"]


def numeric_key(text: str) -> tuple[int, ...] | None:
    """The order a pinned table compares releases in: kvplan.engines.release.read_numbers
    ('0.10.2' -> (0, 10, 2); 'latest' -> None)."""
    from kvplan.engines.release import read_numbers

    return read_numbers(text)


@dataclass(frozen=True)
class OptionTable:
    """An engine's option table. `program`: what messages call the engine's parser (vLLM,
    SGLang, trtllm-serve); `label`: what they call the table's source (a release, or a commit's
    first 12 hex digits); `key`: a release text as an ordered key (None: it names no release)."""

    program: str
    flags: frozenset[str]
    source: Mapping[str, Any]
    label: str
    at_or_after_from: str
    older_through: str | None = None
    added_after: Mapping[str, str] = field(default_factory=dict)
    key: Callable[[str], Any] = numeric_key
    # options that take several values (argparse nargs="+" / "*"), read from the same source
    multi_value: frozenset[str] = frozenset()
    # options named like switches (--enable-*, --disable-*, --no-*) that take a value
    valued: frozenset[str] = frozenset()
    # the engine's option sets read release by release (kvplan.check.engine_flags.history;
    # SGLang's, task h70sglkw), else None
    history: History | None = None

    @classmethod
    def pinned(cls, program: str, flags: frozenset[str], source: Mapping[str, Any],
               multi_value: frozenset[str] = frozenset(),
               history: History | None = None,
               valued: frozenset[str] = frozenset()) -> OptionTable:
        """A table read from one release's source (SOURCE['version'])."""
        release = str(source["version"])
        return cls(program, flags, source, release, at_or_after_from=release,
                   multi_value=multi_value, history=history, valued=valued)

    @property
    def is_pinned(self) -> bool:
        """Whether the table is one release's (no band of releases it leaves unplaced)."""
        return self.older_through is None

    def position(self, release: object) -> Position | None:
        """Where `release` (an image's release text) stands against the table: "older",
        "unpinned" (only a bounded table has that band) or "at_or_after"; None when it names no
        release."""
        have = self.key(str(release)) if release is not None else None
        if have is None:
            return None
        at = self.key(self.at_or_after_from)
        assert at is not None
        if self.older_through is None:
            return "older" if have < at else "at_or_after"
        older = self.key(self.older_through)
        assert older is not None
        if have <= older:
            return "older"
        return "unpinned" if have < at else "at_or_after"
