"""Engine releases as PEP 440 writes them: the one reader every layer calls (task h44review).

vLLM, SGLang and TensorRT-LLM tag their releases as PEP 440 versions (0.22.1, 0.5.4.post1,
1.1.0rc2), and their images tag a release with the build after it (v0.30.0-cu129). The grammar is
packaging.version's, without packaging (kvplan does not depend on it):
MAJOR.MINOR[.MICRO...], then an optional pre-release (a, b, rc; alpha, beta, c, pre and preview
are its spellings), `.postN` (post, rev or r) and `.devN`, each a whole segment: it ends the text
or stands before a separator (`-`, `_`, `.`, `+`), so the `c` of `-cu128` or the `r` of
`-rocm620` is no pre- or post-release. PEP 440's implicit post-release (`1.0-1`) is not read:
after a release in an image tag a bare `-N` is a build number more often than a post-release.
Local versions (`+g1234`) and whatever else follows the release are kept as `suffix`, no part of
the release.

Two readings share the release's numbers:
- `read_release`: the whole PEP 440 release at the start of a text (None where it starts with
  no MAJOR.MINOR), ordered as PEP 440 orders releases (`Release.key`);
- `read_numbers` (and `parse_version`, which refuses a text without them): only the numbers,
  leniently (`0.8.5.dev169+g...` and `1.1.0rc3` are their release line: every engine profile
  compares version thresholds on these tuples).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvplan.errors import InputError

_NUMBERS = r"(?P<release>\d+(?:\.\d+)*)(?!\d)"
_END = r"(?=$|[-_.+])"  # a segment ends at the text's end or at a separator
_LEADING = re.compile(r"[vV]*" + _NUMBERS)
_PEP440 = re.compile(
    r"[vV]?" + _NUMBERS
    + rf"(?:[-_.]?(?P<pre>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d*){_END})?"
    rf"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>\d*){_END}(?P<post>))?"
    rf"(?:[-_.]?dev[-_.]?(?P<dev_n>\d*){_END}(?P<dev>))?"
    rf"{_END}",
    re.IGNORECASE,
)
_PRE = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc",
        "preview": "rc"}
_PRE_RANK = {"a": 0, "b": 1, "rc": 2}


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.split("."))


@dataclass(frozen=True)
class Release:
    """A PEP 440 release: its numbers as the text writes them (`written`: '25.09' keeps its
    zero), pre-release (("a" | "b" | "rc", N) or None), post- and dev-release numbers (None:
    none), and what the text has after it (`suffix`)."""

    written: str
    pre: tuple[str, int] | None = None
    post: int | None = None
    dev: int | None = None
    suffix: str = ""

    @property
    def numbers(self) -> tuple[int, ...]:
        return _numbers(self.written)

    def __str__(self) -> str:
        """PEP 440's normal form but for the numbers, kept as written: 1.0.0rc4, 0.5.5.post3,
        0.8.5.dev169, 25.09."""
        text = self.written
        if self.pre is not None:
            text += f"{self.pre[0]}{self.pre[1]}"
        if self.post is not None:
            text += f".post{self.post}"
        if self.dev is not None:
            text += f".dev{self.dev}"
        return text

    def key(self, *, post_and_dev: bool = True) -> tuple[object, ...]:
        """PEP 440's order (packaging.version.Version's): trailing zeros of the numbers do not
        count (1.0 == 1.0.0); a dev release of a final release comes before its pre-releases,
        a pre-release before the final release, a post-release after it, and a release's dev
        release before it. `post_and_dev=False` ranks .postN and .devN with the release they
        follow (1.2.0rc6.post3 == 1.2.0rc6)."""
        numbers = list(self.numbers)
        while len(numbers) > 1 and numbers[-1] == 0:
            numbers.pop()
        post = self.post if post_and_dev else None
        dev = self.dev if post_and_dev else None
        if self.pre is not None:
            pre: tuple[int, ...] = (0, _PRE_RANK[self.pre[0]], self.pre[1])
        else:
            pre = (-1,) if dev is not None and post is None else (1,)
        return (tuple(numbers), pre, -1 if post is None else post,
                (1,) if dev is None else (0, dev))


def read_release(text: str) -> Release | None:
    """The PEP 440 release at the start of `text` and the rest of it: 'v0.5.5.post3-cu129-amd64'
    -> 0.5.5.post3 + '-cu129-amd64'; '1.0.0-rc4' -> 1.0.0rc4 + ''; None where the text starts
    with no MAJOR.MINOR release ('latest', '0.10x', '7')."""
    text = text.strip()
    m = _PEP440.match(text)
    if m is None or "." not in m["release"]:
        return None
    pre = (_PRE[m["pre"].lower()], int(m["pre_n"] or 0)) if m["pre"] else None
    post = int(m["post_n"] or 0) if m["post"] is not None else None
    dev = int(m["dev_n"] or 0) if m["dev"] is not None else None
    return Release(m["release"], pre, post, dev, text[m.end():])


def leading_numbers(text: str) -> str | None:
    """The numbers a version text starts with, as written: 'v0.8.5.dev169+g...' -> '0.8.5';
    '1.1.0rc3' -> '1.1.0'; '0.10x' -> '0.10'; None where it starts with none ('latest')."""
    m = _LEADING.match(text.strip())
    return None if m is None else m["release"]


def read_numbers(text: str) -> tuple[int, ...] | None:
    """leading_numbers as numbers: '0.10.2' -> (0, 10, 2); 'v0.8.5.dev169+g...' -> (0, 8, 5);
    'latest' -> None."""
    written = leading_numbers(text)
    return None if written is None else _numbers(written)


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """A stated engine version's numbers (read_numbers); None stays None, and a text that
    starts with no number is refused."""
    if text is None:
        return None
    numbers = read_numbers(text)
    if numbers is None:
        raise InputError(f"cannot read engine version {text!r}; write it like 0.10.2")
    return numbers
