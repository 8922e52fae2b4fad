"""A container's command and args as the kubelet expands them (task h91readers2).

kubernetes/kubernetes third_party/forked/golang/expansion/expand.go (Expand, tryReadVariableName)
and its expand_test.go cases (stored as tests/assets/check/readers/k8s-expansion-cases.tsv): `$(NAME)`
is NAME's value when the container's environment sets it, else kept as written; `$$` is one `$`
whatever follows it, so `$$(NAME)` is the text `$(NAME)` (the API reference, "Define a Command
and Arguments for a Container": "$$(VAR_NAME)" is escaped, not expanded); any other `$`, and an
unclosed `$(`, stay as they are. One pass: a value holding `$(X)` is not expanded again.

Before, kvplan expanded every `$(NAME)` it found, the one inside `$$(NAME)` too (`--model
$$(MODEL)` with MODEL set was `$<the value>`), and kept `$$` as two characters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def kubernetes_expand(text: str, env: dict[str, str],
                      value: Callable[[str], str] = lambda v: v,
                      escaped: Callable[[str], None] | None = None) -> str:
    """`text` as the kubelet expands it; `value` sees each value put in (a size bound),
    `escaped` each `$(NAME)` a `$$(NAME)` leaves as text."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "$" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        after = text[i + 1]
        if after == "$":  # the escaped operator: one `$`, and the `(` after it is text
            out.append("$")
            i += 2
            close = text.find(")", i + 1) if text.startswith("(", i) else -1
            if escaped is not None and close > 0:
                escaped("$" + text[i:close + 1])
        elif after == "(":
            close = text.find(")", i + 2)
            if close < 0:  # an unclosed `$(`: the rest as written
                out.append(text[i:])
                break
            name = text[i + 2:close]
            out.append(value(env[name]) if name in env else text[i:close + 1])
            i = close + 1
        else:
            out.append(c + after)
            i += 2
    return "".join(out)


def escaped_references(text: str) -> list[str]:
    """Each `$(NAME)` text a `$$(NAME)` escape in `text` leaves for the container."""
    found: list[str] = []
    kubernetes_expand(text, {}, escaped=found.append)
    return found


# the sites whose words no kubelet expands: a compose service (compose interpolates its own
# `$$`, kvplan.check.manifests.compose), a shell script's and a `docker run`'s
NOT_KUBERNETES = ("compose service", "shell command", "docker run")


def expand_words(words: list[Any], env: dict[str, str], shell: bool,
                 kubernetes: bool) -> tuple[list[str], set[int]]:
    """Expand a container's command words in place (argv.expand; as the kubelet does when
    `kubernetes`): (notes on the `$$(NAME)` escapes, the ids of the words holding one, whose
    `$(NAME)` is text, not a variable a ConfigMap or Secret leaves unset)."""
    from kvplan.check.argv import expand

    notes: list[str] = []
    escaped: set[int] = set()
    for w in words:
        found = escaped_references(w.text) if kubernetes else []
        w.text = expand(w.text, env, shell, kubernetes=kubernetes)
        if shell and "$((" in w.text:  # a `sh -c` script's integer `$(( ))`, as bash evaluates
            # it (shell_arith; task readfix: it stayed as written, "'$((4096*2))' is not a number")
            from kvplan.check.manifests.shell_arith import expand_arithmetic

            w.text = expand_arithmetic(w.text, env)
        if found:
            escaped.add(id(w))
        notes.extend(
            f"`${ref}` (line {w.line}): `$$` is Kubernetes' escape for one `$` (API reference, "
            f"\"Define a Command and Arguments for a Container\": \"$$(VAR_NAME)\" is "
            f"escaped), so the container receives the text `{ref}`, not a variable's value"
            + (", and its shell runs that as a command substitution" if shell else "")
            for ref in found)
    return notes, escaped
