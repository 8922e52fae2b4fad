"""A script's positional parameters set by `set --`, followed into `"$@"` (bash(1), "Special
Parameters": `"$@"` expands to the positional parameters, one word each; the `set` builtin:
`set -- ARG...` replaces them, `set -- "$@" --x` appends; `shift [N]` drops the first N).

A `sh -c` script's are followed by kvplan.check.set_args (task h82shell); a shell script's,
here, as kvplan.check.manifests.shell_lex reads it top to bottom (task h90readers: a plain
entrypoint's `set -- vllm serve "$MODEL" ...` then `exec "$@"`, Pedro105/contextExtension's
deploy/docker/entrypoint.sh, was refused for `$@`, "an argument of the script"). Before any
`set --`, `"$@"` is the script's own arguments and stays as written (refused: render first).
A `set --` or `shift` inside a function body or a loop is not followed (it depends on the calls
and passes, as their assignments do), and inside a function `"$@"` is the function's own
arguments. One inside an `if` is read as if it runs, as the rest of such a script is; the lines
of those `if`s go with the command that expands `"$@"` (Command.set_in), so that one inside an
`if` whose branches are alternatives refuses that server start (kvplan.check.manifests.shell).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kvplan.check.manifests.shell_words import ShellWord

ALL = ("$@", "${@}")  # the word `"$@"` as the lexer leaves it, quotes removed


@dataclass(frozen=True)
class Positional:
    """The positional parameters (None: not set by the script), the line of each, and the lines
    of the `if`s whose `set --` made them."""

    words: tuple[str, ...] | None = None
    lines: tuple[int, ...] = ()
    ifs: tuple[int, ...] = ()

    def expand(self, words: list[str], lines: list[int]) -> tuple[list[str], list[int], bool]:
        """(words, lines, whether `"$@"` was expanded): each `"$@"` replaced by the
        parameters, each with the line it was set on."""
        if self.words is None or not any(w in ALL for w in words):
            return words, lines, False
        out_w: list[str] = []
        out_l: list[int] = []
        for w, n in zip(words, lines):
            if w in ALL:
                out_w.extend(self.words)
                out_l.extend(self.lines)
            else:
                out_w.append(w)
                out_l.append(n)
        return out_w, out_l, True

    def after(self, words: list[str], lines: list[int], cond: int, kept: bool,
              split: Callable[[str], list[str]]) -> Positional:
        """The parameters after `set -- ...` / `shift [N]` (`words` with `"$@"` already
        expanded, `kept` when it was: `set -- "$@" --x` keeps the `if`s of the words it keeps);
        `split` expands a word as the shell does then (shell_lex.expand_split with the
        variables set so far). Any other `set` (`set -eu`, `set -x`) leaves them."""
        if words[0] == "shift":
            if self.words is None:
                return self
            n = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
            return Positional(self.words[n:], self.lines[n:], self.ifs)
        if len(words) < 2 or words[1] != "--":
            return self
        new: list[str] = []
        at: list[int] = []
        for w, n in zip(words[2:], lines[2:]):
            for x in split(w):
                new.append(ShellWord(x))
                at.append(n)
        ifs = {*self.ifs, cond} if kept else {cond}
        return Positional(tuple(new), tuple(at), tuple(sorted(ifs - {0})))


def alternative_set(ifs: tuple[int, ...], branched: set[int], what: str) -> str:
    """Why a server whose `"$@"` holds words a `set --` gave in an `if` with `elif` / `else`
    (`branched`, undecided) is refused, or "" when none did."""
    line = next((n for n in ifs if n in branched), 0)
    if not line:
        return ""
    return (f"this {what} runs the words `\"$@\"` holds, and a `set --` in the `if` of line "
            f"{line} gives some of them: its branches are alternatives (which one runs depends "
            "on a value kvplan does not know), and kvplan does not choose one; write the "
            "server's command out (or a kvplan/v1 file) to have it checked")
