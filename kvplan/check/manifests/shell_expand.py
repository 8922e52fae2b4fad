"""A shell word as bash expands it from the variables set so far: `${1:-X}` (the script run
without arguments), `$VAR` / `${VAR}` / `${VAR:-default}` (kvplan.check.argv.expand; a `$(...)`
is a command substitution, not expanded), integer `$(( ))` (shell_arith), and an unquoted
expansion split into words (expand_split). Split from kvplan.check.manifests.shell_lex, which
reads the script's commands in order, along that seam (task h100readers)."""

from __future__ import annotations

import re

from kvplan.check.argv import expand
from kvplan.check.manifests.shell_arith import expand_arithmetic
from kvplan.check.manifests.shell_limits import MAX_VALUE_CHARS
from kvplan.check.manifests.shell_words import MARK_CLOSE, MARK_OPEN, ShellWord, _tokens

_POSITIONAL_DEFAULT = re.compile(r"\$\{(\d+|#|@|\*)(:?-)([^}]*)\}")


def _positional(text: str) -> str:
    """`${1:-X}` is X: the script run without arguments."""
    return _POSITIONAL_DEFAULT.sub(lambda m: m.group(3), text)


def expand_word(text: str, env: dict[str, str]) -> str:
    """One word as the shell expands it from the variables set so far, integer `$(( ))`
    included (kvplan.check.manifests.shell_arith)."""
    return expand_arithmetic(expand(_positional(text), env, shell=True, limit=MAX_VALUE_CHARS),
                             env)


_ALTERNATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?\+(.*)\}", re.S)


def expand_split(word: str, env: dict[str, str]) -> list[str]:
    """A command's word as bash expands it: each unquoted expansion (ShellWord.marked) split into
    words at spaces ("Word Splitting"; an empty one, with nothing around it, leaves no word),
    `${VAR:+WORDS}` giving WORDS' words when VAR is set and not empty, none else; a quoted one
    stays one word. A reference kvplan cannot expand stays as written, one word (task h82shell:
    guardkit's vllm-graphiti.sh `${HF_TOKEN:+-e "HF_TOKEN=$HF_TOKEN"}` and `$EXTRA_ARGS`)."""
    marked = getattr(word, "marked", "")
    if MARK_OPEN not in marked or "$(" in marked:  # `$((${n}*4))`: one word, as before
        return [expand_word(word, env)]
    fields: list[str] = []
    cur: str | None = None
    for k, part in enumerate(re.split(f"[{MARK_OPEN}{MARK_CLOSE}]", marked)):
        if k % 2 == 0:  # text outside an unquoted expansion
            if part:
                cur = (cur or "") + expand_word(part, env)
            continue
        alternate = _ALTERNATE.fullmatch(part)
        if alternate is not None:
            pieces: list[str] = []
            if env.get(alternate[1]):
                for w in _tokens(alternate[2]):
                    pieces.extend(expand_split(ShellWord(w), env))
            lead = trail = bool(pieces)
        else:
            value = expand_word(part, env)
            if "$" in value:  # not expanded: kept as written, one word
                pieces, lead, trail = [value], False, False
            else:
                pieces = value.split()
                lead, trail = value[:1].isspace(), value[-1:].isspace()
        if not pieces:
            if (lead or trail) and cur is not None:
                fields.append(cur)
                cur = None
            continue
        if lead and cur is not None:
            fields.append(cur)
            cur = None
        cur = (cur or "") + pieces[0]
        for piece in pieces[1:]:
            fields.append(cur)
            cur = piece
        if trail:
            fields.append(cur)
            cur = None
    if cur is not None:
        fields.append(cur)
    return fields
