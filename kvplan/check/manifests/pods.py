"""A pod site: one pod template that may run a server, as every format reader returns it.

A reader (one module per manifest format, listed in kvplan.check.manifests.FORMATS) turns a
document into sites; kvplan.check.manifests.workload reads a site into a launch record. Sites
of the same `group` are alternatives (a LeaderWorkerSet's leader and worker templates: the one
that runs the server is the engine); each group is one engine of its own (a StormService's
prefill and decode roles).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key


@dataclass
class PodSite:
    """One pod template of a workload."""

    kind: str
    pod: dict[str, Any]
    pod_at: Key
    containers: list[tuple[dict[str, Any], Key]]
    replicas: Any = 1
    replicas_at: Key | None = None
    pods_per_engine: int = 1  # LeaderWorkerSet: the group's pods make one engine
    annotations: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    lenient: bool = False  # a launcher that adds options of its own (KServe huggingface)
    group: int = 0  # sites of one group are alternatives; each group is one engine
    name: str | None = None  # the engine's own name (a role, a service), else the document's
    lines: dict[Key, int] = field(default_factory=dict)  # lines of keys a reader synthesised
    problems: list[Problem] = field(default_factory=list)  # what the reader refused
    # where the engine itself would not start on what the format writes (a FAIL, not an ERROR)
    refusals: list[Problem] = field(default_factory=list)
    image_names_engine: bool = True  # False: the image tag is a launcher's release, not vLLM's
    gpus_total: int | None = None  # the GPUs the engine spans, where pods differ (a Ray cluster)
    release_unknown: bool = False  # the engine's release is not named: unknown options noted
    line_at: Key | None = None  # where the engine is declared, when a document holds several
    gpus_said: str = ""  # how a compose service hands over its GPUs, when not by a reservation
    files: Any = None  # a script's command: where its option files are (script_files.ScriptFiles)
    gpu: tuple[str, str] | None = None  # (catalog GPU, what names it) a format itself names
    gpu_unknown: str = ""  # why the format's GPU is not known: an ERROR unless --gpu or a side file
    model_elsewhere: str = ""  # what names the weights at a container path instead (OME, KubeAI)
    # engine -> (release, what pins it) another part of the file names (a SkyPilot task's setup
    # `pip install vllm==0.6.6`): the release when the container's image names none
    releases: dict[str, tuple[str, str]] = field(default_factory=dict)
    # the launcher passes vLLM --max-model-len auto (KAITO): the longest context the pool holds
    max_model_len_auto: bool = False
    # record fields the file states other than through the engine's options: (value, line, what
    # states it), applied where the options leave the field unset (a Python script's vLLM LLM(...)
    # class: engine.entrypoint offline; kvplan.check.manifests.python_script)
    stated: dict[str, tuple[Any, int, str]] = field(default_factory=dict)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def containers(pod: dict[str, Any], at: Key) -> list[tuple[dict[str, Any], Key]]:
    items = pod.get("containers") or []
    return [(c, (*at, "containers", i)) for i, c in enumerate(items if isinstance(items, list)
                                                               else []) if isinstance(c, dict)]


def template_site(data: dict[str, Any], at: Key, kind: str, replicas: Any,
                  replicas_at: Key | None, doc: Doc | None = None) -> PodSite:
    """The site of a `template:` (a PodTemplateSpec) under `data` at `at`. With `doc`, a
    template, pod spec, metadata or annotations of the wrong type is the site's problem."""
    bad: list[Problem] = []
    schema = "Kubernetes core/v1 PodTemplateSpec"
    d = Doc({}, 1, {}) if doc is None else doc
    tmpl = typed(as_dict(data), "template", at, d, bad, schema)
    pod = typed(tmpl, "spec", (*at, "template"), d, bad, schema)
    pod_at = (*at, "template", "spec")
    meta = typed(tmpl, "metadata", (*at, "template"), d, bad, schema)
    ann = typed(meta, "annotations", (*at, "template", "metadata"), d, bad, schema)
    return PodSite(kind, pod, pod_at, containers(pod, pod_at), replicas, replicas_at,
                   annotations=ann, problems=bad if doc is not None else [])


def count(value: Any, default: int = 1) -> Any:
    """A replicas-like field: its value, or `default` when absent (None)."""
    return default if value is None else value


# images whose tag is the release of a launcher around the engine, not the engine's own
LAUNCHER_IMAGES = ("llm-d/", "rayproject/", "ai-dynamo/", "dynamo-dev/", "kserve/",
                   "lmcache/")


def image_names_engine(image: str) -> bool:
    return not any(part in image for part in LAUNCHER_IMAGES)


# base images whose tag is their own version (the OS's, Python's, CUDA's, PyTorch's), into which a
# container's command installs the engine (`pip install vllm && vllm serve ...`): Docker Hub's
# official python, ubuntu and debian images, NVIDIA's nvidia/cuda (tags: the CUDA release, then
# the flavour and OS) and PyTorch's pytorch/pytorch (the PyTorch release, then CUDA and cuDNN).
# Their tags were read as the engine's release: python:3.11 as 'vllm 3.11' (task h70review)
BASE_IMAGES = ("python", "ubuntu", "debian", "nvidia/cuda", "pytorch/pytorch")
_HUB = ("docker.io/library/", "index.docker.io/library/", "docker.io/", "library/")


def base_image(image: str) -> str | None:
    """The repository of `image` when it is one of BASE_IMAGES (Docker Hub's own spellings of it
    too: `docker.io/library/python:3.11`), else None."""
    repo = image.split("@", 1)[0]
    if ":" in repo.rsplit("/", 1)[-1]:
        repo = repo.rsplit(":", 1)[0]
    repo = next((repo[len(p):] for p in _HUB if repo.startswith(p)), repo)
    return repo if repo in BASE_IMAGES else None


def tag_not_release(image: str, engine: str) -> str | None:
    """Why `image`'s tag is no `engine` release (the note that says so), None where the tag may be
    one: a base image (BASE_IMAGES: the tag is Python's, CUDA's ...), or an image whose repository
    names no engine word (`acme/llm-box:1.2` running `vllm serve`: its tag is acme's version, and
    was read as 'vllm 1.2'). NVIDIA's NGC images are left to image_tag's table of their releases."""
    from kvplan.engine_traits import traits

    base = base_image(image)
    if base is not None:
        return (f"image {image}: {base}'s tag is its own version, not {engine}'s (a base image "
                f"the container installs {engine} into); the {engine} profile's default version "
                "is used")
    named = image.split("@", 1)[0]  # a digest after the tag is no part of it
    if ":" not in named.rsplit("/", 1)[-1] or "$" in image or "{" in image:
        return None  # no tag (a digest alone is said where the image is read), or unrendered
    repo = named.rsplit(":", 1)[0].lower()
    if repo.startswith("nvcr.io/nvidia/") or any(
            word in _repository(repo) for word in traits(engine).name_words
            + traits(engine).image_words):
        return None
    return (f"image {image}: its repository names no {engine}, so its tag is that image's own "
            f"version, not a {engine} release; the {engine} profile's default version is used")


def _repository(name: str) -> str:
    """An image name without its registry host: the first part when there are several and it
    holds a `.` or a `:` or is `localhost` (Docker's reference grammar), so that a registry
    such as `vllm-registry.internal:5000` names no engine (task h80review: its image
    `acme/llm-box:1.2` was read as vllm 1.2)."""
    first, sep, rest = name.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost"):
        return rest
    return name


# an engine's image named by its repository, from a mirror or another registry (`rocm/vllm:TAG`,
# `harbor.example.io/team/sglang:v0.5.6`); not a URL's host nor a git `vllm-project/vllm@0035bdf`.
# `vllm-ascend` is vLLM's Ascend NPU image (quay.io/ascend/vllm-ascend; vllm-project/vllm-ascend's
# quick start: "The prebuilt image includes ... PyTorch, TorchNPU, vLLM, and vLLM Ascend"), task
# h100corpus
_ENGINE_IMAGE = re.compile(r"(?:[\w.-]+/)+(vllm|sglang|vllm-ascend)"
                           r"(?::\w[\w.-]*|@sha256:[0-9a-f]+)")


def image_engine(text: str) -> str | None:
    """The engine an image reference names by its repository (task h71corpus); None else."""
    from kvplan.engine_traits import serving_title

    image = _ENGINE_IMAGE.fullmatch(text.strip().lower())
    return None if image is None else serving_title(image.group(1).removesuffix("-ascend"))
