"""A `sh -c` script whose server command takes its words from a shell variable the script itself
builds (`ARGS="--model-path ..."; if ...; then ARGS="$ARGS --x y"; fi; exec server $ARGS`): the
words are the variable's value after the script's branches, which kvplan does not run, so the
server is refused naming the variable, rather than the variable's name being read as the model
(round blind-2026-12-07-r10, task corpus10: cwortman-amd/coder's compose was told "the served
model: '$CMD_ARGS' is not in the catalog ... add it with `kvplan import $CMD_ARGS`")."""

from __future__ import annotations

import re
from typing import Any

_WHOLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _assigned(name: str, script: str) -> bool:
    """Whether `script` assigns shell variable `name` (`NAME=...`, `export NAME=...`, `local
    NAME=...`, `NAME+=...`) as a command of its own, not inside another word."""
    return re.search(rf"(?:^|[\s;&|(]){re.escape(name)}\+?=", script) is not None


def script_built_word(inv: Any, container: dict[str, Any]) -> tuple[Any, str] | None:
    """The first word of the server command `inv` that is a whole `$NAME` / `${NAME}` the
    container's shell script assigns, standing where words go (first, or after a word that is
    no option: not an option's value), with NAME; None where there is none."""
    texts: list[str] = []
    for part in ("command", "args"):
        value = container.get(part)
        texts.extend(str(v) for v in (value if isinstance(value, list) else [value]) if v)
    script = "\n".join(texts)
    for k, word in enumerate(inv.words):
        if k and inv.words[k - 1].text.startswith("-"):
            continue  # an option's value (`--data-parallel-start-rank $START_RANK`): one word
        m = _WHOLE.fullmatch(word.text)
        if m is not None and _assigned(name := m.group(1) or m.group(2), script):
            return word, name
    return None


def script_built_message(word: str, name: str) -> str:
    return (f"{word!r}: the server's words are the shell variable {name}, which the script "
            f"builds itself ({name}=...); kvplan does not run the script to follow its value: "
            "write the server's options on its command line, or describe the deployment in a "
            "kvplan/v1 file")
