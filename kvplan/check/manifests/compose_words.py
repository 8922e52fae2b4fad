"""A compose `command:` / `entrypoint:` written as one string, split into words as compose splits
it, and the words compose hands on as written (task readfix).

compose-go (compose-spec/compose-go at e70e961, the library `docker compose` loads files with)
interpolates first: template/template.go:29-50, the pattern `\\$(?i:(?P<escaped>\\$)|(?P<named>
[_a-z][_a-z0-9]*)|{(?:(?P<braced>...)}|(?P<invalid>)))`, matches `$$`, `$NAME`, `${...}` only, so
`$(NAME)` matches nothing and stays as written (no error, no value; `$$(NAME)` is the same text).
Then types/command.go:70-84 (ShellCommand.DecodeMapstructure): a list is taken word for word,
a string is split by `shellwords.Parse` (mattn/go-shellwords v1.0.12, compose-go's go.mod:11),
with ParseEnv and ParseBacktick off (shellwords.go:11-14): quotes and backslashes as a shell
has them, no substitution; `$(...)` is kept as one word, text (:197-223); a `(` not after `$`, an
unclosed quote, `$(` or backquote is an error, "invalid command line string" (:214-223,
:277-279); an unquoted `;`, `&`, `|`, `<` or `>` ends the parse and compose-go keeps the words
before it (:240-250; Parser.Position is not read). Neither runs a shell: a `$(NAME)` reaches the
server as the text `$(NAME)`, unless the command is `sh -c "..."`, whose shell runs it.
"""

from __future__ import annotations

import re

GO_SHELLWORDS = "mattn/go-shellwords v1.0.12 shellwords.go"
INVALID = "invalid command line string"
_SPACE = " \t\r\n"


def compose_split(line: str) -> tuple[list[str], str]:
    """`line` as go-shellwords v1.0.12's Parser.Parse splits it with ParseEnv and ParseBacktick
    off (shellwords.go:125-284, followed branch by branch): (the words, the operator the parse
    stopped at, '' when none). ValueError(INVALID) where it returns that error."""
    args: list[str] = []
    buf = ""
    escaped = double = single = back = dollar = False
    got = False  # an argument is being read (argSingle / argQuoted)
    stop = ""
    for r in line:
        if escaped:
            buf, escaped, got = buf + r, False, True
            continue
        if r == "\\":
            if single:
                buf += r
            else:
                escaped = True
            continue
        if r in _SPACE:
            if single or double or back or dollar:
                buf += r
            elif got:
                args.append(buf)
                buf, got = "", False
            continue
        if r == "`" and not single and not double and not dollar:
            back = not back
        elif r == ")" and not single and not double and not back:
            dollar = not dollar
        elif r == "(" and not single and not double and not back:
            if not dollar and buf.endswith("$"):
                dollar, buf = True, buf + "("
                continue
            raise ValueError(INVALID)
        elif r == '"' and not single and not dollar:
            if double:
                got = True
            double = not double
            continue
        elif r == "'" and not double and not dollar:
            if single:
                got = True
            single = not single
            continue
        elif r in ";&|<>" and not (single or double or back or dollar):
            if r == ">" and buf and buf[0].isdigit() and buf[0].isascii():
                got = False  # `2>`: the descriptor is no word
            stop = r
            break
        got = True
        buf += r
    if got:
        args.append(buf)
    if escaped or single or double or back or dollar:
        raise ValueError(INVALID)
    return args, stop


def literal_words(texts: list[str]) -> list[str]:
    """The words that hold `$(`: compose leaves them as written and no shell runs them."""
    return [t for t in texts if "$(" in t]


_NAMED = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def literal_problem(text: str) -> str:
    """Why a `$(NAME)` in a compose command not run by a shell is refused."""
    named = _NAMED.search(text)
    name = named.group(1) if named else "NAME"
    return (f"{text!r}: compose interpolates $NAME and ${{NAME}} (with :- :+ :? and $$), not "
            "$(...), which it leaves as written (compose-go template/template.go:29-50), and "
            "no shell runs a compose command (a list is taken as written, a string split as "
            f"{GO_SHELLWORDS} splits it, with no substitution), so the server would receive the "
            f"text as written; write ${{{name}}} (compose fills it from .env or the shell that "
            "runs compose), or run the command through sh -c")
