"""What `kvplan check` reads: the files under its paths (folders walked, globs expanded, side
files left out), and every deployment each file holds."""

from __future__ import annotations

import glob
import itertools
import os
import re
from pathlib import Path
from typing import Any

from kvplan.check.documents import Broken, read_documents
from kvplan.check.manifests import read_document
from kvplan.check.manifests.shell import SHELL_SUFFIXES, starts_server
from kvplan.check.manifests.side import has_shell_line, is_side_file, side_file_for, side_owner
from kvplan.check.outcome import ERROR, PY_SUFFIXES, YAML_SUFFIXES, Outcome
from kvplan.check.target import COMPOSE, KUBERNETES, KVPLAN, Target
from kvplan.deploy import DeploymentError, Problem, parse_deployment
from kvplan.deploy.yamldoc import Doc

NOT_FOUND = "no such file or folder"  # a path named on the command line (the text format names it)
NO_MATCH = "no file matches"  # a glob kvplan expands


def _has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def _starts_engine(path: Path) -> bool:
    """python_walk.starts_engine, its reader imported only when a folder holds Python."""
    from kvplan.check.manifests.python_walk import starts_engine

    return starts_engine(path)


SHELL = "shell"
PYTHON = "Python"
NO_ENGINE = "starts no engine"  # why a walk passes over a script, said in the report's footer
NOT_TEXT = "not read as text"
# a FIFO, socket or device in a folder walked: never opened (a FIFO blocks the read until
# something writes to it, and a walk hung on one: task h80review)
NOT_REGULAR = "not a regular file (a FIFO, socket or device), not opened"


# a FIFO, socket or device named on the command line (not found in a walk): an ERROR, not
# "no such file or folder" (task h90hostile)
_NAMED_NOT_REGULAR = ("not a regular file (a FIFO, socket or device), not opened; kvplan "
                      "reads only regular files: save the content to a file and name that")


def _not_regular(path: Path) -> bool:
    """Whether `path` is there but is neither a regular file nor a folder (links followed)."""
    try:
        return path.exists() and not path.is_file() and not path.is_dir()
    except OSError:
        return False


# Folders a walk does not go into, by what they are, never by a name alone (an `env/` or `venv/`
# folder of deployment settings is walked): each is said in the report's footer, and a file
# named inside one is checked (task harden: a repository's virtual environment was read file by
# file, every Python file of the installed packages opened to see whether it starts an engine).
VENV = ("a Python virtual environment (it holds pyvenv.cfg, PEP 405): its files are installed "
        "packages, not deployments")
# the folders Python's installers put packages in (sysconfig's purelib/platlib: site-packages;
# Debian's system Python: dist-packages) and npm's (node_modules)
INSTALLED = {
    "site-packages": "installed Python packages (Python's site-packages), not deployments",
    "dist-packages": "installed Python packages (Debian's dist-packages), not deployments",
    "node_modules": "installed npm packages (node_modules), not deployments",
}


def installed_folder(path: Path) -> str | None:
    """Why a walk does not go into folder `path`; None: it is walked."""
    try:
        if (path / "pyvenv.cfg").is_file():
            return VENV
    except OSError:
        return None
    return INSTALLED.get(path.name)


def is_walked_script(path: Path) -> bool:
    """A file a folder walk reads as a shell script when it starts an engine: a shell suffix
    (.sh, .bash, .zsh, .ksh), or no such suffix and a shell's `#!` line (`#!/bin/bash`,
    `#!/usr/bin/env sh`); YAML and Python are read by their own readers."""
    if path.suffix in SHELL_SUFFIXES:
        return True
    if path.suffix in (*YAML_SUFFIXES, *PY_SUFFIXES):
        return False
    return has_shell_line(path)


def _unread(path: Path) -> str | None:
    from kvplan.errors import InputError
    from kvplan.inputs.text import read_text

    try:
        read_text(path)
    except InputError as err:
        return f"{NOT_TEXT}: {err}"
    return None


def _script_skip(path: Path) -> str | None:
    """Why a shell script found by a walk is not read; None: it is read, as it starts a server
    (or holds one refused by name: kvplan.check.manifests.shell.starts_server), or gives an
    engine's server module to Python as a file (`python sglang.launch_server`, no `-m`: no
    server starts, an ERROR says so). A script that mentions an engine without starting it
    (`pip install vllm`, `vllm bench`) is passed over with that said."""
    from kvplan.check.manifests.engine_mention import mentions_engine
    from kvplan.check.nothing_read import module_as_file
    from kvplan.inputs.text import read_text

    unread = _unread(path)
    if unread is not None:
        return unread
    if starts_server(path):
        return None
    text = read_text(path)
    if module_as_file(text) is not None:
        return None
    engine = mentions_engine(text)
    return NO_ENGINE if engine is None else f"{NO_ENGINE} (mentions {engine.split(' ')[0]}, " \
        "but none of its commands starts a server kvplan reads)"


def _python_skip(path: Path) -> str:
    """Why a walk passes over a .py / .ipynb that starts no engine, said as for a shell
    script: one whose text names a server command (`vllm serve` in a string kvplan cannot
    read whole, a Python call it does not follow) is counted as mentioning the engine."""
    from kvplan.check.manifests.engine_mention import mentions_engine
    from kvplan.inputs.text import read_text

    engine = mentions_engine(read_text(path))
    return NO_ENGINE if engine is None else f"{NO_ENGINE} (mentions {engine.split(' ')[0]}, " \
        "but neither constructs its engine nor starts a server kvplan reads)"


def discover(paths: list[str], skipped: list[tuple[str, str, str]] | None = None,
             folders: list[tuple[str, str]] | None = None,
             patches: list[tuple[str, str]] | None = None,
             ) -> tuple[list[tuple[Path, bool]], list[Outcome]]:
    """Files to read, each with whether it was named explicitly; missing paths as ERRORs.
    `skipped` receives (path, SHELL or PYTHON, why) of each script a folder walk found and
    does not read (it starts no engine): counted in the report, never dropped unsaid.
    `folders` receives (folder, why) of each folder a walk did not go into (installed_folder:
    a virtual environment, installed packages), one footer line each; `patches` (file, why) of
    each kustomize patch a walk met (kvplan.check.kustomize; one named is an ERROR)."""
    files: list[tuple[Path, bool]] = []
    missing: list[Outcome] = []
    seen: set[Path] = set()

    def add(path: Path, explicit: bool) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            files.append((path, explicit))

    passed: dict[Path, tuple[str, str, str]] = {}  # a walk's scripts not read, by file

    def skip(path: Path, kind: str, why: str) -> None:
        passed.setdefault(path.resolve(), (str(path), kind, why))

    left: dict[Path, tuple[str, str]] = {}  # the folders walks did not go into

    def pruned(root: str, dirs: list[str]) -> list[str]:
        """`dirs` without the hidden ones (unsaid, as always) and the installed ones (said)."""
        kept = []
        for d in sorted(d for d in dirs if not d.startswith(".")):
            folder = Path(root) / d
            why = installed_folder(folder)
            if why is None:
                kept.append(d)
            else:
                left.setdefault(_resolved(folder), (str(folder), why))
        return kept

    def walk(folder: Path) -> None:
        from kvplan.inputs.limits import MAX_WALK_ENTRIES

        entries, start = 0, len(files)
        for root, dirs, names in os.walk(folder):
            dirs[:] = pruned(root, dirs)
            entries += len(dirs) + len(names)
            if entries > MAX_WALK_ENTRIES:  # `kvplan check /` walked the whole filesystem
                missing.append(Outcome(str(folder), ERROR, problems=[Problem(
                    "", f"the folder holds more than {MAX_WALK_ENTRIES:,} files and folders "
                        "(not counting hidden ones); kvplan stopped walking it and checked none "
                        "of them: name the folder or files that hold your deployments (a glob "
                        "such as 'deploy/**/*.yaml' works too)")]))
                for path, _ in files[start:]:  # a file also named elsewhere is read there
                    seen.discard(path.resolve())
                del files[start:]
                under = folder.resolve()
                for key in [k for k in passed if k.is_relative_to(under)]:
                    del passed[key]
                for key in [k for k in left if k.is_relative_to(under)]:
                    del left[key]
                return
            for name in sorted(names):
                path = Path(root) / name
                if _not_regular(path):  # YAML an ERROR, a script counted, anything else as any
                    # other file a walk does not read (a side file: its owner's reader says it)
                    if path.suffix in YAML_SUFFIXES and not is_side_file(path):
                        missing.append(Outcome(str(path), ERROR, problems=[Problem(
                            "", f"{NOT_REGULAR}; replace it with the YAML file, or move it out "
                                "of the folder")]))
                    elif path.suffix in (*PY_SUFFIXES, *SHELL_SUFFIXES):
                        kind = PYTHON if path.suffix in PY_SUFFIXES else SHELL
                        skip(path, kind, f"{NOT_TEXT}: {NOT_REGULAR}")
                elif path.suffix in YAML_SUFFIXES and not is_side_file(path):
                    add(path, False)
                elif path.suffix in PY_SUFFIXES:
                    if _starts_engine(path):
                        add(path, False)
                    else:  # a folder's other Python is not read (it runs no engine): counted
                        skip(path, PYTHON, _unread(path) or _python_skip(path))
                elif is_walked_script(path):
                    why = _script_skip(path)
                    if why is None:  # read as if named: a slip gets its ERROR, not a skip
                        add(path, not starts_server(path))
                    else:
                        skip(path, SHELL, why)

    for text in paths:
        path = Path(text)
        if path.is_dir():
            walk(path)
        elif path.is_file():
            add(path, True)
        elif _not_regular(path):  # never opened: a FIFO would block the read
            missing.append(Outcome(text, ERROR, problems=[Problem("", _NAMED_NOT_REGULAR)]))
        elif _has_magic(text):
            matches = _expand(text)
            if matches is None:  # past the bound: one ERROR, as a folder walk's
                from kvplan.inputs.limits import MAX_WALK_ENTRIES

                missing.append(Outcome(text, ERROR, problems=[Problem(
                    "", f"the glob matches more than {MAX_WALK_ENTRIES:,} files and folders "
                        "(not counting hidden ones); kvplan stopped expanding it and checked "
                        "none of them: name the folder or files that hold your deployments (a "
                        "narrower glob such as 'deploy/**/*.yaml' works too)")]))
                continue
            for m in matches:
                p = Path(m)
                if p.is_dir():
                    walk(p)
                elif p.suffix in (*YAML_SUFFIXES, *SHELL_SUFFIXES, *PY_SUFFIXES) and \
                        not is_side_file(p):
                    add(p, False)  # a glob names scripts too (`scripts/*.sh`, `*.py`)
            if not matches:
                missing.append(Outcome(text, ERROR, problems=[Problem("", NO_MATCH)]))
        else:
            missing.append(Outcome(text, ERROR, problems=[Problem("", NOT_FOUND)]))
    if skipped is not None:  # a script also named (or found) elsewhere is read there
        skipped.extend(v for k, v in passed.items() if k not in seen)
    if folders is not None:
        folders.extend(left.values())
    from kvplan.check.kustomize import split_patches

    return _side_files_named(split_patches(files, patches, missing), missing)


def _expand(text: str) -> list[str] | None:
    """The paths a glob matches, sorted; None past kvplan.inputs.limits.MAX_WALK_ENTRIES of them
    (a quoted '/**/*.yaml' matched the whole filesystem's YAML, and '/**/*.py' had every Python
    file read to see whether it starts an engine, as `kvplan check /` did: task harden). The
    matches are counted as glob finds them, so expanding stops at the bound."""
    from kvplan.inputs.limits import MAX_WALK_ENTRIES

    matches = list(itertools.islice(glob.iglob(text, recursive=True), MAX_WALK_ENTRIES + 1))
    return None if len(matches) > MAX_WALK_ENTRIES else sorted(matches)


def _side_files_named(files: list[tuple[Path, bool]], missing: list[Outcome]
                      ) -> tuple[list[tuple[Path, bool]], list[Outcome]]:
    """A side file named on the command line (a shell glob such as `serve*` names it beside its
    script) is read with the file it sits beside: when a file that reads it is named too, it is
    left to it; when not, an ERROR says which file to check."""
    # the side files the named files read (a side file can sit beside two: serve.kvplan.yaml
    # beside serve.sh and serve.yaml is read by both, and side_owner names one of them)
    read = {_resolved(side) for p, _ in files for side in [side_file_for(p)] if side is not None}
    kept: list[tuple[Path, bool]] = []
    for path, explicit in files:
        owner = side_owner(path) if explicit else None
        if owner is None:
            kept.append((path, explicit))
        elif _resolved(path) not in read:
            missing.append(Outcome(str(path), ERROR, problems=[Problem(
                "", f"a side file: kvplan reads it with {owner.name}, the file beside it, "
                    f"which gives the deployment; check {owner} (or its folder)")]))
    return kept, missing


def _resolved(path: Path) -> Path:
    """`path` with its links followed; a link that loops (Python 3.11's resolve raises
    RuntimeError on one: task h70hostile's side-file loop) stays as named, made absolute."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return path.absolute()


def read_targets(path: Path, side_cache: dict[Path, Any], default_gpu: str | None = None,
                 ignored: list[str] | None = None) -> list[Target]:
    """Every deployment one file holds: kvplan/v1 documents and manifests that run an engine.
    A broken document is an ERROR when it runs an engine or is an unrendered template, else
    it is listed in `ignored` and the documents beside it are read."""
    out: list[Target] = []
    if path.suffix in PY_SUFFIXES:  # a Python script that starts an engine in-process
        from kvplan.check.manifests.python_script import read_python

        read = read_python(path, side_cache, default_gpu)
        if read is not None:
            return read
    if path.suffix not in YAML_SUFFIXES:  # a launch script or `docker run` line
        from kvplan.check.manifests.shell import read_if_script

        scripted = read_if_script(path, side_cache, default_gpu)
        if scripted is not None:
            return scripted
    docs = read_documents(path)
    alone = all(isinstance(d, Broken) for d in docs)  # nothing readable beside it: report it
    for doc in docs:
        if isinstance(doc, Broken):
            from kvplan.check.manifests.engine_mention import mentions_engine
            from kvplan.check.manifests.workload import RENDER_FIRST

            runs = alone or "kvplan/" in doc.text or mentions_engine(doc.text) is not None
            merge_tag = doc.problem.message.startswith("the compose merge tag")
            if doc.templated and not merge_tag and (runs or "kind:" not in doc.text):
                message = f"unrendered template: {RENDER_FIRST}"
            elif runs:
                message = doc.problem.message
            else:
                if ignored is not None:
                    ignored.append(f"{path}:{doc.problem.line or doc.start_line}: {doc.problem.message}")
                continue
            kind = _broken_kind(path, doc, docs)
            if kind != KUBERNETES:  # in the file's own words (a compose file's .env)
                from kvplan.check.manifests.wording import in_file_words

                message = in_file_words(message, path, kind)
            out.append(Target(file=str(path), kind=kind, line=doc.start_line,
                              problems=[Problem("", message, doc.problem.line or doc.start_line)]))
            continue
        data = doc.data
        if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith("kvplan"):
            out.append(_kvplan_target(path, doc))
            continue
        found = read_document(doc, path, side_cache, default_gpu)
        out.extend(found or [])
    return out


# a top-level `services:` key, and a compose file's names (the Compose Specification's
# compose.yaml / compose.yml, and docker-compose.yml with its overrides)
_SERVICES = re.compile(r"^services:[ \t]*(?:#.*)?$", re.M)
_TOP_KIND = re.compile(r"^(?:kind|apiVersion):", re.M)
_COMPOSE_NAME = re.compile(r"^(?:docker-)?compose(?:[.-][^/]*)?\.ya?ml$")


def _broken_kind(path: Path, doc: Broken, docs: list[Doc | Broken]) -> str:
    """The kind of a document YAML cannot read, as the readers would have classed it: compose
    when a document beside it is a compose file (kvplan.check.manifests.compose.is_compose), or
    its text has a top-level `services:` and no `kind:` / `apiVersion:`, or the file is named as
    compose names its files; else kubernetes."""
    from kvplan.check.manifests.compose import is_compose

    if any(isinstance(d, Doc) and isinstance(d.data, dict) and "kind" not in d.data
           and is_compose(d.data) for d in docs):
        return COMPOSE
    if _SERVICES.search(doc.text) and not _TOP_KIND.search(doc.text):
        return COMPOSE
    if _COMPOSE_NAME.match(path.name) and not _TOP_KIND.search(doc.text):
        return COMPOSE
    return KUBERNETES


def _kvplan_target(path: Path, doc: Doc) -> Target:
    from kvplan.check.manifests.auto_context import file_auto

    target = Target(file=str(path), kind=KVPLAN, line=doc.start_line, doc=doc, base_dir=path.parent)
    data = doc.data
    target.name = str(data.get("name")) if isinstance(data.get("name"), str) else None
    # engine.max_model_len: auto / -1, read as vLLM's flag is (task h59maxlen)
    data, what, text = file_auto(data)
    problem = Problem("engine.max_model_len", text, doc.line("engine", "max_model_len"))
    if what == "auto":
        target.max_model_len_auto = True
        target.notes.append(text)
    elif what == "refused":
        target.refusals.append(problem)
    try:
        target.deployment = parse_deployment(data, str(path), doc)
    except DeploymentError as err:
        target.problems = err.items
    if what == "error":
        target.problems = [problem, *target.problems]
    return target
