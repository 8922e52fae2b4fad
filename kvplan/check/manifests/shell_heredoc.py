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
with text kvplan does not expand, and not read. `cat > FILE` and `tee FILE` write; `>>` (append)
and a heredoc fed to any other command write nothing kvplan reads. Which file is meant follows
the directory the write and the server run in (kvplan.check.manifests.script_files.find_written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvplan.check.manifests.script_files import Cwd

HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
# `cat > f`, `cat >f`, `cat 1> f` (not `>>`, `2>`, `&>`); `tee [-a|-i|-p ...] f`
_CAT = re.compile(r"^\s*cat(?:\s+-\S+)*\s.*?(?<![>&2-9])1?>(?!>)\s*([^\s;&|<>]+)")
_TEE = re.compile(r"^\s*tee\s+((?:-\S+\s+)*)([^\s;&|<>-][^\s;&|<>]*)")
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
    return Heredoc(n, target.strip("'\""), tag.group(3), bool(tag.group(2)), tag.group(1) == "-")


def body_line(doc: Heredoc, raw: str) -> str:
    """A body line as the command reads it (`<<-` strips leading tabs)."""
    return raw.lstrip("\t") if doc.strip_tabs else raw


def written(doc: Heredoc, body: list[str], path: str, cwd: Cwd) -> Written:
    """The file `doc` writes at `path` (expanded) in `cwd`, with `body` as its lines."""
    text = "\n".join(body) + ("\n" if body else "")
    return Written(path, cwd, doc.line, text, doc.quoted or not _EXPANDS.search(text))
