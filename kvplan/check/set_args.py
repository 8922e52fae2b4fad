"""`set --` in a `sh -c` script: the positional parameters it sets, followed into `"$@"`
(kvplan.check.argv.split_script; task h82shell)."""

from __future__ import annotations

_KEYWORDS = ("then", "else", "do", "{")


def follow_set_args(commands: list[list[str]]) -> list[list[str]]:
    """`set -- serve "$MODEL_ID" ...` then `exec vllm "$@"`: `set --` replaces the positional
    parameters and `"$@"` expands to them, one word each (bash(1), "Special Parameters" and the
    `set` builtin; `set -- "$@" --x` appends). Task h82shell: imrajdas/llm-deployment's k8s
    `bash -lc` (tests/assets/check/corpus/user-repos/llm-deployment-vllm.yaml). A `set --` inside
    an `if` is read as if it runs, as the rest of such a script is; before any `set --`, `"$@"`
    (the container's own arguments) stays as written."""
    args: list[str] | None = None
    out: list[list[str]] = []
    for cmd in commands:
        at = 0
        while at < len(cmd) and cmd[at] in _KEYWORDS:
            at += 1
        words = cmd
        if args is not None:
            words = [x for w in cmd for x in (args if w in ("$@", "${@}") else [w])]
        if words[at:at + 2] == ["set", "--"]:
            args = words[at + 2:]
        out.append(words)
    return out
