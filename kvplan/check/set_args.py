"""`set --` in a `sh -c` script: the positional parameters it sets, followed into `"$@"`
(kvplan.check.argv.split_script; task h82shell)."""

from __future__ import annotations

_KEYWORDS = ("then", "else", "do", "{")
# the positional parameters followed, in characters, as one command of a launch script
# (shell_lex.MAX_COMMAND_CHARS): `set -- "$@" "$@"` doubles them, and 16 such lines (a hostile
# variant of llm-deployment-vllm.yaml) ran past 60 s and 300 MB, 20 lines past 800 MB (task
# h90hostile)
MAX_ARGS_CHARS = 64 * 1024


class SetArgsTooLarge(ValueError):
    """The positional parameters a `set --` gives, or a command "$@" expands into, past
    MAX_ARGS_CHARS: the message of its one ERROR."""


def _bounded(words: list[str]) -> list[str]:
    size = sum(len(w) + 1 for w in words)
    if size > MAX_ARGS_CHARS:
        raise SetArgsTooLarge(
            f"`set --` and \"$@\" make a command of more than {MAX_ARGS_CHARS:,} characters "
            f"({size:,} at least), over what kvplan reads in one command (docs/limits.md); write "
            "the server's options out")
    return words


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
        if args is not None and ("$@" in cmd or "${@}" in cmd):
            words = _bounded([x for w in cmd for x in (args if w in ("$@", "${@}") else [w])])
        if words[at:at + 2] == ["set", "--"]:
            args = words[at + 2:]
        out.append(words)
    return out
