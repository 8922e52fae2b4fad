"""KServe LLMInferenceService (serving.kserve.io/v1alpha1, v1alpha2): the controller merges
spec.template over its well-known preset and runs, in the container named `main` (source:
kserve/kserve config/llmisvcconfig/config-llm-template.yaml at aaac4e29):

    vllm serve /mnt/models --served-model-name <spec.model.name> --port 8000
        [--tensor-parallel-size <spec.parallelism.tensor>] ${VLLM_ADDITIONAL_ARGS} <args>

spec.model.uri is the weights (`hf://<id>` names the model; pvc:// or s3:// leave it to
spec.model.name), spec.replicas the pods (default 1), spec.worker makes it multi-node (the
worker-data-parallel preset: --data-parallel-size <data> --data-parallel-size-local
<dataLocal>, data/dataLocal pods a group), spec.prefill a second workload (P/D), read the same
way. A `command` of the user's own replaces the preset's.
"""

from __future__ import annotations

import shlex
from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("LLMInferenceService",)
SCHEMA = "KServe LLMInferenceService CRD, serving.kserve.io"
PRESET_IMAGE = "ghcr.io/llm-d/llm-d-cuda:v0.9.0"  # config-llm-template.yaml at aaac4e29
# spec.runtime kserve-llm-sglang selects config/llmisvcconfig/config-sglang-template.yaml (at
# 26da5794): bash -c 'python3 -m sglang.launch_server --model-path /mnt/models
# --served-model-name <spec.model.name> --port 8000 --host 0.0.0.0 [--tp <parallelism.tensor>]
# [--trust-remote-code] "$@"' -- <args>; the image from the ClusterServingRuntime
# config/runtimes/kserve-llm-sglang.yaml (at 9bee78fb). Single-node, no P/D, no worker.
SGLANG_RUNTIME = "kserve-llm-sglang"
SGLANG_IMAGE = "lmsysorg/sglang:v0.5.14"
PARALLELISM = {"tensor", "pipeline", "data", "dataLocal", "dataRPCPort", "expert"}


def _main(pod: dict[str, Any], at: Key) -> tuple[dict[str, Any], Key]:
    items: list[Any] = pod["containers"] if isinstance(pod.get("containers"), list) else []
    for i, c in enumerate(items):
        if isinstance(c, dict) and c.get("name") == "main":
            return c, (*at, "containers", i)
    return {}, (*at, "containers", 0)


def _workload(spec: dict[str, Any], at: Key, model: dict[str, Any], doc: Doc, kind: str,
              role: str | None, group: int, meta_name: str | None) -> PodSite:
    bad: list[Problem] = []
    pod = typed(spec, "template", at, doc, bad, SCHEMA)
    pod_at: Key = (*at, "template")
    main, c_at = _main(pod, pod_at)
    par = typed(spec, "parallelism", at, doc, bad, SCHEMA)
    par_at: Key = (*at, "parallelism")
    problems = bad + [Problem(f"parallelism.{k}", f"not an LLMInferenceService parallelism field "
                        f"({', '.join(sorted(PARALLELISM))}): the controller rejects it",
                        doc.line(*par_at, k)) for k in par if k not in PARALLELISM]
    uri = str(model.get("uri", ""))
    served = str(model.get("name") or meta_name or "")
    words: list[tuple[str, int]] = []
    lines: dict[Key, int] = {}
    notes: list[str] = []
    replicas: Any = spec.get("replicas", 1)
    replicas_at: Key | None = (*at, "replicas") if "replicas" in spec else None
    scaling = typed(spec, "scaling", at, doc, problems, SCHEMA)
    if "replicas" not in spec and "minReplicas" in scaling:
        replicas, replicas_at = scaling["minReplicas"], (*at, "scaling", "minReplicas")
        notes.append("checked at scaling.minReplicas (the autoscaler scales up from there)")
    per_engine = 1
    runtime = spec.get("runtime")
    _speculation(spec, at, doc, problems, notes)
    if "command" in main:
        container = main
    elif runtime == SGLANG_RUNTIME:
        container, lines = _sglang(spec, at, main, c_at, par, par_at, uri, served, doc, problems,
                                   notes)
    elif runtime is not None:
        problems.append(Problem("runtime", f"spec.runtime {runtime!r}: kvplan reads the default "
                                f"preset (vLLM) and {SGLANG_RUNTIME} only", doc.line(*at, "runtime")))
        container = main
    else:
        model_word = uri if uri.startswith("hf://") else "/mnt/models"
        words = [("vllm", doc.line(*at)), ("serve", doc.line(*at)),
                 (model_word, doc.line("spec", "model", "uri")),
                 ("--served-model-name", doc.line("spec", "model", "name")),
                 (served, doc.line("spec", "model", "name"))]
        if isinstance(par.get("tensor"), int):
            words += [("--tensor-parallel-size", doc.line(*par_at, "tensor")),
                      (str(par["tensor"]), doc.line(*par_at, "tensor"))]
        if "worker" in spec:
            data, local = par.get("data"), par.get("dataLocal")
            if isinstance(data, int) or isinstance(local, int):
                lo = local if isinstance(local, int) else 1
                d = data if isinstance(data, int) else lo
                words += [("--data-parallel-size", doc.line(*par_at)), (str(d), doc.line(*par_at)),
                          ("--data-parallel-size-local", doc.line(*par_at)),
                          (str(lo), doc.line(*par_at))]
                per_engine = max(d // max(lo, 1), 1)
                notes.append(f"multi-node data parallel: {per_engine} pod(s) a group, {lo} "
                             "rank(s) a pod (kserve-config-llm-worker-data-parallel)")
            elif isinstance(par.get("pipeline"), int):
                words += [("--pipeline-parallel-size", doc.line(*par_at, "pipeline")),
                          (str(par["pipeline"]), doc.line(*par_at, "pipeline"))]
                per_engine = par["pipeline"]
            else:
                problems.append(Problem("worker", "spec.worker without parallelism.data, "
                                        "dataLocal or pipeline: the controller has no "
                                        "multi-node preset for it", doc.line(*at, "worker")))
        env: list[Any] = main["env"] if isinstance(main.get("env"), list) else []
        for i, e in enumerate(env):
            if isinstance(e, dict) and e.get("name") == "VLLM_ADDITIONAL_ARGS":
                line = doc.line(*c_at, "env", i, "value")
                if "{{" in str(e.get("value", "")) or "${" in str(e.get("value", "")):
                    words.append((str(e.get("value")), line))  # reported whole: render first
                    continue
                try:
                    extra = shlex.split(str(e.get("value", "")))
                except ValueError:
                    extra = str(e.get("value", "")).split()
                words += [(w, line) for w in extra]
        args: list[Any] = main["args"] if isinstance(main.get("args"), list) else []
        words += [(str(a), doc.line(*c_at, "args", j)) for j, a in enumerate(args)]
        container = {**main, "command": [w for w, _ in words],
                     "image": main.get("image") or PRESET_IMAGE}
        lines = {c_at + ("command", k): line for k, (_, line) in enumerate(words)}
        if not main.get("image"):
            notes.append(f"image from the KServe preset ({PRESET_IMAGE})")
    refs = typed(spec, "baseRefs", at, doc, problems, SCHEMA, list)  # a number: exit 3 before
    if refs:
        names = ", ".join(str(as_dict(r).get("name")) for r in refs)
        notes.append(f"spec.baseRefs {names}: LLMInferenceServiceConfigs kvplan does not read "
                     "(a command or args they set are not checked)")
    site = PodSite(kind, pod, pod_at, [(container, c_at)], replicas, replicas_at, per_engine,
                   lenient=True, group=group, name=role, lines=lines, problems=problems,
                   notes=notes, line_at=at if role else None)
    return site


def _speculation(spec: dict[str, Any], at: Key, doc: Doc, problems: list[Problem],
                 notes: list[str]) -> None:
    """spec.speculator / spec.speculativeDecoding (v1alpha2 samples): n-gram lookup adds no
    model; a draft model the controller adds is refused by name (its rendering was not read)."""
    for key in ("speculator", "speculativeDecoding"):
        if key not in spec:
            continue
        block = as_dict(spec[key])
        method = block.get("method") or as_dict(block.get("config")).get("method")
        if str(method).lower() == "ngram":
            notes.append(f"spec.{key}: n-gram speculation (prompt lookup) loads no draft model")
            continue
        problems.append(Problem(key, f"spec.{key} (method {method}): the controller adds a "
                                "speculative model kvplan does not read from this field; state it "
                                "as --speculative-config in VLLM_ADDITIONAL_ARGS or args to have "
                                "its weights and KV cache sized", doc.line(*at, key)))


def _sglang(spec: dict[str, Any], at: Key, main: dict[str, Any], c_at: Key,
            par: dict[str, Any], par_at: Key, uri: str, served: str, doc: Doc,
            problems: list[Problem], notes: list[str]) -> tuple[dict[str, Any], dict[Key, int]]:
    """The kserve-llm-sglang preset's command (SGLANG_RUNTIME above)."""
    top = doc.line(*at)
    words = [("python3", top), ("-m", top), ("sglang.launch_server", top),
             ("--model-path", doc.line("spec", "model", "uri")),
             (uri if uri.startswith("hf://") else "/mnt/models", doc.line("spec", "model", "uri")),
             ("--served-model-name", doc.line("spec", "model", "name")),
             (served, doc.line("spec", "model", "name")),
             ("--port", top), ("8000", top), ("--host", top), ("0.0.0.0", top)]
    if isinstance(par.get("tensor"), int):
        words += [("--tp", doc.line(*par_at, "tensor")), (str(par["tensor"]),
                                                          doc.line(*par_at, "tensor"))]
    if spec.get("trustRemoteCode") is True:
        words.append(("--trust-remote-code", doc.line(*at, "trustRemoteCode")))
    args: list[Any] = main["args"] if isinstance(main.get("args"), list) else []
    words += [(str(a), doc.line(*c_at, "args", j)) for j, a in enumerate(args)]
    if "worker" in spec or "prefill" in spec:
        problems.append(Problem("runtime", f"{SGLANG_RUNTIME}: KServe's SGLang preset is "
                                "single-node without prefill/decode (no worker or prefill "
                                "template)", doc.line(*at, "runtime")))
    if not main.get("image"):
        notes.append(f"image from the {SGLANG_RUNTIME} ClusterServingRuntime ({SGLANG_IMAGE})")
    container = {**main, "command": [w for w, _ in words],
                 "image": main.get("image") or SGLANG_IMAGE}
    return container, {c_at + ("command", k): line for k, (_, line) in enumerate(words)}


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    spec = typed(data, "spec", (), doc, bad, SCHEMA)
    model = typed(spec, "model", ("spec",), doc, bad, SCHEMA)
    meta_name = as_dict(data.get("metadata")).get("name")
    kind = str(data.get("kind"))
    if "prefill" not in spec:
        out = [_workload(spec, ("spec",), model, doc, kind, None, 0, meta_name)]
    else:
        base = str(meta_name or "llmisvc")
        prefill = typed(spec, "prefill", ("spec",), doc, bad, SCHEMA)
        out = [_workload(spec, ("spec",), model, doc, kind, f"{base} decode", 0, meta_name),
               _workload(prefill, ("spec", "prefill"), model, doc, kind, f"{base} prefill", 1,
                         meta_name)]
    out[0].problems = [*bad, *out[0].problems]  # the model or a role of the wrong type: named
    return out
