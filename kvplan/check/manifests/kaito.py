"""KAITO (kaito.sh) Workspace and InferenceSet: the KAITO operator renders one StatefulSet a
Workspace whose pod runs KAITO's vLLM server. Every mapping below is from kaito-project/kaito at
commit 056b8280b1a8debf644bc6f4399e913a1f9c7e70 (the tables and the arithmetic:
kvplan.check.manifests.kaito_tables; the ConfigMap: kvplan.check.manifests.kaito_run, which
finds it, and kaito_config, which reads its options):

- api/v1beta1/workspace_types.go: `resource` (instanceType, count (deprecated), labelSelector,
  preferredNodes (deprecated), partition) and `inference` (preset.name, preset.presetOptions,
  template, config, adapters) are top-level fields of the Workspace (no `spec`); a Workspace
  with `tuning` is a fine-tuning job, no server. api/v1alpha1/inferenceset_types.go: an
  InferenceSet makes spec.replicas (default 1) Workspaces of spec.template (resource.instanceType,
  inference).
- api/v1beta1/labels.go `GetWorkspaceRuntimeName`: vLLM unless the annotation kaito.sh/runtime
  is `transformers`.
- pkg/workspace/inference/preset_inferences.go `GenerateInferencePodSpec`: the pod requests the
  SKU's GPUCount nvidia.com/gpu; its command is pkg/model/interface.go
  `buildVLLMInferenceCommand`: `python3 /workspace/vllm/inference_api.py` (KAITO's wrapper of
  vLLM's OpenAI server, presets/workspace/models/metadata.go DefaultVLLMCommand) with --model
  (the preset's repository), --served-model-name, --max-model-len=auto,
  --gpu-memory-utilization, --tensor-parallel-size / --data-parallel-size /
  --pipeline-parallel-size (configureParallelism), --enable-lora with adapters,
  --performance-mode from kaito.sh/performance-mode, --kaito-config-file for inference.config;
  presets/workspace/models/vllm_model.go `GetInferenceParameters`: --trust-remote-code, --dtype
  bfloat16 (auto for a quantized model).
- presets/workspace/inference/vllm/inference_api.py: the ConfigMap's `vllm:` keys are appended
  after that command as `--KEY VALUE` (the later option wins); max_probe_steps and
  kv_cache_cpu_memory_utilization are KAITO's own.
- presets/workspace/dependencies/requirements.txt: vllm==0.25.1 in the base image
  (supported_models.yaml `base`, tag 0.5.0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.manifests.kaito_config import KAITO_VLLM, boolean_notes, config_options, dashed
from kvplan.check.manifests.kaito_tables import SOURCE, Preset, Sku, node_count, presets, skus
from kvplan.check.manifests.pods import PodSite, as_dict, template_site
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("Workspace", "InferenceSet")
ENGINE = KAITO_VLLM
GROUP = "kaito.sh"
SCHEMA = "KAITO Workspace (kaito.sh)"
VLLM = ("0.25.1", "vLLM 0.25.1: KAITO's base image mcr.microsoft.com/aks/kaito/kaito-base:0.5.0 "
        "(presets/workspace/dependencies/requirements.txt vllm==0.25.1)")


def sites(data: dict[str, Any], doc: Doc, path: Path | None = None) -> list[PodSite]:
    kind = str(data.get("kind"))
    meta = as_dict(data.get("metadata"))
    name = str(meta.get("name", "workspace"))
    ann = as_dict(meta.get("annotations"))
    if kind == "InferenceSet":
        problems: list[Problem] = []
        spec = typed(data, "spec", (), doc, problems, "KAITO InferenceSet (kaito.sh)")
        body = typed(spec, "template", ("spec",), doc, problems, "KAITO InferenceSet (kaito.sh)")
        replicas = spec.get("replicas", 1)
        site = _workspace(body, ("spec", "template"), doc, name,
                          {**ann, **as_dict(as_dict(body.get("metadata")).get("annotations"))},
                          path)
        if site is None:
            return []
        site.problems = [*problems, *site.problems]
        site.replicas = replicas
        site.replicas_at = ("spec", "replicas") if "replicas" in spec else None
        site.notes.append(f"an InferenceSet: {replicas} Workspace(s) of its template"
                          + ("" if "replicas" in spec else " (spec.replicas' default)"))
        others = sorted(str(k) for k in spec if k not in ("replicas", "template"))
        if others:
            site.notes.append(f"spec {', '.join(others)}: where and how the Workspaces roll "
                              "out (no memory)")
        if any(str(k).startswith("scaledobject.kaito.sh/") for k in ann):
            site.notes.append("scaledobject.kaito.sh annotations: KEDA scales the Workspaces; "
                              f"checked at spec.replicas ({replicas})")
        return [site]
    if "spec" in data and not ({"resource", "inference", "tuning"} & set(data)):
        return [PodSite("Workspace", {}, (), [], problems=[Problem(
            "spec", "a KAITO Workspace has no spec: resource and inference are top-level fields "
            "(kaito.sh Workspace); the API server drops `spec`, so KAITO sees no model. Move "
            "resource and inference out of spec", doc.line("spec") or doc.start_line)])]
    site = _workspace(data, (), doc, name, ann, path)
    return [] if site is None else [site]


def _workspace(body: dict[str, Any], at: Key, doc: Doc, name: str,
               ann: dict[str, Any], path: Path | None) -> PodSite | None:
    """One Workspace's pod site; None for a tuning Workspace (a fine-tuning job, no server)."""
    problems: list[Problem] = []
    if "tuning" in body and "inference" not in body:
        return None
    inference = typed(body, "inference", at, doc, problems, SCHEMA)
    resource = typed(body, "resource", at, doc, problems, SCHEMA)
    i_at: Key = (*at, "inference")
    r_at: Key = (*at, "resource")
    notes: list[str] = [f"KAITO renders the pod: its command, GPUs and vLLM release are read "
                        f"from the Workspace and KAITO's source ({SOURCE})"]
    runtime = str(ann.get("kaito.sh/runtime", KAITO_VLLM))
    if runtime == "transformers":
        return _refused(at, doc, "kaito.sh/runtime", "kaito.sh/runtime: transformers runs "
                        "KAITO's Hugging Face transformers server (accelerate launch "
                        "inference_api.py), not vLLM; kvplan checks KAITO's vLLM runtime only: "
                        "remove the annotation to run vLLM, or check it with kvplan fit "
                        "--engine transformers", doc.line("metadata", "annotations"))
    if runtime != KAITO_VLLM:
        notes.append(f"kaito.sh/runtime {runtime!r} is neither vllm nor transformers: KAITO "
                     "runs vLLM (labels.go GetWorkspaceRuntimeName)")
    _unknown_keys(body, inference, resource, notes)
    sku, sku_problem = _sku(resource, r_at, doc)
    if sku_problem is not None:
        problems.append(sku_problem)
    _resource_notes(resource, notes)
    if "template" in inference:  # a custom pod: read as any pod, on the SKU's GPUs
        site = template_site(inference, i_at, "Workspace", 1, None, doc)
        site.problems = [*problems, *site.problems]
        site.notes = [*notes, *site.notes]
        if sku is not None and sku.catalog_gpu is not None:
            site.gpu = (sku.catalog_gpu, f"resource.instanceType {sku.name}")
        return site
    preset_block = typed(inference, "preset", i_at, doc, problems, SCHEMA)
    p_at: Key = (*i_at, "preset")
    preset_name = str(preset_block.get("name", "")).strip()
    p_line = doc.line(*p_at, "name") or doc.line(*i_at) or doc.start_line
    if not preset_name:
        problems.append(Problem("inference.preset.name", "no preset model named (and no "
                                "inference.template): KAITO has nothing to run", p_line))
        return PodSite("Workspace", {}, at, [], problems=problems)
    preset = presets().get(preset_name.lower())
    if preset is None and "/" not in preset_name:
        problems.append(Problem("inference.preset.name", f"{preset_name!r} is not one of KAITO's "
                                f"preset models ({SOURCE}: presets/workspace/models/"
                                "model_catalog.yaml, pkg/utils/plugin/plugin.go "
                                "LegacyBuiltinToCatalog); name a preset or a Hugging Face "
                                "repository (org/name)", p_line))
        return PodSite("Workspace", {}, at, [], problems=problems)
    hf_id = preset.hf_id if preset is not None else preset_name
    if preset is None:
        notes.append(f"{preset_name} is not in KAITO's catalog: KAITO reads its size from the "
                     "Hub at run time, so kvplan runs it on one node at tensor parallel = the "
                     "SKU's GPUs (no data parallel)")
    cm, cm_problem, vllm_args, cm_notes = config_options(inference, i_at, doc, path)
    notes.extend(cm_notes)
    if cm_problem is not None:
        problems.append(cm_problem)
    if problems and sku is None:
        return PodSite("Workspace", {}, at, [], problems=problems)
    try:
        words, lines = _command(preset_name, hf_id, preset, sku, doc, p_line, r_at, i_at, ann,
                                inference, vllm_args, notes)
    except Refused as why:
        problems.append(Problem("resource.instanceType", str(why),
                                doc.line(*r_at, "instanceType") or p_line))
        return PodSite("Workspace", {}, at, [], problems=problems)
    boolean_notes(vllm_args, notes)
    gpus = sku.gpus if sku is not None else 1
    nodes = next((int(w.split("=", 1)[1]) for w, _ in words
                  if w.startswith("--pipeline-parallel-size=")), 1)
    # no image: KAITO's base image tag is its own release; vLLM's is VLLM (site.releases)
    container: dict[str, Any] = {"command": [w for w, _ in words],
                                 "resources": {"limits": {"nvidia.com/gpu": gpus}}}
    c_at: Key = (*at, "__container__")
    site_lines: dict[Key, int] = {c_at + ("command", k): line or doc.start_line
                                  for k, line in enumerate(lines)}
    site_lines[c_at + ("resources", "limits", "nvidia.com/gpu")] = (
        doc.line(*r_at, "instanceType") or doc.start_line)
    site = PodSite("Workspace", {"containers": [container]}, at, [(container, c_at)],
                   lines=site_lines, problems=problems, notes=notes, image_names_engine=False,
                   releases={ENGINE: VLLM}, pods_per_engine=nodes)
    site.max_model_len_auto = not any(dashed(w).startswith("--max-model-len") for w, _ in words)
    if sku is not None and sku.catalog_gpu is not None:
        site.gpu = (sku.catalog_gpu, f"resource.instanceType {sku.name}")
    return site


class Refused(Exception):
    """What KAITO's controller itself refuses (its node estimator): the Workspace's ERROR."""


def _refused(at: Key, doc: Doc, field: str, why: str, line: int | None) -> PodSite:
    return PodSite("Workspace", {}, at, [], problems=[Problem(field, why,
                                                              line or doc.start_line)])


def _sku(resource: dict[str, Any], r_at: Key, doc: Doc) -> tuple[Sku | None, Problem | None]:
    line = doc.line(*r_at, "instanceType") or doc.line(*r_at) or doc.start_line
    partition = as_dict(resource.get("partition"))
    if partition:
        mode = partition.get("mode")
        return None, Problem("resource.partition", f"partition mode {mode!r}: KAITO takes the "
                             "GPUs from the labels of the cluster's own nodes (no instanceType), "
                             "which the file does not show; check the rendered StatefulSet "
                             "(kubectl get statefulset -o yaml)",
                             doc.line(*r_at, "partition") or line)
    sku_name = str(resource.get("instanceType", "")).strip()
    table = skus()
    if not sku_name:
        return None, Problem("resource.instanceType", "no instanceType: KAITO then runs on the "
                             "nodes labelSelector picks (bring your own nodes), whose GPUs the "
                             "file does not show; set instanceType to one of KAITO's SKUs",
                             line)
    sku = table.get(sku_name)
    if sku is None:
        return None, Problem("resource.instanceType", f"{sku_name!r} is not one of KAITO's "
                             f"Azure GPU SKUs ({SOURCE}: pkg/sku/azure_sku_handler.go, stored in "
                             "kvplan/check/kaito_skus.tsv), so kvplan cannot tell its GPUs; use "
                             f"one of {', '.join(sorted(table))}", line)
    if sku.catalog_gpu is None:
        return None, Problem("resource.instanceType", f"{sku_name}'s GPU ({sku.kaito_model}) is "
                             "not in kvplan's GPU catalog (`kvplan gpus`); no card to plan it "
                             "on", line)
    return sku, None


# the fields of api/v1beta1/workspace_types.go (Workspace, ResourceSpec, InferenceSpec) and of
# api/v1alpha1/inferenceset_types.go's template
FIELDS = {"apiVersion", "kind", "metadata", "resource", "inference", "tuning", "status"}
INFERENCE_FIELDS = {"preset", "template", "config", "adapters"}
RESOURCE_FIELDS = {"count", "instanceType", "labelSelector", "preferredNodes", "partition"}


def _unknown_keys(body: dict[str, Any], inference: dict[str, Any], resource: dict[str, Any],
                  notes: list[str]) -> None:
    for block, known, where in ((body, FIELDS, ""), (inference, INFERENCE_FIELDS, "inference."),
                                (resource, RESOURCE_FIELDS, "resource.")):
        extra = sorted(str(k) for k in block if k not in known)
        if extra:
            notes.append(f"{', '.join(where + k for k in extra)}: not a field of KAITO's "
                         f"Workspace ({SOURCE}, api/v1beta1/workspace_types.go): the API server "
                         "drops it")


def _resource_notes(resource: dict[str, Any], notes: list[str]) -> None:
    if "count" in resource:
        notes.append(f"resource.count {resource['count']}: deprecated; for the vLLM runtime "
                     "KAITO's node estimator sets the nodes (workspace_controller.go "
                     "UpdateWorkspaceTargetNodeCount)")
    if resource.get("preferredNodes"):
        notes.append("resource.preferredNodes: deprecated, where the pods go (no memory)")
    if "labelSelector" in resource:
        notes.append("resource.labelSelector: the nodes' labels, no GPU model: the GPU is "
                     "instanceType's")


def _command(preset_name: str, hf_id: str, preset: Preset | None, sku: Sku | None, doc: Doc,
             p_line: int, r_at: Key, i_at: Key, ann: dict[str, Any], inference: dict[str, Any],
             vllm_args: list[tuple[str, str, int | None]], notes: list[str]
             ) -> tuple[list[tuple[str, int | None]], list[int | None]]:
    """The words of the vLLM command KAITO writes, each with its line."""
    s_line = doc.line(*r_at, "instanceType") or p_line
    words: list[tuple[str, int | None]] = [
        ("python3", p_line), ("-m", p_line), ("vllm.entrypoints.openai.api_server", p_line),
        (f"--model={hf_id}", p_line), (f"--served-model-name={preset_name}", p_line),
        ("--trust-remote-code", p_line),
        (f"--dtype={'auto' if preset is not None and preset.quant else 'bfloat16'}", p_line)]
    if sku is not None:
        words.append((f"--gpu-memory-utilization={sku.utilization}", s_line))
        own = next((v for f, v, _ in vllm_args if dashed(f) == "--gpu-memory-utilization"),
                   None)
        notes.append(f"--gpu-memory-utilization {sku.utilization}: KAITO's for {sku.kaito_model} "
                     "(interface.go)" + ("" if own is None else
                                         f"; the ConfigMap's {own} comes later and wins"))
        words.extend(_parallel(preset, sku, vllm_args, s_line, notes))
    if inference.get("adapters"):
        words.append(("--enable-lora", doc.line(*i_at, "adapters")))
    mode = str(ann.get("kaito.sh/performance-mode", "balanced"))
    if mode != "balanced":
        words.append((f"--performance-mode={mode}", doc.line("metadata", "annotations")))
    options = as_dict(as_dict(inference.get("preset")).get("presetOptions"))
    if options:
        notes.append(f"presetOptions ({', '.join(sorted(options))}): access to the weights, no "
                     "memory")
    if preset is not None and preset.formats:
        notes.append("KAITO also passes " + ", ".join(f"{k} {v}" for k, v in preset.formats)
                     + " (how the weights are read, no memory)")
    for flag, value, line in vllm_args:
        words.append((flag, line))
        words.append((value, line))
    notes.append("KAITO runs python3 /workspace/vllm/inference_api.py, its wrapper of vLLM's "
                 "OpenAI server: read as that server with the options KAITO passes")
    if not any(dashed(f) == "--max-model-len" for f, _, _ in vllm_args):
        notes.append("--max-model-len=auto (KAITO's default): vLLM starts with the longest "
                     "context the KV pool holds, up to the model's own")
    return words, [line for _, line in words]


def _parallel(preset: Preset | None, sku: Sku, vllm_args: list[tuple[str, str, int | None]],
              line: int | None, notes: list[str]) -> list[tuple[str, int | None]]:
    """configureParallelism on the nodes KAITO's estimator picks."""
    if preset is None:
        return [(f"--tensor-parallel-size={sku.gpus}", line)]
    from kvplan.check.manifests.kaito_tables import data_parallel

    context = next((int(v) for f, v, _ in vllm_args
                    if dashed(f) == "--max-model-len" and v.isdigit()), None)
    nodes, said = node_count(preset, sku, context)
    if nodes == 0:  # estimator.go returns an error: the Workspace never gets its nodes
        raise Refused(said + "; KAITO never starts it: pick a SKU with more GPU memory, or a "
                      "shorter max-model-len in the ConfigMap")
    notes.append(said)
    if nodes > 1:
        return [(f"--tensor-parallel-size={sku.gpus}", line),
                (f"--pipeline-parallel-size={nodes}", line),
                ("--distributed-executor-backend=ray", line)]
    if data_parallel(preset, sku):
        notes.append(f"data parallel: modelFileSize x {sku.gpus} GPUs x 2 is below the node's "
                     f"{sku.gpu_mem_bytes // (1 << 30)} GiB (interface.go modelFitsOnSingleGPU)")
        return [(f"--data-parallel-size={sku.gpus}", line), ("--tensor-parallel-size=1", line)]
    notes.append("KAITO's LMCache CPU offload (inference_api.py: kv_cache_cpu_memory_utilization "
                 "0.5 unless the ConfigMap sets it; interface.go turns it off for data and "
                 "pipeline parallel and a few architectures): a host-memory tier behind the GPU "
                 "pool, not modelled")
    return [(f"--tensor-parallel-size={sku.gpus}", line)]
