"""Where a server a shell script starts finds an option file it names (vLLM/SGLang `--config`,
TensorRT-LLM `--extra_llm_api_options`), as the shell and Docker resolve the path.

- A relative path is resolved by the shell (and by the server, which opens it) against the
  directory the command runs in: the one the script was run from, unless a `cd DIR` (or `pushd`)
  earlier in the script moved it. kvplan follows those: `cd /srv/vllm` (an absolute path: read
  when it exists on this machine, noted), `cd "$(dirname "$0")"` (the script's own folder,
  exactly), `cd configs` (below the directory before it). With no `cd` the directory is not
  known: kvplan looks beside the script and says so in a note. A `cd` to a directory kvplan
  cannot name (`cd $DIR` unset, `cd -`, `cd` alone) leaves a relative path unread, named. A `cd`
  inside a subshell (`( cd dir && ... )`, `$( ... )`) lasts until its `)`
  (kvplan.check.manifests.shell_lex).
- A `docker run` puts files in the container with `-v SOURCE:TARGET[:MODE]` / `--volume` and
  `--mount type=bind,source=...,target=...` (docs.docker.com/engine/storage/bind-mounts/): a
  path inside the container that a mount covers is read from the mount's source as a compose
  volume's is (kvplan.check.manifests.compose_mounts): a relative source (`./cfg`, `$PWD/cfg`,
  `$(pwd)/cfg`) against the directory the `docker run` runs in (above), an absolute one when it
  is on this machine (noted), a named volume never. Of the mounts covering a path, the one with
  the longest target is what the container sees there. `-w DIR` makes a relative path inside
  the container DIR/path. A covering mount comes before a file beside the script, in the order
  of kvplan.check.manifests.option_files.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.inputs.text import what_is_there

# `$(dirname "$0")`, `$(dirname ${BASH_SOURCE[0]})`, `${0%/*}` (after the shell's quote removal)
_OWN_FOLDER = re.compile(r"^(?:\$\(dirname\s+(?:\$0|\$\{0\}|\$\{BASH_SOURCE(?:\[0\])?\})\s*\)"
                         r"|\$\{0%/\*\})(/.*)?$")
# the directory a command runs in, as a mount source's start: $PWD, ${PWD}, $(pwd), `pwd`
_PWD = re.compile(r"^(?:\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(?=/|$)")


@dataclass(frozen=True)
class Cwd:
    """The directory a script's command runs in, as far as the script says."""

    base: str = "start"  # start | script | root | unknown (see module doc)
    path: str = ""  # below the base (start, script); the directory itself (root)
    line: int = 0  # the line of the last `cd`, 0 when none
    word: str = ""  # the last `cd`'s argument as written

    @property
    def said(self) -> str:
        return f"`cd {self.word}`".replace(" `", "`") + f" (line {self.line})"


def after_cd(cwd: Cwd, args: list[str], line: int) -> Cwd:
    """The directory after `cd ARGS` (or `pushd ARGS`) run in `cwd`."""
    words = [a for a in args if a not in ("-P", "-L", "--")]
    while len(words) > 1 and words[0].count("(") > words[0].count(")"):
        words[:2] = [f"{words[0]} {words[1]}"]  # `cd $(dirname $0)/..` unquoted: one argument
    word = words[0] if words else ""
    if not word or word == "-":
        return Cwd("unknown", "", line, word or "")
    own = _OWN_FOLDER.match(word)
    if own is not None:
        return Cwd("script", posixpath.normpath((own.group(1) or "/").lstrip("/")), line, word)
    if "$" in word or "`" in word or cwd.base == "unknown":
        return Cwd("unknown", "", line, word)
    if word.startswith(("/", "~")):
        return Cwd("root", posixpath.normpath(str(Path(word).expanduser())), line, word)
    if cwd.base == "root":
        return Cwd("root", posixpath.normpath(posixpath.join(cwd.path, word)), line, word)
    return Cwd(cwd.base, posixpath.normpath(posixpath.join(cwd.path, word)), line, word)


@dataclass
class ScriptFiles:
    """Where the server of one script command finds its option files."""

    script: Path
    cwd: Cwd = field(default_factory=Cwd)
    line: int = 0  # the `docker run`'s line; 0: a server started outside a container
    mounts: list[tuple[str, str, str]] = field(default_factory=list)  # (type, source, target)
    workdir: str = ""  # docker run -w
    # files the script's heredocs wrote before this command (shell_heredoc.Written), in order
    written: list[Any] = field(default_factory=list)
    # option files whose text the script states itself, by the name its command gives them: a
    # Python script's TensorRT-LLM LLM(...) keywords, the options YAML's keys
    # (kvplan.check.manifests.python_words)
    given: dict[str, str] = field(default_factory=dict)

    @property
    def on_host(self) -> bool:
        return self.line == 0


def _folder(files: ScriptFiles, notes: list[str] | None, what: str) -> tuple[Path | None, str]:
    """The directory on this machine a relative path of the command is resolved against (None
    when kvplan cannot name it), and the why for a path there that is not read."""
    cwd, here = files.cwd, files.script.parent
    if cwd.base == "unknown":
        return None, (f"relative to the directory the script's {cwd.said} goes to, which kvplan "
                      "does not know")
    if cwd.base == "root":
        return Path(cwd.path), f"relative to the script's {cwd.said}"
    folder = here / cwd.path if cwd.path not in ("", ".") else here
    if cwd.base == "script":
        return folder, f"relative to the script's {cwd.said}, its own folder"
    if notes is not None:
        moved = f", and its {cwd.said} taken from there" if cwd.line else ""
        notes.append(f"{what}: looked for relative to the script's folder{moved}; a relative "
                     "path is resolved against the directory the script is run from, which the "
                     "script does not set (no `cd \"$(dirname \"$0\")\"` or `cd "
                     "/absolute/dir` before it): run from elsewhere, the server opens another "
                     "file")
    return folder, "relative to the script's folder"


def _on_host(ref: str, files: ScriptFiles, notes: list[str] | None) -> tuple[Path | None, str]:
    folder, how = _folder(files, notes, ref)
    if folder is None:
        return None, f"a path on the machine that runs the script, {how}"
    host = folder / ref
    if host.is_file():
        if files.cwd.base == "root" and notes is not None:
            notes.append(f"{host} ({how}) read on this machine (the one running kvplan): the "
                         "machine that runs the script must hold the same file")
        try:  # named as the script's folder sees it: run/serve.yaml
            return host, host.relative_to(files.script.parent).as_posix()
        except ValueError:
            return host, str(host)
    return None, (f"a path on the machine that runs the script, {how}, and {host} "
                  f"{what_is_there(host, 'on this machine (the one running kvplan)')}")


def _source(source: str, files: ScriptFiles, notes: list[str] | None,
            target: str) -> tuple[str, Path | None, str]:
    """A mount's source with `$PWD` / `$(pwd)` as the docker run's directory; the folder a
    relative source is resolved against; why it cannot be (when the folder is None)."""
    pwd = _PWD.match(source)
    if pwd is None and not source.startswith("."):
        return source, files.script.parent, ""
    rest = source[pwd.end():] if pwd is not None else source
    folder, how = _folder(files, notes, f"the docker run's mount source {source}")
    if folder is None:
        return source, None, how
    return "." + rest if pwd is not None else rest, folder, ""


def in_container(ref: str, files: ScriptFiles,
                 notes: list[str] | None) -> tuple[Path | None, str] | None:
    """The file a `docker run`'s mount puts at `ref` (or why it is not read); None when no
    mount covers it."""
    from kvplan.check.manifests.compose_mounts import Mount, Owner, _covers, _mount

    path = ref if ref.startswith("/") or not files.workdir else \
        posixpath.join(files.workdir, ref)
    covering = [(t, k, s) for k, s, t in files.mounts if _covers(t, path) is not None]
    if not covering:
        return None
    target, kind, source = max(covering, key=lambda m: len(m[0].rstrip("/")))
    rest = _covers(target, path) or ""
    owner = Owner(f"the docker run of line {files.line}", "the machine that runs the script",
                  "a value the script does not set; set it in the script to have the file read")
    found: Mount
    if kind == "bind":
        source, folder, why = _source(source, files, notes, target)
        if folder is None:
            return None, f"mounted from {source} ({owner.name}), {why}"
        found = _mount(kind, source, rest, owner, folder)
    else:
        found = _mount(kind, source, rest, owner, files.script.parent)
    if found.path is None:
        return None, found.said
    if found.note and notes is not None:
        notes.append(found.note.replace("{ref}", path))
    return found.path, found.said.replace("{ref}", path)


def find_written(ref: str, files: ScriptFiles,
                 notes: list[str] | None) -> tuple[str | None, str] | None:
    """The text of `ref` when the script wrote it with a heredoc before this server started
    outside a container (kvplan.check.manifests.shell_heredoc): the last such write of the same
    path, absolute, or relative from the same directory (the `cd`s before the write and before
    the server agree; with that directory unknown, a relative path is not matched). (text, its
    name) or (None, why) when the shell would expand the text; None when no write matches."""
    if not files.on_host:
        return None  # a `docker run` sees a host file through its mounts only: not followed
    absolute = ref.startswith(("/", "~"))
    want = posixpath.normpath(str(Path(ref).expanduser()) if absolute else ref)
    for w in reversed(files.written):
        path = posixpath.normpath(str(Path(w.path).expanduser()) if w.path.startswith(
            ("/", "~")) else w.path)
        if path != want or w.path.startswith(("/", "~")) != absolute:
            continue
        if not absolute and ((w.cwd.base, w.cwd.path) != (files.cwd.base, files.cwd.path)
                             or files.cwd.base == "unknown"):
            continue
        if w.block:
            return None, ("a path on the machine that runs the script, written by its heredoc "
                          f"of line {w.line} inside {w.block}, whose calls kvplan does not "
                          "follow: write the file outside it to have it read")
        if not w.exact:
            return None, ("a path on the machine that runs the script, written by its heredoc "
                          f"of line {w.line}, whose text the shell expands (a $, ` or \\ in it "
                          "and the delimiter unquoted), which kvplan does not do: quote the "
                          "delimiter (<<'EOF') or write the values out")
        if notes is not None:
            notes.append(f"{ref}: read from the heredoc the script writes it with (line "
                         f"{w.line}), not from a file on this machine")
        return w.text, f"{ref} (the heredoc of line {w.line})"
    return None


def find(ref: str, files: ScriptFiles,
         notes: list[str] | None) -> tuple[Path | str | None, str] | None:
    """The option file `ref` of a script's command: (the file, or the text a heredoc of the
    script wrote, and its name) or (None, why); None when the script says nothing about it (the
    manifests' search goes on)."""
    if ref in files.given:
        return files.given[ref], ref
    if files.on_host:
        said = find_written(ref, files, notes)
        if said is not None:
            return said
        if ref.startswith(("/", "~")):
            return None
        return _on_host(ref, files, notes)
    return in_container(ref, files, notes)


def mount_of(option: str, value: str) -> tuple[str, str, str] | None:
    """(type, source, target) of `-v SOURCE:TARGET[:MODE]` / `--volume`, or of `--mount
    type=bind,source=...,target=...` (src / dst / destination accepted; Docker's default type
    is volume)."""
    if option in ("-v", "--volume"):
        parts = value.split(":")
        if len(parts) == 1:
            return "volume", "", parts[0]
        source, target = parts[0], parts[1]
        bind = source.startswith((".", "/", "~", "$"))
        return ("bind" if bind else "volume"), source, target
    if option == "--mount":
        fields = {k: v for k, _, v in (p.partition("=") for p in value.split(","))}
        kind = fields.get("type", "volume")
        source = fields.get("source", fields.get("src", ""))
        target = fields.get("target", fields.get("destination", fields.get("dst", "")))
        return kind, source, target
    return None
