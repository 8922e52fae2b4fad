"""The `pip install` commands a script runs (launcher_sites.pip_pins reads their pins): only a
pip that runs is a pin (task h71left; task h70review found `echo "pip install vllm==0.9.0"` and
the text a `cat <<EOF` writes read as the engine's release).

A script's lines are joined where a trailing backslash continues them, as the shell reads them.
A heredoc's body (bash(1), "Here Documents": the lines up to the delimiter are the command's
standard input) is commands only when a shell reads it (`bash <<EOF`, `sh -s <<'EOF'`); given to
any other command (`cat > setup.sh <<EOF`, `tee`, `python <<EOF`) it is text, and no pip in it runs.
Each line is cut into its simple commands at `;`, `&`, `|` (`&&`, `||`) outside quotes; a command
whose first word is `echo`, `printf` or `:` prints (or discards) its words and runs none of them;
a shell's `-c 'STRING'` (`sh -c "pip install vllm==0.8.5 && vllm serve ..."`) runs STRING,
read the same way. A comment is no command (launcher_sites._uncommented).

A pip that runs and installs nothing into the environment the server imports from is no pin
either (task h90readers, `inert`): `pip download`, `pip wheel`, `pip install --dry-run`, and an
install into another folder (`-t/--target`, `--root`, `--prefix`); each is named in a note. The
words are read as the shell passes them, quotes removed: `"$VLLM_VENV/bin/pip" install
vllm=="$VLLM_PIN"` (thinkinglee0/qwen.py's env/vastai/vast-evn-build.md) was not read at all."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from kvplan.check.manifests.shell_heredoc import HEREDOC, delimiter
from kvplan.check.manifests.shell_words import unquoted

# a command that runs pip's install, download or wheel (the last two install nothing: inert):
# `pip install`, `pip3 install`, `pip3.11 install`, `python -m pip install`, `uv pip install`, a
# notebook's `!pip install` / `%pip install`, `"$VENV/bin/pip" install`
RUNS_PIP = re.compile(r"\bpip(?:3(?:\.[0-9]+)?)?[\"']?\s+(?:install|download|wheel)\b")
_PIP = re.compile(r"pip(?:3(?:\.[0-9]+)?)?")
_SUBCOMMANDS = ("install", "download", "wheel")
# pip install's options that install somewhere else than the environment (inert)
_ELSEWHERE = {"-t": "-t", "--target": "--target", "--root": "--root", "--prefix": "--prefix"}
_ELSEWHERE_SAID = {"-t": '"Install packages into <dir>"', "--target": '"Install packages into <dir>"',
                   "--root": '"Install everything relative to this alternate root directory"',
                   "--prefix": '"Installation prefix where lib, bin and other top-level folders '
                               'are placed"'}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh"}
_PRINTS = {"echo", "printf", ":"}  # builtins that run none of their words
# words before the command itself: prefixes that run the command after them, and the shell's
# reserved words that start a list (`if pip install ...; then`)
_BEFORE = {"sudo", "env", "time", "nohup", "exec", "command", "nice", "if", "then", "else",
           "elif", "do", "while", "until", "!", "{", "("}
_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")


def joined(script: str) -> list[tuple[int, str]]:
    """(first line number, text) of each line of `script` with the lines a trailing backslash
    continues joined to it, as the shell reads them (`pip install \\` then `vllm==0.8.5` on the
    next line is one command; task h70review: that pin was passed over)."""
    out: list[tuple[int, str]] = []
    going = False
    for n, line in enumerate(script.splitlines(), start=1):
        if going:
            out[-1] = (out[-1][0], out[-1][1] + " " + line)
        else:
            out.append((n, line))
        going = line.endswith("\\")
        if going:
            out[-1] = (out[-1][0], out[-1][1][:-1])
    return out


def run_lines(script: str, uncomment: Callable[[str], str]) -> list[tuple[int, str]]:
    """(line number, text) of the lines of `script` the shell runs as commands: a heredoc's body
    only where a shell reads it; `uncomment(line)` drops a line's comment."""
    out: list[tuple[int, str]] = []
    body: tuple[str, bool, bool] | None = None  # (delimiter, strip tabs, run) of an open heredoc
    for n, line in joined(script):
        if body is not None:
            end = line.lstrip("\t") if body[1] else line
            if end.rstrip("\r") == body[0]:
                body = None
            elif body[2]:
                out.append((n, uncomment(line)))
            continue
        text = uncomment(line)
        tag = HEREDOC.search(text)
        if tag is not None:
            before = text[: tag.start()]
            last = _split(before)[-1] if _split(before) else ""
            body = (delimiter(tag), tag["dash"] == "-", _head(_words(last)) in _SHELLS)
        out.append((n, text))
    return out


def installs(line: str) -> list[tuple[str, str]]:
    """(the command from its `pip` on, why it installs nothing into the environment, or "") of
    each simple command of one command line that runs `pip install`, `pip download` or `pip
    wheel` (`echo x && pip install vllm==0.8.5` -> `pip install vllm==0.8.5`, ""); its words
    as the shell passes them, quotes removed (`"$VENV/bin/pip" install vllm=="$PIN"`)."""
    out: list[tuple[str, str]] = []
    for command in _split(line):
        if RUNS_PIP.search(command) is None:
            continue
        words = _words(command)
        head = _head(words)
        if head in _PRINTS:
            continue
        if head in _SHELLS and "-c" in words[:-1]:  # `sh -c 'STRING'`: STRING runs
            out.extend(installs(words[words.index("-c") + 1]))
            continue
        at = next((i for i, w in enumerate(words[:-1]) if _PIP.fullmatch(
            w.lstrip("!%({").rsplit("/", 1)[-1]) and words[i + 1] in _SUBCOMMANDS), None)
        if at is None:
            continue
        out.append((" ".join(words[at:]), inert(words[at + 1:])))
    return out


def inert(args: list[str]) -> str:
    """Why a `pip install|download|wheel ARGS` puts no release in the environment the server
    runs from, or "" when it does (pip's `pip <command> --help`, the pip-install(1) and
    pip-wheel(1) man pages, pip.pypa.io's cli pages; uv's `uv pip install` has `--dry-run`,
    `--target` and `--prefix` too, uv-settings PipOptions): `pip download` and `pip wheel`
    only fetch or build files ("Download packages from ...", "Build Wheel archives for your
    requirements and dependencies"); an
    install with `--dry-run` installs nothing ("Don't actually install anything, just print
    what would be"); one with `-t/--target DIR`, `--root DIR` or `--prefix DIR` installs into
    DIR ("Install packages into <dir>", "Install everything relative to this alternate root
    directory", "Installation prefix where lib, bin and other top-level folders are placed"),
    not the environment's site-packages the server imports from. `--user` installs into the
    user site, which the same interpreter imports from: it installs."""
    if args[0] == "download":
        return "`pip download` only downloads the files (pip download --help: \"Download " \
               "packages from ...\"); it installs nothing"
    if args[0] == "wheel":
        return "`pip wheel` only builds wheel files (pip wheel --help: \"Build Wheel " \
               "archives for your requirements and dependencies\"); it installs nothing"
    for i, w in enumerate(args):
        if w == "--dry-run":
            return "its --dry-run installs nothing (pip install --help: \"Don't actually " \
                   "install anything, just print what would be\")"
        name, eq, value = w.partition("=")
        if name in _ELSEWHERE or (w.startswith("-t") and len(w) > 2 and not w.startswith("--")):
            where = value if eq else w[2:] if not w.startswith("--") and len(w) > 2 else \
                (args[i + 1] if i + 1 < len(args) else "")
            return (f"its {_ELSEWHERE.get(name, '-t')} {where} installs into that folder "
                    "(pip install --help: " + _ELSEWHERE_SAID[_ELSEWHERE.get(name, '-t')] +
                    "), not into the environment the server imports from (unless that folder "
                    "is on its PYTHONPATH, which kvplan does not follow)")
    return ""


def _head(words: list[str]) -> str:
    """The command word of a simple command: past assignments (`CUDA_HOME=... pip ...`) and the
    prefixes that run what follows them (`sudo -E pip ...`); a notebook's `!` / `%` dropped."""
    skipping = False
    for word in words:
        if _ASSIGN.match(word) or (skipping and word.startswith("-")):
            continue
        if word in _BEFORE:
            skipping = True
            continue
        return word.lstrip("!%({").rsplit("/", 1)[-1]
    return ""


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # an unbalanced quote: the words as written
        return command.split()


def _split(line: str) -> list[str]:
    """The simple commands of a line: cut at `;`, `&` and `|` outside quotes."""
    out, start = [], 0
    for i, c in unquoted(line):
        if c in ";&|":
            out.append(line[start:i])
            start = i + 1
    out.append(line[start:])
    return [c for c in out if c.strip()]
