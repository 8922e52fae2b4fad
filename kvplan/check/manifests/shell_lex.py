"""The lexing half of kvplan.check.manifests.shell: a shell script's simple commands, top to
bottom, each word with its physical line, with the variables set before it and the block it
sits in (a loop, a function body, the branches of a `case` or an `if`). Nothing is run. A word
is expanded by kvplan.check.manifests.shell_expand; the limits on what is read, and their
ERRORs, are kvplan.check.manifests.shell_limits' (both split from here, task h100readers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

from kvplan.check.argv import ExpansionTooLong
from kvplan.check.manifests.script_files import Cwd, after_cd
from kvplan.check.manifests.shell_expand import expand_split, expand_word
from kvplan.check.manifests.shell_heredoc import (
    HEREDOC,
    Heredoc,
    Written,
    body_line,
    delimiter,
    opened,
    written,
)
from kvplan.check.manifests.shell_limits import (
    MAX_COMMAND_CHARS,
    MAX_SCRIPT_BYTES,
    ScriptTooLarge,
    too_long,
)
from kvplan.check.manifests.shell_set import Positional
from kvplan.check.manifests.shell_test import decide
from kvplan.check.manifests.shell_words import CLOSE, OPEN, ShellWord, _Case, _Lexer, _tokens

_COMMENT = re.compile(r"(^|\s)#.*$")
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_FUNCTION = re.compile(r"^\s*(?:function\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*\(\s*\))")
_LOOPS = ("for", "while", "until", "select")
_EXPORTS = ("export", "declare", "typeset", "readonly", "local")


@dataclass
class Command:
    """One simple command: its words, the line of each, and the block it sits in."""

    words: list[str]
    lines: list[int]
    block: str = ""  # "" | "the `for` loop of line N" | "the function `f` (line N)"
    conditional: int = 0  # the line of the `if` it sits in, 0 when none
    case: str = ""  # the `case` branch it runs in, decided by a value the script sets: a note
    cwd: Cwd = field(default_factory=Cwd)  # the directory it runs in (earlier `cd`s)
    # the lines of the `if`s whose `set --` gave the words its `"$@"` expands to (shell_set)
    set_in: tuple[int, ...] = ()


@dataclass
class Script:
    """The commands of a script, with the variables each one sees."""

    commands: list[tuple[Command, dict[str, str], set[str]]] = field(default_factory=list)
    branched: set[int] = field(default_factory=set)  # lines of the ifs with elif / else
    # lines of the ifs decided from given variables -> the test as read (shell_test)
    decided: dict[int, str] = field(default_factory=dict)
    written: list[Written] = field(default_factory=list)  # files its heredocs write, in order
    # (line, what ran) of each `case` decided by a value the script sets (_Case)
    cases: list[tuple[int, str]] = field(default_factory=list)

def _logical_lines(text: str, docs: dict[int, tuple[Heredoc, list[str]]] | None = None,
                   first_line: int = 1) -> list[list[tuple[str, int]]]:
    """Physical lines joined by backslash-newline, each part with its line number; heredoc
    bodies left out (kept in `docs`, by the line that opens them: kvplan.check.manifests.
    shell_heredoc); comments stripped (a comment ends a continued command, as in a shell).
    `first_line`: the number of the text's first line (a notebook's piece: read_script)."""
    out: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    heredoc: str | None = None
    body: list[str] = []
    for n, raw in enumerate(text.splitlines(), first_line):
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            else:
                body.append(raw)
            continue
        line = _COMMENT.sub("", raw) if "#" in raw else raw
        tag = HEREDOC.search(line)
        if tag is not None:
            heredoc = delimiter(tag)
            doc = opened(line, n)
            body = []
            if doc is not None and docs is not None:
                docs[n] = (doc, body)
            line = line[: tag.start()] + line[tag.end() :]
        stripped = line.rstrip()
        if stripped.endswith("\\") and heredoc is None:
            current.append((stripped[:-1], n))
            continue
        current.append((line, n))
        out.append(current)
        current = []
    if current:
        out.append(current)
    return out


def _commands(parts: list[tuple[str, int]],
              lexer: _Lexer | None = None) -> list[tuple[list[str], list[int]]]:
    """The simple commands of one logical line, each word with its physical line, and the
    subshells around them ([OPEN] / [CLOSE] items: _Lexer)."""
    words: list[tuple[str, int]] = []
    try:  # strict: _tokens' split at spaces hid a quote across lines, so this never ran (task
        # h72mix: `bash -c "pip install vllm && python -m vllm... \` over five lines was read as
        # a server started outside the container, its last word `bfloat16"`)
        for text, n in parts:
            words.extend((w, n) for w in _tokens(text, strict=len(parts) > 1) if "\n" not in w)
    except ValueError:  # a quote across lines: the whole logical line at its first line
        words = [(w, parts[0][1]) for w in _tokens(" ".join(t for t, _ in parts))]
    return [([ShellWord(w) for w in ws], ls) for ws, ls in (lexer or _Lexer()).items(words)]


def read_script(text: str, given: dict[str, str] | None = None, first_line: int = 1) -> Script:
    """Every simple command, top to bottom, with the variables set before it; `given` are
    exported variables the script starts with (a SkyPilot task's `envs`). ScriptTooLarge past
    MAX_SCRIPT_BYTES, MAX_COMMAND_CHARS or MAX_VALUE_CHARS. `first_line`: the number the text's
    first line has in its file (a notebook's `!` line is read alone, numbered where it sits:
    padding it with blank lines made reading every line cost the lines above it, task
    h90hostile)."""
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > MAX_SCRIPT_BYTES:
        raise ScriptTooLarge(first_line, f"{size:,} bytes of shell script, over the {MAX_SCRIPT_BYTES:,} "
                             "kvplan reads in a launch script (docs/limits.md); describe the "
                             "deployment in a kvplan/v1 file")
    reading = [first_line]  # the line of the command being read
    try:
        return _read(text, given, reading)
    except ExpansionTooLong:
        raise too_long(reading[0]) from None


def _read(text: str, given: dict[str, str] | None, reading: list[int]) -> Script:
    out = Script()
    env: dict[str, str] = dict(given or {})
    exported: set[str] = set(env)
    cwd = Cwd()
    dirs: list[Cwd] = []  # pushd's stack
    blocks: list[tuple[str, str]] = []  # (closing word, description)
    saved: list[tuple[Cwd, list[Cwd], dict[str, str], set[str], Positional]] = []  # outside
    # each subshell
    args = Positional()  # the script's positional parameters, once a `set --` sets them
    lexer = _Lexer()
    runs: dict[int, bool] = {}  # a decided if's line -> whether the branch being read runs
    after_taken: set[int] = set()  # decided ifs whose first branch ran: no later branch runs
    docs: dict[int, tuple[Heredoc, list[str]]] = {}
    cases: list[_Case] = []  # the `case` blocks open, innermost last
    for parts in _logical_lines(text, docs, reading[0]):
        if len(parts) == 1 and not parts[0][0].strip():
            continue  # a blank line: no command (the readers pad a piece's text with them to
            # keep its line numbers, and a notebook of 20,000 `!` lines took minutes)
        case = cases[-1] if cases and blocks and blocks[-1][0] == "esac" else None
        if case is not None and case.awaiting:
            parts = case.pattern(parts)
        reading[0] = parts[0][1]
        chars = sum(len(t) for t, _ in parts)
        if chars > MAX_COMMAND_CHARS:
            raise ScriptTooLarge(reading[0], (
                f"a command of {chars:,} characters (its continuation lines joined), over the "
                f"{MAX_COMMAND_CHARS:,} kvplan reads in a launch script (docs/limits.md); "
                "describe the deployment in a kvplan/v1 file"))
        for words, lines in _commands(parts, lexer):
            first = words[0]
            if words == [OPEN]:  # a subshell: what it changes ends at its `)`
                saved.append((cwd, list(dirs), dict(env), set(exported), args))
                continue
            if words == [CLOSE]:
                if saved:
                    cwd, dirs, env, exported, args = saved.pop()
                continue
            head = _FUNCTION.match(" ".join(words))
            if head is not None and first not in _LOOPS:
                name = head.group(1) or head.group(2)
                blocks.append(("}", f"the function `{name}` (line {lines[0]})"))
                if "{" not in words or words[-1] == "{":
                    continue
                at = words.index("{") + 1  # a one-line body: `f() { vllm serve ...; }`
                words, lines = words[at:], lines[at:]
                first = words[0]
            if first in _LOOPS:
                blocks.append(("done", f"the `{first}` loop of line {lines[0]}"))
                continue
            if first == "case":
                subject = expand_word(words[1], env) if len(words) > 1 else "$"
                cases.append(_Case(lines[0], words[1] if len(words) > 1 else "",
                                   None if "$" in subject or "`" in subject else subject))
                blocks.append(("esac", f"case:{lines[0]}") if cases[-1].subject is not None else
                              ("esac", f"the `case` of line {lines[0]}, whose branches are "
                                       "alternatives (which one runs depends on a value kvplan "
                                       "does not know)"))
                continue
            if blocks and blocks[-1][0] == "esac" and first.endswith(")"):
                words, lines = words[1:], lines[1:]  # a branch's pattern: `a)`
                if not words:
                    continue
                first = words[0]
            if first in ("elif", "else"):
                cond = next((int(d[3:]) for _, d in reversed(blocks) if d.startswith("if:")), 0)
                if first == "else" and cond in runs and cond not in after_taken:
                    runs[cond] = not runs[cond]  # a decided if: the else runs when it did not
                    if runs[cond]:  # the note says the else runs (h56review: it said 'holds')
                        out.decided[cond] = f"in its else branch, as {out.decided[cond]} fails"
                elif first == "elif" and runs.get(cond):
                    runs[cond] = False  # the decided if ran: no elif or else after it runs
                    after_taken.add(cond)
                elif cond in after_taken:
                    pass
                else:
                    runs.pop(cond, None)
                    out.decided.pop(cond, None)
                    out.branched.add(cond)  # the if's branches are alternatives
                if first == "else":
                    words, lines = words[1:], lines[1:]
                    if not words:
                        continue
                    first = words[0]
            if first in ("if", "elif"):
                if first == "if":
                    blocks.append(("fi", f"if:{lines[0]}"))
                    held = decide(words[1:], given or {}, env)
                    if held is not None:
                        runs[lines[0]], out.decided[lines[0]] = held
                        continue
                if len(words) > 1:
                    words, lines = words[1:], lines[1:]  # `if vllm serve ...` runs it
                    first = words[0]
                else:
                    continue
            if first in ("done", "}", "fi", "esac", ")"):
                if first == "esac" and cases:
                    done = cases.pop()
                    if done.subject is not None:
                        out.cases.append((lines[0], done.said or (
                            f"no branch of the `case` of line {done.line} runs, as {done.word} "
                            f"is {done.subject!r}")))
                for i in range(len(blocks) - 1, -1, -1):
                    if blocks[i][0] == first or first == ")":
                        del blocks[i:]
                        break
                continue
            if any(runs.get(int(d[3:])) is False for _, d in blocks if d.startswith("if:")):
                continue  # a branch of a decided if that does not run
            if any(c.runs is False for c in cases):
                continue  # a branch of a decided case that does not run
            block = next((d for _, d in reversed(blocks)
                          if not d.startswith(("if:", "case:"))), "")
            cond = next((int(d[3:]) for _, d in reversed(blocks) if d.startswith("if:")), 0)
            if first in _EXPORTS:
                for w in words[1:]:
                    m = _ASSIGN.match(w)
                    if m:
                        env[m[1]] = expand_word(m[2], env)
                        exported.add(m[1])
                    elif re.fullmatch(r"[A-Za-z_]\w*", w):
                        exported.add(w)
                continue
            if first in ("cd", "pushd", "popd"):
                if not block:  # a function's or loop's `cd` depends on its calls, as its assignments
                    if first == "popd":
                        cwd = dirs.pop() if dirs else Cwd("unknown", "", lines[0], "(popd)")
                    else:
                        if first == "pushd":
                            dirs.append(cwd)
                        cwd = after_cd(cwd, [expand_word(w, env) for w in words[1:]], lines[0])
                continue
            kept = False
            if "function" not in block:  # a function's "$@" is its own arguments
                words, lines, kept = args.expand(words, lines)
            if first in ("set", "shift") and not block:
                args = args.after(words, lines, cond, kept, partial(expand_split, env=env))
                continue
            if first == "unset":
                for w in words[1:]:
                    env.pop(w, None)
                    exported.discard(w)
                continue
            prefix: dict[str, str] = {}
            i = 0
            while i < len(words) and _ASSIGN.match(words[i]):
                m = _ASSIGN.match(words[i])
                assert m is not None
                prefix[m[1]] = expand_word(m[2], {**env, **prefix})
                i += 1
            if i == len(words):  # assignments only: shell variables from here on
                if not block:  # a function's or loop's assignments depend on its calls
                    env.update(prefix)
                continue
            scope = {**env, **prefix}
            doc = docs.get(lines[i])
            if doc is not None and doc[0].target and words[i] in ("cat", "tee") and not any(
                    w.line == doc[0].line for w in out.written):  # `cat | tee f`: one write
                body = [body_line(doc[0], b) for b in doc[1]]
                out.written.append(written(doc[0], body, expand_word(doc[0].target, scope), cwd,
                                           block))
            out.commands.append((Command(words, lines, block, cond, cwd=cwd, case="; ".join(
                f"inside {c.said}" for c in cases if c.runs), set_in=args.ifs if kept else ()), scope,
                                 exported | set(prefix)))
        if cases and blocks and blocks[-1][0] == "esac":
            cases[-1].ends(parts)
    return out
