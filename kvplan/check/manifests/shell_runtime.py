"""`${VAR}` in a container's `sh -c` script that the manifest does not set: the shell expands it
when the pod runs, from the pod's environment (a controller's injected variables, the image's
ENV, a Secret), so it is not a template left unrendered. It matters only where kvplan reads the
value: the model, or an option kvplan maps (kvplan.check.manifests.option_fields FIELDS, or one
read elsewhere). An option kvplan's plan does not use (`--dist-init-addr
"${PODSET_NAME}-0.${STORM_SERVICE_NAME}...:5000"` of AIBrix's SGLang StormService, whose
controller sets both variables) is noted and passed over; anywhere else the word stays the
"unrendered template" it was (blind round blind-2026-12-06-r4, task h52checkround).
"""

from __future__ import annotations

import re

from kvplan.check.argv import Invocation, Parsed, Word
from kvplan.check.manifests.node_options import NODE_OPTIONS
from kvplan.check.manifests.option_fields import FIELDS
from kvplan.check.manifests.unread import READ_ELSEWHERE

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}")


def runtime_only(inv: Invocation, parsed: Parsed,
                 bad: list[Word]) -> tuple[list[Word], list[str], set[str]]:
    """(the words still unrendered, a note for each passed over, the options those notes name:
    left out of the not-used note, so each is named once). `bad` are the words of a `sh -c`
    script holding `${`; a word holding `{{` (Helm, Go templates) is never passed over."""
    table = FIELDS[inv.engine]
    unused: dict[str, str] = {}  # the value's text -> the option kvplan does not read
    read = {w.text for w in parsed.positional}  # values kvplan reads: never passed over
    for flag, (raw, _) in parsed.options.items():
        base = flag.split(".", 1)[0]
        if raw is None:
            continue
        if base not in table and base not in READ_ELSEWHERE:
            unused.setdefault(raw, flag)
        else:
            read.add(raw)
    for text in read:
        unused.pop(text, None)
    still: list[Word] = []
    notes: list[str] = []
    named: set[str] = set()
    for w in bad:
        value = w.text.partition("=")[2] if w.text.startswith("-") else w.text
        option = None if "{{" in w.text else unused.get(value)
        if option is None:
            still.append(w)
            continue
        if option in NODE_OPTIONS:  # node_options' own note names it, with what it means
            continue
        named.add(option)
        names = ", ".join(dict.fromkeys(_REF.findall(w.text)))
        notes.append(f"{option}: {value!r} is expanded by the shell when the pod runs ({names}: "
                     f"not set in this file); kvplan's plan does not read {option}")
    return still, notes, named
