"""One pod template that runs vLLM, SGLang or TensorRT-LLM, read into kvplan/v1 fields.

The server command line gives the model and the engine options (parsed as the engine parses
them, kvplan.check.argv); GPU limits, replicas and the node's GPU label give the hardware;
`kvplan.io/...` annotations or a side file give the traffic. Each field remembers the line it
came from, so errors and annotations point at the right line. The hardware is read in
kvplan.check.manifests.hardware, the side file and the model in kvplan.check.manifests.launch.
"""

from __future__ import annotations

import re
from collections.abc import Container
from pathlib import Path
from typing import Any

from kvplan.check.argv import SHELLS, Invocation, Word, parse, server_start, split_script
from kvplan.check.gpus import AMD_FAMILY_LABEL, MEMORY_LABEL
from kvplan.check.k8s_expansion import NOT_KUBERNETES, expand_words
from kvplan.check.manifests.compose_words import literal_problem, literal_words
from kvplan.check.manifests.engine import Found, Refusal, read_options
from kvplan.check.manifests.env_from import Env, container_env
from kvplan.check.manifests.image_entry import SERVE, image_entry, runs_vllm_image
from kvplan.check.manifests.node_options import SCRIPT
from kvplan.check.manifests.pod_files import pod_files
from kvplan.check.manifests.pods import PodSite, image_names_engine, tag_not_release
from kvplan.check.manifests.script_vars import script_built_message, script_built_word
from kvplan.check.manifests.side import ANNOTATION_PREFIX, ANNOTATIONS, SKIP_ANNOTATION
from kvplan.check.manifests.wrapper_script import wrapper_note
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key
from kvplan.engine_traits import traits
from kvplan.specs.loader import suggest

# NAMES_NO_GPU and GPU_RESOURCES are read by kvplan.check.manifests.hardware (the accelerators
# kvplan does not model are kvplan.check.manifests.accelerators')
NAMES_NO_GPU = (MEMORY_LABEL, AMD_FAMILY_LABEL)  # memory size / GPU family: not one model
RENDER_FIRST = "render first (helm template / kustomize build / envsubst)"
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
SHELL_C = re.compile(r"-[a-zA-Z]*c[a-zA-Z]*")  # sh -c, -ec, -exc, -lc, -euxc ...


def unrendered(text: str) -> bool:
    return "{{" in text or "${" in text


def _unrendered_words(text: str, shell: bool, env: Container[str]) -> str:
    """Why a command word holding `${` or `{{` is refused. A `${VAR}` naming one of the
    container's own env entries (`env`: their names; a `value` or a `valueFrom`, which Kubernetes
    expands alike), outside a shell: Kubernetes expands only `$(VAR)` in command and
    args (kubernetes.io, "Define a Command and Arguments for a Container": "$(VAR_NAME)"), so the
    engine receives the text as written, which rendering would not fix."""
    var = re.search(r"\$\{(\w+)\}", text)
    if var is None or shell or var.group(1) not in env:
        return f"{text!r} is an unrendered template: {RENDER_FIRST}"
    name = var.group(1)
    return (f"{text!r}: the container sets {name} in its env, but Kubernetes expands $({name}) "
            f"in command and args, not ${{{name}}}, and no shell runs them, so the engine would "
            f"receive the text as written; write $({name}) or run the command through sh -c")


def container_words(c: dict[str, Any], doc: Doc, at: Key) -> tuple[list[Word], bool]:
    """command + args as words with their lines; a `sh -c` script is split as the shell would.
    Returns (words, whether they came from a shell script)."""
    words: list[Word] = []
    shell = False
    for part in ("command", "args"):
        value = c.get(part)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            continue
        for i, item in enumerate(value):
            line = doc.line(*at, part, i)
            text = str(item)
            first = words[0].text.rsplit("/", 1)[-1] if words else ""
            if words and SHELL_C.fullmatch(words[-1].text) and first in SHELLS:
                shell = True
                for cmd in split_script(text, strict=True):
                    if server_start(cmd) is not None:
                        words.extend(Word(w, line) for w in cmd)
                        break
            elif "\n" in text or ("\\" in text and " " in text):
                for cmd in split_script(text):  # a whole command line in one item
                    words.extend(Word(w, line) for w in cmd)
            else:
                words.append(Word(text, line))
    return words, shell


def find_invocation(c: dict[str, Any], doc: Doc, at: Key) -> tuple[Invocation | None, bool]:
    words, shell = container_words(c, doc, at)
    start = server_start([w.text for w in words])
    image = str(c.get("image", ""))
    implied = bool(c.get("implied_entry"))  # docker run / compose: the image's entrypoint
    from_image = str(c.get("entry_image", "")) if implied else ""
    if start is None and runs_vllm_image(image) and not c.get("command"):
        implied, from_image = True, image
        entry = image_entry(image).words  # by the release the tag names (task h61misc)
        start = (("vllm", "the vllm-openai image's `vllm serve`", 0, False) if entry == SERVE
                 else server_start(list(entry)))
        if start is not None and entry != SERVE:
            start = (*start[:2], 0, start[3])  # the args follow the image's words
    if start is None:
        return None, shell
    engine, entry_point, i, dynamo = start
    return Invocation(engine, entry_point, words[i:], dynamo, implied, from_image), shell


_MODEL_OPTIONS = ("--model", "--model-path", "--model_path", "--model-name")
# llm-d's vLLM simulator (ghcr.io/llm-d/llm-d-inference-sim): "A light weight vLLM simulator ...
# that mimics vLLM's OpenAI API" (llm-d/llm-d-inference-sim README), taking vLLM's flags (--model,
# --max-num-seqs, --max-model-len) and no GPU; it runs no engine, as in llm-d's values
# (kvplan.check.manifests.llmd_values). KaveeshKhattar/inference-router's Deployment of it (round
# blind-2026-12-07-r10) was told to write a vLLM server in `command:`.
SIMULATOR = "llm-d-inference-sim"


def options_only(c: dict[str, Any], command: Any = None, compose: bool = False) -> str | None:
    """Why a container that passes server options (`--model X ...`) and no program is not
    read: its image's entrypoint, which kvplan cannot see, is the server; None when it does
    not look like that. `command` is what is appended to the entrypoint (default: args)."""
    value = c.get("args") if command is None and not c.get("command") else command
    words = [str(w) for w in value] if isinstance(value, list) else str(value or "").split()
    first = words[0].split("=", 1)[0] if words else ""
    if not first.startswith("--") or not any(w.split("=", 1)[0] in _MODEL_OPTIONS for w in words):
        return None
    image = str(c.get("image", "") or "(none)")
    if SIMULATOR in image:  # llm-d's simulator takes vLLM's options and runs no engine
        return None
    if unrendered(image):
        return (f"image {image!r} is an unrendered template and the command is server options "
                f"only ({first} ...): {RENDER_FIRST}")
    fix = ("state the server in `entrypoint:` (`[\"vllm\", \"serve\"]`, `[\"python3\", \"-m\", "
           "\"sglang.launch_server\"]`, `[\"trtllm-serve\"]`)" if compose else
           "write the server in `command:` (`[\"vllm\", \"serve\"]`, `[\"python3\", \"-m\", "
           "\"sglang.launch_server\"]`, `[\"trtllm-serve\"]`)")
    return (f"passes server options ({first} ...) to image {image!r}, whose entrypoint kvplan "
            "cannot see (only vllm/vllm-openai's is read: `vllm serve`, the OpenAI server module "
            f"before 0.11.1); {fix}, or describe the deployment in a kvplan/v1 file")


def worker_said(site: Any, c: dict[str, Any]) -> str:
    """What an unread worker's ERROR adds about it: its name where the document holds several
    (a DynamoGraphDeployment's prefill and decode), and the engine-options file Dynamo's
    TensorRT-LLM worker is given (`--extra-engine-args FILE`, a path inside the container,
    relative to its workingDir), which kvplan does not read since it does not read the worker."""
    words: list[str] = []
    for part in ("command", "args"):
        value = c.get(part)
        words.extend(str(w) for w in (value if isinstance(value, list) else []))
    said = f" ({site.name})" if site.name and site.line_at else ""
    for i, word in enumerate(words):
        flag, eq, value = word.partition("=")
        if flag in ("--extra-engine-args", "--extra_engine_args"):
            value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            where = f" (under workingDir {c['workingDir']})" if c.get("workingDir") and \
                not value.startswith("/") else ""
            said += f"; its engine options in {flag} {value}{where}, a path inside the " \
                    "container, are not read"
            break
    return said


def _read_image(image: str, engine: str, site_names_engine: bool, found: Found,
                notes: list[str]) -> tuple[bool, bool]:
    """The engine release an image names, into found (engine.version) with a note, and
    (unnamed, templated): whether the image names no release, or is an unset variable."""
    # an image that names no engine release (a launcher's tag, a digest, a tag like a date)
    # may hold an older release than the option table: its unknown options are noted
    unnamed = False
    if not (site_names_engine and image_names_engine(image)):
        if image:
            unnamed = "engine.version" not in found.values
            notes.append(f"image {image}: its tag is the launcher's release, not "
                         f"{engine}'s; the {engine} profile's default version "
                         "is used")
    elif (why := tag_not_release(image, engine)) and "engine.version" not in found.values:
        unnamed = True
        notes.append(why)
    elif "@sha256:" in image and ":" not in image.split("@", 1)[0].rsplit("/", 1)[-1] \
            and "engine.version" not in found.values:
        unnamed = True
        notes.append(f"image pinned by digest {image.rsplit('@', 1)[1][:19]}…: a "
                     f"digest names no {engine} release; the {engine} profile's "
                     "default version is used")
    elif ":" in image.split("@", 1)[0].rsplit("/", 1)[-1] and "engine.version" not in found.values:
        from kvplan.check.manifests.image_tag import read_image_tag

        # a tag before a digest (`vllm/vllm-openai:v0.30.0-cu129@sha256:...`, round r11's
        # cduggn/Ariadne) still names the release: the digest pins the image, the tag says which
        tag = read_image_tag(image.split("@", 1)[0], engine)
        if tag.version is not None:
            found.values["engine.version"] = tag.version
        if tag.note is not None:
            notes.append(tag.note)
        unnamed = tag.unnamed
    templated = "$" in image or unrendered(image)  # `image: $IMAGE` from a .env
    if templated:
        notes.append(f"image {image!r} is a variable this file does not set: the "
                     f"{engine} release is unknown, so options the {engine} "
                     "option table lacks are noted, not refused")
    return unnamed, templated


class Workload:
    """Reads one pod site into kvplan fields, one concern per method; the hardware (GPU count
    and type) is read by kvplan.check.manifests.hardware, the side file and the model by
    kvplan.check.manifests.launch, each filling this state."""

    def __init__(self, doc: Doc, path: Path, site: PodSite, name: str | None,
                 meta_annotations: dict[str, Any]) -> None:
        self.doc, self.path, self.site, self.name = doc, path, site, name
        self.annotations = {**site.annotations, **meta_annotations}
        self.meta_annotations = meta_annotations
        self.found = Found()
        self.problems: list[Problem] = []
        self.refusals: list[Refusal] = []
        self.notes: list[str] = list(site.notes)
        self.container: dict[str, Any] = {}
        self.c_at: Key = ()
        self.inv: Invocation | None = None
        self.dp = 1
        self.env: dict[str, str] = {}
        self.envs = Env()  # the container's environment and its sources (env_from)
        self.label_key: str | None = None
        self.gpus_per_pod = 0  # the pod's GPU limit, once read (hardware.read_gpu_count)
        self.node_gpus: int | None = None  # a labelled node bigger than the spec's (hardware)
        self.gpu_named = True
        self.gpu_vendor: str | None = None  # amd / nvidia: the GPUs the container can run on
        self.dp_spread = False  # --data-parallel-size-local: each pod holds its own ranks
        self.attention_dp = 1  # SGLang --dp-size with --enable-dp-attention: attention at tp / dp
        self.attention_flag = ""  # how that is spelt (kvplan.check.manifests.dp_attention)
        self.files: Any = None  # the files a --config option may name (the site's, or the pod's mounts)
        self.shell = False  # the server's words come from a `sh -c` script
        self.escaped: set[int] = set()  # words holding a `$$(VAR)` escape (k8s_expansion)

    def problem(self, field: str, message: str, line: int | None) -> None:
        self.problems.append(Problem(field, message, line))

    def ann_line(self, key: str) -> int:
        if key in self.meta_annotations:
            return self.doc.line("metadata", "annotations", key)
        return self.doc.line(*self.site.pod_at[:-1], "metadata", "annotations", key)

    def compose_exec(self) -> bool:
        """A compose service's command that no shell runs (not `sh -c`): compose leaves its
        `$(NAME)` as written (kvplan.check.manifests.compose_words)."""
        return self.site.kind == "compose service" and not self.shell

    def find_server(self) -> bool:
        for c, at in self.site.containers:
            inv, shell = find_invocation(c, self.doc, at)
            if inv is not None:
                self.inv, self.container, self.c_at, self.shell = inv, c, at, shell
                self.envs = container_env(c, self.path, self.doc)  # envFrom, then env
                self.env = dict(self.envs.values)
                self.notes.extend(self.envs.notes)
                if not self.compose_exec():  # compose hands `$(NAME)` on as text (readfix)
                    said, self.escaped = expand_words(inv.words, self.env, shell,
                                                      self.site.kind not in NOT_KUBERNETES)
                    self.notes.extend(said)  # `$$(VAR)`: the text `$(VAR)` (task h91readers2)
                self.notes.extend(n for n in [wrapper_note(c, self.doc, at, inv)] if n)
                return True
        return False

    def engine(self) -> None:
        """Server options, as the engine parses them, translated to kvplan/v1 engine fields."""
        inv = self.inv
        assert inv is not None
        refused = self.envs.refusals(inv, self.shell, self.doc.line(*self.c_at, "envFrom"),
                                     self.escaped)
        if refused:  # `$(MAX_MODEL_LEN)` from a ConfigMap not among the files (env_from)
            self.problems += refused
            return
        literal = literal_words([w.text for w in inv.words]) if self.compose_exec() else []
        if literal:  # `$(NAME)` in a compose command no shell runs: the server gets the text
            self.problem("", literal_problem(literal[0]),
                         next(w.line for w in inv.words if w.text == literal[0]))
        if self.shell and (built := script_built_word(inv, self.container)) is not None:
            self.problem("", script_built_message(built[0].text, built[1]), built[0].line)
            return
        bad = [w for w in inv.words if unrendered(w.text)]
        noted: set[str] = set()
        if bad and self.shell:  # ${VAR} the shell expands at run time, in an option not read
            from kvplan.check.manifests.shell_runtime import runtime_only

            bad, said, noted = runtime_only(inv, parse(inv), bad)
            self.notes.extend(said)
        if bad:
            named = {str(e.get("name")) for e in self.container.get("env") or []
                     if isinstance(e, dict)}  # valueFrom entries too: $(VAR) expands them
            self.problem("", _unrendered_words(bad[0].text, self.shell, named), bad[0].line)
            return
        found = self.found
        image = str(self.container.get("image", ""))
        from kvplan.check.manifests.container_pins import read_release

        read_release(self, inv.engine, image)  # a pip install's pin: the script's, the container's
        unnamed, templated = _read_image(image, inv.engine, self.site.image_names_engine, found,
                                         self.notes)
        from kvplan.check.manifests.release_options import option_flags, option_multi

        # parsed as the stated release's argparse parses it (its own options, task h70sglkw;
        # its own multi-value ones, task h71sglfix)
        stated = (found.values.get("engine.version"),
                  self.site.release_unknown or templated or unnamed)
        parsed = parse(inv, option_flags(inv.engine, *stated), option_multi(inv.engine, *stated))
        self.files = (self.site.files if self.site.files is not None
                      else pod_files(self.site.pod, self.container))
        read_options(inv, parsed, found, self.problems, self.refusals, self.notes,
                     strict=not self.site.lenient, manifest=self.path, script=self.files,
                     release_unknown=self.site.release_unknown or templated or unnamed,
                     noted=frozenset(noted),
                     pods=SCRIPT if self.site.kind in ("shell command", "docker run")
                     else self.site.pods_per_engine)
        from kvplan.check.manifests.engine_readers import READERS

        READERS[inv.engine](self, parsed, image)
        quant = found.values.pop("quantization", None)
        quant_line = found.lines.pop("quantization", None)
        if quant is not None and str(quant).lower() == "fp8":
            found.put("engine.weight_dtype", "fp8", quant_line or 0, "--quantization")
        elif quant is not None:
            method = str(quant).lower().removesuffix("_marlin")
            hint = (" (`kvplan import` of the checkpoint's config.json writes one with its "
                    f"{method} layout)" if method in ("awq", "gptq") else "")
            self.problem("--quantization", f"{quant!r} weights are not modelled from the flag "
                         "alone; set kvplan.io/model to a spec with the quantized weight dtype"
                         f"{hint}", quant_line)
        if found.values.get("engine.weight_dtype") == "auto":
            found.values.pop("engine.weight_dtype")
        # the cache dtype stays as written (fp8_e4m3 reads as fp8, kvplan.units): the release
        # checks the spelling (kvplan.engines.kv_spelling; task kvspell)
        draft_kv = found.values.pop("draft_kv_dtype", None)
        draft_line = found.lines.pop("draft_kv_dtype", None)
        if draft_kv is not None:
            from kvplan.engines.sglang_kv_dtype import DRAFT_OPTION, draft_kv_dtype

            kv = found.values.get("engine.kv_cache_dtype")
            drafting = found.values.get("engine.speculative_algorithm") is not None
            kind, words = draft_kv_dtype(str(draft_kv), None if kv is None else str(kv), drafting)
            if kind == "argparse":
                from kvplan.check.manifests.engine import Refusal

                self.refusals.append(Refusal(DRAFT_OPTION, words, draft_line))
            elif kind == "not modelled":
                self.problem(DRAFT_OPTION, words, draft_line)
            else:
                self.notes.append(words)
        self.dp = int(found.values.pop("dp", 1) or 1)
        dp_line = found.lines.pop("dp", None)
        local = found.values.pop("dp_local", None)
        found.lines.pop("dp_local", None)
        if local is not None and int(local) < self.dp:  # ranks spread over the group's pods
            self.dp, self.dp_spread = max(int(local), 1), True
            self.notes.append(f"{self.dp} data-parallel rank(s) per pod "
                              "(--data-parallel-size-local)")
        elif (dp_flag := traits(inv.engine).dp_attention_flag) is not None and (
                found.values.get("attn_dp") is not None or (
                    self.dp > 1 and any(w.text == dp_flag for w in inv.words))):
            from kvplan.check.manifests.dp_attention import read_dp_attention

            attn = read_dp_attention(found, self.dp, any(
                w.text == dp_flag for w in inv.words), self.notes, self.refusals)
            assert attn is not None
            self.dp, self.attention_dp, self.attention_flag = attn.dp, attn.attention_dp, attn.flag
            if self.dp > 1:
                self.notes.append(f"{self.dp} data-parallel engines per pod")
        elif dp_line is not None and self.dp > 1:
            self.notes.append(f"{self.dp} data-parallel engines per pod")
        found.values.pop("attn_dp", None)
        found.values.setdefault("engine.name", inv.engine)
        for key, (value, line, what) in self.site.stated.items():
            if key not in found.values:
                found.put(key, value, line, what)

    def read_annotations(self) -> None:
        for key, value in self.annotations.items():
            if not str(key).startswith(ANNOTATION_PREFIX):
                continue
            short = str(key)[len(ANNOTATION_PREFIX):]
            if short in (SKIP_ANNOTATION, "gpu"):
                continue
            if short not in ANNOTATIONS:
                hint = suggest(short, ANNOTATIONS)
                self.problem(str(key), f"unknown kvplan annotation{hint}", self.ann_line(str(key)))
                continue
            self.found.put(ANNOTATIONS[short], value, self.ann_line(str(key)), str(key))
