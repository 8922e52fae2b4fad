"""A value a file gave, echoed into a message, kept to a readable length: a word (a run of
characters without a space) of WORD_CHARS or more is shown by its start and end and its length.
A 100,000-character `dtype="xxx..."` in a script, a 5,000-digit argparse default or a 60,000-
character CUDA_VISIBLE_DEVICES had each been written out whole into its one line (task
h70hostile). The file is named and the line given, so the value can be found there."""

from __future__ import annotations

import re

WORD_CHARS = 300  # a path, URL or field path in a message stays under it
_HEAD, _TAIL = 80, 20
_LONG = re.compile(rf"\S{{{WORD_CHARS},}}")


def clip_words(text: str) -> str:
    """`text` with each word of WORD_CHARS characters or more shortened to its first 80 and
    last 20 characters around `…[N characters]…`."""
    if len(text) < WORD_CHARS:
        return text
    return _LONG.sub(lambda m: f"{m[0][:_HEAD]}…[{len(m[0]):,} characters]…{m[0][-_TAIL:]}",
                     text)


# C0 and C1 controls but the tab, and the bidirectional overrides ("Trojan Source")
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(line: str) -> str:
    """One line of a report with every control character a file gave written as its escape
    (`\\n`, `\\x1b`): a deployment named "ok\\nFAIL ..." printed a forged verdict line of its own
    in `kvplan check`, and an escape sequence recoloured the terminal (task freshuser)."""
    return _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), line)
