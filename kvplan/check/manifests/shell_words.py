"""The word-level half of kvplan.check.manifests.shell_lex: one logical line's words as the
shell splits them, and the simple commands and subshells they form (_Lexer). Split out of
shell_lex.py (task h82shell, past 400 lines) along the seam between reading words and reading
the script's commands in order."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

from kvplan.check.argv import SEPARATORS

# `> log`, `>> log`, `2>&1`, `&> log`, `2>/dev/null`, `< in` at a word's start
_REDIRECT = re.compile(r"(?<!\S)(?:\d?>>?|&>>?|<)(?:&\d+|&-|\s*[^\s;&|<>]+)")


# an unquoted expansion, `$VAR` / `${...}` / `$1` / `$@`, is held between these two in a word as
# _tokens reads it: bash splits its value into words (bash(1), "Word Splitting": "the results of
# parameter expansion ... that did not occur within double quotes"); a quoted one is one word
MARK_OPEN, MARK_CLOSE = "\x1e", "\x1f"
_PUNCT = ";&|"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ShellWord(str):
    """A word as the shell reads it: the text (quotes removed), and `marked`, the same with each
    unquoted expansion between MARK_OPEN and MARK_CLOSE (kvplan.check.manifests.shell_lex.
    expand_split splits those)."""

    marked: str

    def __new__(cls, marked: str) -> ShellWord:
        word = super().__new__(cls, unmark(marked))
        word.marked = marked
        return word


def unmark(word: str) -> str:
    return word.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")


def unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Each character of `text` from `start` that stands outside quotes, with its index, as bash
    reads them: a backslash escapes the next character outside single quotes, and quoted runs
    (with their quotes) are passed over. Shared by the `${...}` scanner here and
    kvplan.check.manifests.pip_commands' command splitter."""
    k, quote = start, ""
    while k < len(text):
        c = text[k]
        if quote:
            if c == "\\" and quote == '"':
                k += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "\\":
            k += 1
        else:
            yield k, c
        k += 1


def _brace_end(text: str, i: int) -> int:
    """The index just past the `}` closing the `${` at text[i]; quotes inside are skipped over
    (`${HF_TOKEN:+-e "HF_TOKEN=$HF_TOKEN"}` is one expansion); ValueError when none closes it."""
    depth = 0
    for k, c in unquoted(text, i):
        if text.startswith("${", k):
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
    raise ValueError("no closing brace")


def scan(text: str) -> list[str]:
    """The words of `text` as bash splits them, quotes removed (as shlex's POSIX mode does), runs
    of `;`, `&`, `|` words of their own; each unquoted expansion kept whole (`${X:+-e "A=$X"}`
    is one, spaces and quotes inside) and marked (MARK_OPEN / MARK_CLOSE). `$(` is left as
    written, for _Lexer. ValueError on a quote left open."""
    words: list[str] = []
    cur: list[str] = []
    started = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            if started:
                words.append("".join(cur))
                cur, started = [], False
            i += 1
        elif c in _PUNCT:
            if started:
                words.append("".join(cur))
                cur, started = [], False
            k = i
            while k < n and text[k] in _PUNCT:
                k += 1
            words.append(text[i:k])
            i = k
        elif c == "'":
            k = text.find("'", i + 1)
            if k < 0:
                raise ValueError("No closing quotation")
            cur.append(text[i + 1:k])
            started, i = True, k + 1
        elif c == '"':
            k = i + 1
            while k < n and text[k] != '"':
                if text[k] == "\\" and k + 1 < n and text[k + 1] in '"\\':
                    k += 1
                cur.append(text[k])
                k += 1
            if k >= n:
                raise ValueError("No closing quotation")
            started, i = True, k + 1
        elif c == "\\":
            if i + 1 < n:
                cur.append(text[i + 1])
            started, i = True, i + 2
        elif c == "$" and text.startswith("${", i):
            k = _brace_end(text, i)
            cur.append(MARK_OPEN + text[i:k] + MARK_CLOSE)
            started, i = True, k
        elif c == "$" and i + 1 < n and (text[i + 1] in "@*#?" or text[i + 1].isdigit()):
            cur.append(MARK_OPEN + text[i:i + 2] + MARK_CLOSE)
            started, i = True, i + 2
        elif c == "$" and _NAME.match(text, i + 1):
            m = _NAME.match(text, i + 1)
            assert m is not None
            cur.append(MARK_OPEN + text[i:m.end()] + MARK_CLOSE)
            started, i = True, m.end()
        else:
            cur.append(c)
            started, i = True, i + 1
    if started:
        words.append("".join(cur))
    return words


def _tokens(text: str, strict: bool = False) -> list[str]:
    """The words of `text` (scan: unquoted expansions marked); an unclosed quote raises
    ValueError when `strict`, else the text is split at spaces. Task h82shell: shlex dropped the
    quotes, so `${HF_TOKEN:+-e "HF_TOKEN=$HF_TOKEN"}` was two words and an unquoted
    `$EXTRA_ARGS` could not be told from a quoted `"$EXTRA_ARGS"`."""
    text = _REDIRECT.sub(" ", text)
    try:
        return scan(text)
    except ValueError:
        if strict:
            raise
        return text.split()


OPEN, CLOSE = "(", ")"  # the markers of a subshell's start and end among _commands' items


def _unbalanced(word: str) -> int:
    """How many more `(` than `)` a word holds (negative: more `)`)."""
    return word.count("(") - word.count(")")


class _Lexer:
    """Splits one logical line's words into simple commands and the subshells around them.

    A subshell (`( cd dir && vllm serve ... )`, spaced or not, over one line or many) runs in
    a copy of the shell: its `cd`, `pushd` and variable assignments end at its `)` (bash(1),
    "Compound Commands": `(list)` "is executed in a subshell environment ... Variable
    assignments and builtin commands that affect the shell's environment do not remain in
    effect after the command completes"). A command substitution `$(...)` is one too
    ("Command Substitution": executed in a subshell environment): its words stay one word of
    the command around it (`X=$(cd sub && pwd)`) and the commands inside it are items of
    their own, before that command, between the markers. A quoted `"$(...)"` is one word
    already, and nothing inside it is a command of the script."""

    def __init__(self) -> None:
        self.depth = 0  # `(` subshells open, across lines
        self.cases = 0  # `case` blocks open: their `a)` patterns close no subshell

    def items(self, words: list[tuple[str, int]]) -> list[tuple[list[str], list[int]]]:
        out: list[tuple[list[str], list[int]]] = []
        current: tuple[list[str], list[int]] = ([], [])
        before: list[tuple[list[str], list[int]]] = []  # a substitution's items, run first
        after: list[tuple[list[str], list[int]]] = []  # one still open at the line's end

        def end() -> None:
            nonlocal current, before, after
            out.extend(before)
            if current[0]:
                out.append(current)
            out.extend(after)
            current, before, after = ([], []), [], []

        k = 0
        while k < len(words):
            word, n = words[k]
            k += 1
            if word in SEPARATORS or set(word) <= set(";&|"):
                end()
                continue
            pattern = self.cases > 0 and not current[0] and word.endswith(CLOSE) and \
                not _unbalanced(word)  # `(a)`: a case pattern's optional `(`
            while not pattern and not current[0] and word.startswith(OPEN) and \
                    not word.startswith("(("):
                end()
                out.append(([OPEN], [n]))  # a subshell opens: `(` alone or `(cd`
                self.depth += 1
                word = word[1:]
            if not word:
                continue
            sub = word.find("$(")
            if sub >= 0 and _unbalanced(word[sub:]) > 0:  # `$(cd` ... `pwd)`: gather it
                depth, inner = _unbalanced(word), [(word[sub + 2:], n)]
                while k < len(words) and depth > 0:
                    more, m = words[k]
                    k += 1
                    depth += _unbalanced(more)
                    inner.append((more, m))
                    word += " " + more
                last = inner[-1][0]
                nested = _Lexer()
                if depth <= 0 and word.startswith("$((", sub):
                    pass  # arithmetic, `$((85 * 1024))`: one word, no commands inside
                elif depth > 0:  # `X=$(` and its commands on the lines below, up to a `)`
                    after += [([OPEN], [n]), *nested.items([w for w in inner if w[0]])]
                    self.depth += 1 + nested.depth
                    word = word[: word.find("$(") + 2]
                else:
                    if last.endswith(CLOSE):
                        inner[-1] = (last[: len(last) - 1], inner[-1][1])
                    before += [([OPEN], [n]), *nested.items([w for w in inner if w[0]]),
                               ([CLOSE], [inner[-1][1]])]
            if not current[0] and word in ("case", "esac"):
                self.cases += 1 if word == "case" else -1 if self.cases else 0
            closes = 0
            pattern = self.cases > 0 and not current[0] and word != CLOSE  # `a)` of a case
            while not pattern and self.depth > closes and word.endswith(CLOSE) and \
                    _unbalanced(word) < 0:
                word, closes = word[:-1], closes + 1
            if word and not (word in ("exec", "then", "do", "{", OPEN) and not current[0]):
                current[0].append(word)
                current[1].append(n)
            if closes:
                end()
                for _ in range(closes):
                    out.append(([CLOSE], [n]))
                self.depth -= closes
        end()
        return out


_PATTERN = re.compile(r"""^\s*\(?((?:"[^"]*"|'[^']*'|[^()"'\s]|\s*\|\s*)+)\)""")


@dataclass
class _Case:
    """A `case` block: its line, the word it tests and that word's value when the script sets it
    (`${1:-qwen3-30b}`: the script run without arguments), else None (its branches are
    alternatives). Task h82shell: guardkit's vllm-graphiti.sh picks its preset so."""

    line: int
    word: str
    subject: str | None
    awaiting: bool = True  # the next line opens a branch: `a|b)`
    runs: bool | None = None  # whether the branch being read runs (None: undecided)
    taken: bool = False  # a branch ran: no later one does
    said: str = ""

    def pattern(self, parts: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """A branch's `a|b|"")` taken off its first line; whether that branch runs."""
        text, n = parts[0]
        m = _PATTERN.match(text)
        if m is None or not text.strip():
            return parts
        self.awaiting = False
        alternatives = [unmark(w) for w in _tokens(m[1]) if w != "|"]
        if self.subject is not None:
            self.runs = not self.taken and any(fnmatchcase(self.subject, a) for a in alternatives)
            self.taken = self.taken or self.runs
            said = (f"the branch `{m[1].strip()})` of the `case` of line {self.line} "
                    f"runs, as {self.word} is {self.subject!r}")
            self.said = said if self.runs else self.said
        return [(text[m.end():], n), *parts[1:]]

    def ends(self, parts: list[tuple[str, int]]) -> None:
        """`;;` (`;&`, `;;&`) at a line's end closes the branch."""
        if parts[-1][0].rstrip().endswith((";;", ";&")):
            self.awaiting = True
