"""A document that runs an engine through no server kvplan reads, said as one ERROR, never a
skip: a container running an engine kvplan has no server reader for (with what it runs), options
handed to an image whose entrypoint kvplan cannot see, an unrendered image naming an engine, an
engine kind none of whose containers starts a server, and a kind kvplan cannot read yet. Split
from kvplan.check.manifests (the FORMATS registry and read_document) along that seam (task
h100readers); read_document and _targets call these, and SERVERS is imported from there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kvplan.check.manifests.accelerators import container_refusal
from kvplan.check.manifests.engine_mention import container_engine, mentions_engine
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.workload import RENDER_FIRST, options_only, unrendered, worker_said
from kvplan.check.target import KUBERNETES, Target, kind_of_site
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc
from kvplan.engine_traits import serving_title

SERVERS = ("vllm serve, python -m vllm.entrypoints.openai.api_server (or the demo "
           "vllm.entrypoints.api_server), python -m sglang.launch_server, sglang serve, python "
           "-m dynamo.vllm / dynamo.sglang, trtllm-serve")


def no_command(path: Path, doc: Doc, kind: str, engine: str, name: str | None,
               line: int | None = None, more: str = "") -> Target:
    at = line or doc.start_line
    return Target(file=str(path), kind=kind_of_site(kind), line=at, name=name,
                  problems=[Problem("command", f"this {kind} runs {engine}, but not through a "
                                    f"server command kvplan reads ({SERVERS}){more}", at)])


_RUNS_SHOWN = 80  # characters of an unread container's command shown in its ERROR


def _runs(c: dict[str, Any]) -> str:
    """What an unread container runs, its command and args as one line (cut at _RUNS_SHOWN
    characters): the ERROR says what kvplan found there, not only what it reads (a compose
    service's `bash /app/start.sh`, a Deployment's `python3 -m tensorrt_llm.serve ...`, round
    blind-2026-12-07-r8)."""
    words: list[str] = []
    for part in ("command", "args"):
        value = c.get(part)
        if isinstance(value, list):
            words.extend(str(w) for w in value)
        elif value:
            words.append(str(value))
    line = " ".join(" ".join(words).split())
    if not line:
        return ""
    cut = line if len(line) <= _RUNS_SHOWN else line[:_RUNS_SHOWN].rstrip() + " ..."
    return f"; it runs `{cut}`"


def unserved(doc: Doc, path: Path, kind: str, group: list[PodSite],
              name: str | None) -> list[Target]:
    """The ERROR of one group (a worker, a role, a compose service) whose container runs an
    engine that kvplan does not read (Dynamo's dynamo.trtllm, Triton's backends) or passes
    server options to an image whose entrypoint kvplan cannot see; [] when none of its
    containers does. Each group of a document gets its own: a DynamoGraphDeployment's prefill
    and decode workers are two, and so are a compose file's vLLM and Triton services."""
    for site in group:
        line = doc.line(*site.line_at) if site.line_at else doc.start_line
        label = site.name or name
        for c, at in site.containers:
            engine = container_engine(c)
            if engine is not None:
                unread = no_command(path, doc, kind, engine, label, line,
                                    worker_said(site, c) + _runs(c))
                other = container_refusal(c)
                if other is not None:  # the device first: no server command would be sized there
                    at_key, key, words = other
                    unread.problems.insert(0, Problem(key, words, doc.line(*at, *at_key)))
                return [unread]
            why = options_only(c)
            if why is not None:
                return [Target(file=str(path), kind=KUBERNETES, line=line or doc.start_line,
                               name=label, problems=[Problem("args", why, doc.line(*at))])]
    return []


# an engine's name in the written part of an image (`${ECR_REGISTRY}/mal-vllm-opt125m:${TAG}`)
_ENGINE_WORD = re.compile(r"(?<![a-z])(vllm|sglang|trtllm|tensorrt[-_]llm)(?![a-z])")


def unrendered_image(c: dict[str, Any]) -> str | None:
    """Why a container whose image is an unrendered template naming an engine, and whose
    command kvplan does not read as a server (a script in the image: `/entrypoint.sh`), is not
    judged: the file is not what runs. None when the image is rendered or names no engine."""
    image = str(c.get("image", "") or "")
    written = re.sub(r"\$\{[^}]*\}|\{\{.*?\}\}", " ", image.lower())
    found = _ENGINE_WORD.search(written) if unrendered(image) else None
    if found is None:
        return None
    return (f"image {image!r} is an unrendered template naming {found.group(1)}, and the server "
            "command is not in the file (its command runs no server kvplan reads): "
            f"{RENDER_FIRST}, then write the server in `command:` or describe the deployment "
            "in a kvplan/v1 file")


def unrendered_engine(doc: Doc, path: Path, sites: list[PodSite],
                       name: str | None) -> list[Target]:
    """The ERROR of a document in which nothing was read but a container's image is an
    unrendered template naming an engine (`${ECR_REGISTRY}/mal-vllm-opt125m:${IMAGE_TAG}`
    running `/entrypoint.sh`, task h71corpus): it was skipped as running no engine. Only where
    the document gives no result otherwise: a Dynamo graph's frontend on the workers'
    `vllm-runtime:${VERSION}` image runs no engine beside the workers that are read."""
    for site in sites:
        for c, at in site.containers:
            why = unrendered_image(c)
            if why is not None:
                said = (*at, "image") if "image" in c else at
                return [Target(file=str(path), kind=KUBERNETES, line=doc.line(*said),
                               name=site.name or name,
                               problems=[Problem("image", why, doc.line(*said))])]
    return []


def no_server(path: Path, doc: Doc, kind: str, engine: str, name: str | None) -> Target:
    return Target(file=str(path), kind=KUBERNETES, line=doc.start_line, name=name,
                  problems=[Problem("kind", f"this {kind} is for {engine}, but none of its "
                                    f"containers starts a server kvplan reads ({SERVERS}); "
                                    "check the pods it renders (kubectl get pod -o yaml)",
                                    doc.start_line)])


def unreadable(path: Path, doc: Doc, kind: str, engine: str, name: str | None) -> Target:
    if not kind:  # no `kind:`: Helm values of a chart kvplan does not know, or another config
        message = (f"this document runs {engine}, but it is not a Kubernetes object, compose file "
                   "or chart values kvplan reads (no `kind:`); check what it renders (helm "
                   "template, then kvplan check the output) or write a kvplan/v1 file")
    else:
        message = (f"{kind} runs {engine}, but kvplan cannot read a {kind} yet; check the pods "
                   "it renders (kubectl get pod -o yaml) or write a kvplan/v1 file")
    return Target(file=str(path), kind=KUBERNETES, line=doc.start_line, name=name,
                  problems=[Problem("kind", message, doc.start_line)])


def engine_named(data: Any) -> str:
    """The engine a document of an unread kind runs: any image or command string, a command
    list read as one line (`["vllm", "serve"]`), else a KubeAI-style `engine: VLLM` field."""
    found = mentions_engine(data)
    stack = [data]
    while found is None and stack:
        item = stack.pop()
        if isinstance(item, dict):
            engine = str(item.get("engine", "")).lower() if "engine" in item else ""
            found = serving_title(engine)
            stack.extend(item.values())
        elif isinstance(item, list):
            if item and all(isinstance(w, str) for w in item):
                found = mentions_engine(" ".join(item))
            stack.extend(item)
    return found or "an inference engine"
