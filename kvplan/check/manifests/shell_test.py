"""A script's `if [ ... ]` decided from variables it was given, not from its own words: a
SkyPilot task's `if [ "$SKYPILOT_NODE_RANK" == "0" ]` (the head node runs the server, the
others `sleep infinity`), with the variables SkyPilot sets on the head node
(kvplan.check.manifests.skypilot). A test is decided only when every variable it reads was given
and it is one comparison (`=`, `==`, `!=`, `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge`) inside
`[ ]`, `[[ ]]` or `test`; anything else stays undecided (its branches are alternatives, as
before), so a script run on its own (given nothing) reads as it always did."""

from __future__ import annotations

import re

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_INT = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
        "-gt": int.__gt__, "-ge": int.__ge__}
_STR = {"=": str.__eq__, "==": str.__eq__, "!=": str.__ne__}


def decide(words: list[str], given: dict[str, str], env: dict[str, str]) -> tuple[bool, str] | None:
    """(whether the test holds, the test as read) for `[ A OP B ]` over given variables; None
    when kvplan does not decide it."""
    if words and words[0] == "test":
        inner = words[1:]
    elif len(words) >= 2 and (words[0], words[-1]) in (("[", "]"), ("[[", "]]")):
        inner = words[1:-1]
    else:
        return None
    if len(inner) != 3 or (inner[1] not in _INT and inner[1] not in _STR):
        return None
    names = [m.group(1) for w in (inner[0], inner[2]) for m in _VAR.finditer(w)]
    if not names or any(n not in given or env.get(n) != given[n] for n in names):
        return None
    from kvplan.check.manifests.shell_expand import expand_word

    left, right = (expand_word(w, env) for w in (inner[0], inner[2]))
    if "$" in left + right:
        return None
    said = f"{inner[0]} {inner[1]} {inner[2]} with {', '.join(f'{n}={given[n]}' for n in names)}"
    if inner[1] in _STR:
        return _STR[inner[1]](left, right), said
    try:
        return _INT[inner[1]](int(left), int(right)), said
    except ValueError:
        return None
