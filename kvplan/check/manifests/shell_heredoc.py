"""Files a script writes with a heredoc (`cat > extra.yaml <<EOF ... EOF`, `cat <<'EOF' >
extra.yaml`, `tee extra.yaml <<EOF`) before it starts a server that opens them, so that an
option file the script itself writes (vLLM/SGLang `--config`, TensorRT-LLM
`--extra_llm_api_options`) is read from the script, not looked for on this machine (task
h58outcomes6: the options file of NVIDIA/TensorRT-LLM#5872's trtllm-serve, `kv_cache_config:
enable_block_reuse: false`, written by the script that starts it).

bash(1), "Here Documents": the lines up to the delimiter are the command's standard input; "If
any part of word is quoted ... the lines in the here-document are not expanded. If word is
unquoted, all lines of the here-document are subjected to parameter expansion, command
substitution, and arithmetic expansion, the character sequence \\<newline> is ignored, and \\
must be used to quote the characters \\, $, and `"; with `<<-` "all leading tab characters are
stripped from input lines and the line containing delimiter". kvplan takes the body as the
file's text when the delimiter is quoted, or when the body holds none of `$`, backquote and
backslash (then expansion changes nothing); otherwise the file is named as written by the script
with text kvplan does not expand, and not read. `cat > FILE`, `tee FILE` and `cat | tee FILE` write;
`>>` (append) and a heredoc fed to any other command (`cat <<EOF | envsubst > FILE`: FILE is
envsubst's output) write nothing kvplan reads; a write inside a function or loop is named, not
read (kvplan does not follow their calls). Which file is meant follows
the directory the write and the server run in (kvplan.check.manifests.script_files.find_written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvplan.check.manifests.script_files import Cwd

# `<<EOF`, `<<-EOF`, quoted `<<'EOF'`, `<<"END-OF-YAML"`, `<<\\EOF` (bash: "If any part of word is
# quoted", a backslash too); not a here-string `<<<word` (task h58review: `<<\\EOF` and
# `<<'EOF-YAML'` were not seen as heredocs, their bodies read as the script's commands, and a
# `<<<word` was read as a heredoc that swallowed the rest of the script)
HEREDOC = re.compile(r"(?<!<)<<(?!<)(?P<dash>-?)[ \t]*(?:(?P<q>['\"])(?P<quoted>[^'\"\s]+)(?P=q)"
                     r"|(?P<bs>\\?)(?P<word>[A-Za-z_][\w.-]*))")


def delimiter(tag: re.Match[str]) -> str:
    """The delimiter word of a HEREDOC match, its quotes removed."""
    return tag["quoted"] or tag["word"]


def quoted(tag: re.Match[str]) -> bool:
    """Whether a HEREDOC match's delimiter is quoted (its body is then not expanded)."""
    return bool(tag["quoted"] or tag["bs"])
# `cat > f`, `cat >f`, `cat 1> f` (not `>>`, `2>`, `&>`), the redirect cat's own, not a later
# command's (task h58review: `cat <<'EOF' | envsubst > f` was read as cat writing f, the body
# unexpanded); `tee [-a|-i|-p ...] f`, and `cat | tee f` (cat's output is the body)
_CAT = re.compile(r"^\s*cat(?:\s+-\S+)*\s[^|;&]*?(?<![>&2-9])1?>(?!>)\s*([^\s;&|<>]+)")
_TEE = re.compile(r"^\s*(?:cat(?:\s+-\S+)*\s*\|\s*)?tee\s+((?:-\S+\s+)*)"
                  r"([^\s;&|<>-][^\s;&|<>]*)")
_EXPANDS = re.compile(r"[$`\\]")


@dataclass(frozen=True)
class Heredoc:
    """A heredoc of one line: the file it writes (as written) and its body."""

    line: int
    target: str  # "" when the command writes no file kvplan reads
    delimiter: str
    quoted: bool
    strip_tabs: bool


@dataclass(frozen=True)
class Written:
    """A file the script writes with a heredoc: its path (variables expanded), the directory
    the write runs in, the line, the text, and whether the text is the file's as written."""

    path: str
    cwd: Cwd
    line: int
    text: str
    exact: bool
    block: str = ""  # the function or loop the write sits in (its calls not followed)


def opened(line: str, n: int) -> Heredoc | None:
    """The heredoc a line opens (its `<<` still in the line), or None."""
    tag = HEREDOC.search(line)
    if tag is None:
        return None
    head = line[: tag.start()] + " " + line[tag.end():]
    target = ""
    cat, tee = _CAT.match(head), _TEE.match(head)
    if cat is not None:
        target = cat.group(1)
    elif tee is not None and "-a" not in tee.group(1).split() and \
            "--append" not in tee.group(1).split():
        target = tee.group(2)
    return Heredoc(n, target.strip("'\""), delimiter(tag), quoted(tag), tag["dash"] == "-")


def body_line(doc: Heredoc, raw: str) -> str:
    """A body line as the command reads it (`<<-` strips leading tabs)."""
    return raw.lstrip("\t") if doc.strip_tabs else raw


def written(doc: Heredoc, body: list[str], path: str, cwd: Cwd, block: str = "") -> Written:
    """The file `doc` writes at `path` (expanded) in `cwd`, with `body` as its lines, inside
    `block` (a function or loop: named, not read)."""
    text = "\n".join(body) + ("\n" if body else "")
    return Written(path, cwd, doc.line, text, doc.quoted or not _EXPANDS.search(text), block)
