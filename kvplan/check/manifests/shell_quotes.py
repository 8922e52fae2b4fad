"""A quote a shell script opens and never closes (task h80shell). bash reads a script's quotes
across lines, and one still open at the end of the file stops it before any command runs:
"unexpected EOF while looking for matching `"'" (bash(1), QUOTING: a single-quoted string ends
at the next `'`, a double-quoted one at the next unescaped `"`). kvplan's reader split such a
line at its spaces and read the server on it as if it ran; now the file is one ERROR on the line
the quote opens.

The scan follows bash's quoting: a backslash outside single quotes escapes the next character
(a newline included); `$'...'` takes backslash escapes; `#` at the start of a word outside quotes
begins a comment; `$(...)`, `$((...))` and backquotes nest, with quotes of their own inside a
double-quoted string; heredoc bodies (`<<TAG` ... `TAG`, `<<-TAG`, quoted or not) are text, not
shell, and a here-string `<<<` is no heredoc. Nothing is run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvplan.check.target import Target

_HEREDOC = re.compile(r"<<(-?)\s*(?:'([^']*)'|\"([^\"]*)\"|\\?([A-Za-z0-9_.-]+))")
_WORD_START = set(" \t\n;&|()<>")
_NAMES = {"'": "'", '"': '"', "`": "`", "$'": "'"}


def unclosed_quote(text: str) -> tuple[int, str] | None:
    """(the line where a quote the file never closes opens, that quote: ' " or `), or None."""
    for ctx, opened, _ in _scan(text)[0]:  # the outermost quote still open
        if ctx in _NAMES:
            return opened, _NAMES[ctx]
    return None


def dead_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of what bash does not run as commands: comments and heredoc
    bodies (benchmarks/sweep_mutants.py inserts its unknown-option probe only outside them)."""
    return _scan(text)[1]


def _scan(text: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """(the contexts still open at the end of the text, the comments' and heredoc bodies' spans)."""
    dead: list[tuple[int, int]] = []
    stack: list[tuple[str, int, int]] = []  # (context, line it opened, parentheses open in it)
    heredocs: list[tuple[str, bool]] = []  # delimiters waiting for the end of this line
    line, i, n = 1, 0, len(text)
    while i < n:
        c = text[i]
        top = stack[-1][0] if stack else ""
        if c == "\n":
            line += 1
            i += 1
            if heredocs and top in ("", "$(", "`"):
                start = i
                i, line = _skip_bodies(text, i, line, heredocs)
                dead.append((start, i))
                heredocs = []
            continue
        if top == "'":
            if c == "'":
                stack.pop()
            i += 1
            continue
        if top == "$'":
            if c == "\\":
                line += text[i + 1:i + 2] == "\n"
                i += 2
                continue
            if c == "'":
                stack.pop()
            i += 1
            continue
        if c == "\\":
            line += text[i + 1:i + 2] == "\n"
            i += 2
            continue
        if top == '"':
            if c == '"':
                stack.pop()
            elif text.startswith("$(", i):
                stack.append(("$((" if text.startswith("$((", i) else "$(", line, 0))
                i += 3 if stack[-1][0] == "$((" else 2
                continue
            elif c == "`":
                stack.append(("`", line, 0))
            i += 1
            continue
        # outside quotes: the script's own level, or inside $( ), $(( )) or backquotes
        if c == "#" and top != "$((" and (i == 0 or text[i - 1] in _WORD_START):
            end = text.find("\n", i)
            dead.append((i, n if end < 0 else end))
            i = n if end < 0 else end
            continue
        if c == "`" and top == "`":
            stack.pop()
        elif c in ("'", '"', "`"):
            stack.append((c, line, 0))
        elif text.startswith("$'", i):
            stack.append(("$'", line, 0))
            i += 2
            continue
        elif text.startswith("$(", i):
            arith = text.startswith("$((", i)
            stack.append(("$((" if arith else "$(", line, 0))
            i += 3 if arith else 2
            continue
        elif c == "(" and top in ("$(", "$(("):
            ctx, opened, depth = stack[-1]
            stack[-1] = (ctx, opened, depth + 1)
        elif c == ")" and top in ("$(", "$(("):
            ctx, opened, depth = stack[-1]
            if depth:
                stack[-1] = (ctx, opened, depth - 1)
            else:
                stack.pop()
                i += 2 if ctx == "$((" and text.startswith("))", i) else 1
                continue
        elif text.startswith("<<", i) and top != "$((" and not text.startswith("<<<", i):
            m = _HEREDOC.match(text, i)
            if m is not None:
                tag = next(g for g in m.groups()[1:] if g is not None)
                heredocs.append((tag, bool(m.group(1))))
                i = m.end()
                continue
        i += 1
    return stack, dead


def _skip_bodies(text: str, i: int, line: int, heredocs: list[tuple[str, bool]]
                 ) -> tuple[int, int]:
    """Past the bodies of the heredocs the line before `i` opened, each up to its delimiter."""
    for tag, tabs in heredocs:
        while i < len(text):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            body = text[i:end]
            i, line = end + 1, line + 1
            if (body.lstrip("\t") if tabs else body) == tag:
                break
    return min(i, len(text)), line


def refusal(quote: str) -> str:
    """The ERROR's message for a quote opened on its line and never closed."""
    return (f"a {quote} quote opened on this line is never closed; bash refuses the script "
            f"before running any command (unexpected EOF while looking for matching `{quote}'), "
            "so kvplan does not read it: close the quote (a value over several lines needs its "
            "closing quote too)")


def unclosed_target(path: Path, text: str) -> Target | None:
    """The file's one ERROR when a quote it opens is never closed; None otherwise. Only a shell
    script by its suffix or `#!`, or a file with no suffix: other text read as a script (a
    README's command in a .md or .txt) is not one bash is given, and is read as before."""
    from kvplan.check.manifests.shell import SHELL_SUFFIXES
    from kvplan.check.manifests.shell_limits import MAX_SCRIPT_BYTES
    from kvplan.check.target import SCRIPT, Target
    from kvplan.deploy import Problem

    if path.suffix and path.suffix not in SHELL_SUFFIXES and not text.startswith("#!"):
        return None
    if len(text.encode("utf-8", "surrogateescape")) > MAX_SCRIPT_BYTES:
        return None  # refused for its size by the script's reader, in one ERROR
    found = unclosed_quote(text)
    if found is None:
        return None
    line, quote = found
    return Target(file=str(path), kind=SCRIPT, line=line,
                  problems=[Problem("", refusal(quote), line)])
