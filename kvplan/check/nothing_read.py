"""Why a file given by name holds no deployment kvplan reads (split out of kvplan/check/__init__.py,
which had passed 400 lines): a script that mentions an engine but starts no server, an engine module
given to Python as a file name, a YAML without its apiVersion, compose services kvplan cannot read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kvplan.check.outcome import PY_SUFFIXES, YAML_SUFFIXES

# `python sglang.launch_server` (a module given as a file name), with the interpreter's spelling
PYTHON_FILE = re.compile(r"(?<![\w./-])((?:\S*/)?python[\d.]*)\s+([A-Za-z_][\w.]*)(?=\s|$)")


def module_as_file(text: str) -> tuple[str, int] | None:
    """`python sglang.launch_server`: an engine's server module given to Python as a file name
    (without `-m`). Python looks for a file of that name and stops ("can't open file"), so no
    server starts; named with the line and the `-m` spelling (sgl-project/sglang#5212 posted
    its command so, tests/assets/check/outcomes file 66)."""
    from kvplan.engine_traits import SERVING, traits

    modules = {m for e in SERVING for t in [traits(e)]
               for m in (*t.modules, *t.module_prefixes, *t.demo_modules)}
    for number, line in enumerate(text.splitlines(), 1):
        for word in PYTHON_FILE.finditer(line):
            if word.group(2) in modules:
                return (f"`{word.group(1)} {word.group(2)}` gives the server module to Python "
                        f"as a file name: Python stops (\"can't open file\") and no server "
                        f"starts; start it with `{word.group(1)} -m {word.group(2)}`", number)
    return None


def skip_annotation_line(docs: list[Any]) -> int | None:
    """The line of the first `kvplan.io/skip: "true"` annotation in these YAML documents (any
    `metadata.annotations`: a workload's or its pod template's), or None. A file whose only
    workloads carry it holds nothing to read, and was told it held nothing that runs an engine
    (since task readfix made the annotation skip every kind; the named file now says why)."""
    from kvplan.check.manifests.side import ANNOTATION_PREFIX, SKIP_ANNOTATION, skips

    def metadata(node: Any, at: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, value in items:  # YAML depth is bounded on load (docs/limits.md)
            here = (*at, key)
            if key == "metadata" and isinstance(value, dict):
                yield here, value.get("annotations")
            yield from metadata(value, here)

    for doc in docs:
        for at, found in metadata(doc.data, ()):
            if isinstance(found, dict) and skips(found):
                return int(doc.line(*at, "annotations", ANNOTATION_PREFIX + SKIP_ANNOTATION))
    return None


def nothing_read(path: Path) -> tuple[str, int]:
    """Why a file given by name holds no deployment: a shell script that mentions an engine
    but starts no server kvplan reads is named as such (kvplan.check.manifests.shell)."""
    from kvplan.check.manifests.engine_mention import mentions_engine
    from kvplan.errors import InputError, KvplanError
    from kvplan.inputs.text import read_text

    try:
        engine = mentions_engine(read_text(path))
    except InputError:
        engine = None
    if engine is not None and path.suffix not in YAML_SUFFIXES:
        from kvplan.check.manifests.unserved import SERVERS

        slip = module_as_file(read_text(path))
        if slip is not None:
            return slip
        return (f"this file mentions {engine}, but none of its commands starts a server kvplan "
                f"reads ({SERVERS}, or `docker run` of an engine image); kvplan check reads "
                "those in shell scripts, and Kubernetes manifests, Helm values, docker-compose "
                "and kvplan/v1 YAML", 1)
    if path.suffix in YAML_SUFFIXES:
        from kvplan.deploy.yamldoc import read_docs
        from kvplan.plan.targets import missing_api_version

        try:
            docs = read_docs(path)
        except KvplanError:  # a malformed file is reported where it is read
            docs = []
        skipped = skip_annotation_line(docs)
        if skipped is not None:  # every workload left out as asked: say so, never "nothing"
            return ("a workload here carries the annotation `kvplan.io/skip: \"true\"`, so "
                    "kvplan left it out as asked, and nothing else in this file runs vLLM, "
                    "SGLang or TensorRT-LLM: nothing was checked; remove the annotation to have "
                    "it checked", skipped)
        if docs and isinstance(docs[0].data, dict) and missing_api_version(docs[0].data):
            return ("no apiVersion: the first document has a kvplan/v1 deployment's model and "
                    "sections but not its first line; add `apiVersion: kvplan/v1`", 1)
        from kvplan.plan.targets import guessed_deployment

        guessed = guessed_deployment(docs[0].data) if docs else None
        if guessed is not None:  # model: and gpu: by guess (task freshuser)
            return f"no apiVersion: {guessed.removeprefix('missing: ')}", docs[0].start_line
        from kvplan.check.manifests.compose import unread_services

        unread = [why for d in docs for why in unread_services(d.data)]
        if unread:
            return ("; ".join(unread) + ". State the server in the service (`entrypoint: "
                    "[\"vllm\", \"serve\"]` with the model and options in `command:`), or "
                    "describe the deployment in a kvplan/v1 file", 1)
    if path.suffix in PY_SUFFIXES:  # say what a script needs (task h71left: `explain x.py`)
        return ("no engine started in this file: kvplan reads a Python script or notebook that "
                "constructs vLLM's LLM(...) or LLMEngine/AsyncLLMEngine.from_engine_args(...), "
                "SGLang's Engine(...) or TensorRT-LLM's LLM(...), or a notebook's `!` line or "
                "%%bash cell that starts a server; give the script that starts it, or describe "
                "the deployment in a kvplan/v1 file", 1)
    return ("no kvplan/v1 deployment and nothing that runs vLLM, SGLang or TensorRT-LLM in this "
            "file", 1)
