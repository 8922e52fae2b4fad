"""KubeRay RayService running Ray Serve LLM (ray.serve.llm build_openai_app /
build_llm_deployment / build_pd_openai_app): each LLMConfig in spec.serveConfigV2 is one vLLM
engine per replica (ray-project/ray python/ray/llm/_internal/serve/core/configs/llm_config.py
and engines/vllm/vllm_models.py):

- model_loading_config.model_source (a Hugging Face id; default model_id) is the model,
  model_id the served name;
- engine_kwargs are vLLM's engine arguments (an unknown one: Ray raises "Unknown engine
  argument"), read as `vllm serve` options;
- a replica takes tensor_parallel_size x pipeline_parallel_size GPUs (one placement-group
  bundle of GPU 1 each; a fractional GPU is refused);
- deployment_config.num_replicas, else autoscaling_config min_replicas (Ray Serve's default 1)
  replicas, on the Ray cluster of spec.rayClusterConfig (checked at its worker groups' GPUs);
- accelerator_type names the GPU (Ray's accelerator types), else the GPU worker group's node
  labels.

The ray-llm image tag is Ray's release; the vLLM release in it is not named, so the vLLM
profile's default version is used and options the newest option table lacks are noted.
"""

from __future__ import annotations

import json
from typing import Any

from kvplan.check.argv import TABLES
from kvplan.check.gpus import RAY_ACCELERATOR
from kvplan.check.manifests import raycluster
from kvplan.check.manifests.pods import PodSite, as_dict
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import DeploymentError, Problem
from kvplan.deploy.yamldoc import Doc, Key, iter_docs

KINDS = ("RayService",)
SCHEMA = "Ray Serve LLM config, in spec.serveConfigV2"
LLM_APPS = ("ray.serve.llm:build_openai_app", "ray.serve.llm:build_llm_deployment",
            "ray.serve.llm:build_pd_openai_app")
LLM_CONFIG_KEYS = {
    "runtime_env", "model_loading_config", "llm_engine", "engine_kwargs", "accelerator_type",
    "placement_group_config", "lora_config", "deployment_config", "experimental_configs",
    "log_engine_metrics", "callback_config", "use_cpu",
}
# ModelLoadingConfig's fields (llm_config.py: model_id, model_source, tokenizer_source; newer
# releases add trust_remote_code); another key there is not read by kvplan, named in a note
LOADING_KEYS = {"model_id", "model_source", "tokenizer_source", "trust_remote_code"}


def kwargs_words(kwargs: dict[str, Any]) -> list[tuple[str, str | None]]:
    """engine_kwargs as `vllm serve` words: (flag, value or None for a switch). Ray matches
    keys to AsyncEngineArgs / FrontendArgs fields by exact name (no argparse prefixes); a key
    the option table lacks is left out here and noted by the caller."""
    table = TABLES["vllm"][0]
    out: list[tuple[str, str | None]] = []
    for key, value in kwargs.items():
        flag = "--" + str(key).replace("_", "-")
        if flag not in table:
            continue
        if value is True:
            out.append((flag, None))
        elif value is False:
            if "--no-" + flag[2:] in table:
                out.append(("--no-" + flag[2:], None))
        elif isinstance(value, (dict, list)):
            out.append((flag, json.dumps(value)))
        else:
            out.append((flag, str(value)))
    return out


def _serve_config(data: dict[str, Any], doc: Doc) -> tuple[Doc | None, Problem | None]:
    text = as_dict(data.get("spec")).get("serveConfigV2")
    line = doc.line("spec", "serveConfigV2")
    if not isinstance(text, str):
        return None, Problem("serveConfigV2", "no spec.serveConfigV2 (the Serve applications)",
                             line)
    if "{{" in text:
        return None, Problem("serveConfigV2", "unrendered template: render first (helm "
                             "template / kustomize build / envsubst)", line)
    try:
        docs = list(iter_docs("\n" * line + text, "serveConfigV2"))
    except DeploymentError as err:
        p = err.items[0]
        return None, Problem("serveConfigV2", f"not YAML: {p.message}", p.line or line)
    return (docs[0] if docs else None), None


def _replicas(cfg: dict[str, Any], at: Key,
              inner: Doc) -> tuple[Any, int, list[str], int, str]:
    """(replicas checked, their line, notes, the most replicas, the field as the file spells
    it: the zero-replicas note names it, where it named the reader's key `__replicas__`)."""
    dep = as_dict(cfg.get("deployment_config"))
    d_at = (*at, "deployment_config")
    auto = as_dict(dep.get("autoscaling_config"))
    if isinstance(dep.get("num_replicas"), int):
        n = dep["num_replicas"]
        return n, inner.line(*d_at, "num_replicas"), [], n, "deployment_config.num_replicas"
    low = auto.get("min_replicas", 1)
    high = auto.get("max_replicas", low)
    notes = [f"checked at autoscaling_config.min_replicas {low} (Ray Serve scales up to "
             f"{high})"] if auto else ["no num_replicas: Ray Serve's default of 1 replica"]
    line = inner.line(*d_at, "autoscaling_config", "min_replicas")
    return (low, line, notes, high if isinstance(high, int) else low,
            "autoscaling_config.min_replicas")


def _count(problems: list[Problem], notes: list[str], counts: tuple[Any, Any, int],
           gs: list[raycluster.RayGroup], line: int) -> None:
    """The replicas' GPUs against the Ray cluster's: a Problem past what it has now, a note past
    what its worker groups reach at their maxReplicas."""
    replicas, most, gpus = counts
    have = raycluster.total_gpus(gs)
    if isinstance(replicas, int) and replicas * gpus > have:
        problems.append(Problem("replicas", f"{replicas} replica(s) x {gpus} GPU(s) need "
                                f"{replicas * gpus} GPUs, the Ray cluster has {have} "
                                "(workerGroupSpecs replicas x numOfHosts x num-gpus)", line))
    elif isinstance(most, int) and most * gpus > raycluster.total_gpus(gs, at_max=True):
        notes.append(f"at its most {most} replica(s) need {most * gpus} GPUs, the Ray cluster "
                     f"reaches {raycluster.total_gpus(gs, at_max=True)}")


def _other_accelerators(gs: list[raycluster.RayGroup], doc: Doc) -> list[Problem]:
    """A Ray cluster whose groups hold no GPU but ask for an accelerator kvplan does not model
    (AWS Neuron cores, TPUs, Gaudi): refused by name, as a pod's limit is (task h80corpus:
    `aws.amazon.com/neuroncore: 2` on the workers was planned as NVIDIA GPUs, a WARN)."""
    from kvplan.check.manifests.accelerators import other_accelerators, refusal

    for g in gs:
        found = g.pod.get("containers")
        for j, c in enumerate(found if isinstance(found, list) else []):
            res = as_dict(as_dict(c).get("resources"))
            for part in ("limits", "requests"):
                for key, what, value in other_accelerators(as_dict(res.get(part))):
                    if value is not None:
                        return [Problem(key, refusal(key, what, f"the Ray cluster's {g.name} "
                                                     f"group asks for {key}: {value}, and no "
                                                     "group holds a GPU"),
                                        doc.line(*g.pod_at, "containers", j, "resources", part,
                                                 key))]
    return []


def _engine(cfg: dict[str, Any], at: Key, inner: Doc, data: dict[str, Any], doc: Doc,
            group: int, name: str) -> PodSite:
    problems = [Problem(str(k), "not an LLMConfig field: Ray Serve LLM rejects it",
                        inner.line(*at, k)) for k in cfg if k not in LLM_CONFIG_KEYS]
    engine = str(cfg.get("llm_engine", "vLLM"))
    if engine != "vLLM":
        problems.append(Problem("llm_engine", f"{engine!r} is not an engine kvplan models "
                                "(Ray Serve LLM runs vLLM)", inner.line(*at, "llm_engine")))
    loading = typed(cfg, "model_loading_config", at, inner, problems, SCHEMA)
    l_at = (*at, "model_loading_config")
    notes: list[str] = [
        f"model_loading_config.{k}: not a ModelLoadingConfig field ({', '.join(sorted(LOADING_KEYS))}"
        f"), not read" + (" (accelerator_type is a key of the LLMConfig itself: no GPU is named "
                          "here)" if k == "accelerator_type" else "")
        for k in loading if k not in LOADING_KEYS]
    source = loading.get("model_source")
    model_id = str(loading.get("model_id", ""))
    if isinstance(source, dict):
        model = str(source.get("bucket_uri") or "s3://mirror")  # weights from a bucket
    else:
        model = str(source or model_id)
    kwargs = typed(cfg, "engine_kwargs", at, inner, problems, SCHEMA)
    k_at = (*at, "engine_kwargs")
    words: list[tuple[str, int]] = [
        ("vllm", inner.line(*at)), ("serve", inner.line(*at)),
        (model, inner.line(*l_at, "model_source") if source else inner.line(*l_at, "model_id")),
        ("--served-model-name", inner.line(*l_at, "model_id")),
        (model_id, inner.line(*l_at, "model_id"))]
    for key in ("model", "served_model_name"):
        if key in kwargs:
            problems.append(Problem(key, "not allowed in engine_kwargs (Ray Serve LLM takes the "
                                    "model from model_loading_config)", inner.line(*k_at, key)))
    table, version = TABLES["vllm"]
    python_typed = _python_length(kwargs.get("max_model_len"), inner.line(*k_at, "max_model_len"))
    for key in kwargs:
        line = inner.line(*k_at, key)
        if key == "max_model_len" and python_typed is not None:
            continue  # vLLM's engine arguments take it as a Python value: refused below
        flag = "--" + str(key).replace("_", "-")
        if flag not in table:
            notes.append(f"engine_kwargs {key}: vLLM {version} has no such engine argument; "
                         "the ray-llm image does not name its vLLM release: not checked")
            continue
        for word, value in kwargs_words({key: kwargs[key]}):
            words.append((word, line))
            if value is not None:
                words.append((value, line))
    tp = kwargs.get("tensor_parallel_size", 1)
    pp = kwargs.get("pipeline_parallel_size", 1)
    gpus = tp * pp if isinstance(tp, int) and isinstance(pp, int) else 1
    pg = typed(cfg, "placement_group_config", at, inner, problems, SCHEMA)
    for b in pg.get("bundles") or [] if isinstance(pg.get("bundles"), list) else []:
        share = as_dict(b).get("GPU", 1)
        if isinstance(share, (int, float)) and 0 < share < 1:
            problems.append(Problem("placement_group_config", f"a bundle of GPU {share}: a "
                                    "share of a GPU is not modelled (kvplan sizes whole GPUs)",
                                    inner.line(*at, "placement_group_config")))
            break
    dep = typed(cfg, "deployment_config", at, inner, problems, SCHEMA)
    typed(dep, "autoscaling_config", (*at, "deployment_config"), inner, problems, SCHEMA)
    replicas, r_line, r_notes, most, r_key = _replicas(cfg, at, inner)
    notes += r_notes
    # the Ray cluster: a worker group with GPUs gives the pod (node labels, image)
    cluster = typed(as_dict(data.get("spec")), "rayClusterConfig", ("spec",), doc, problems,
                    "KubeRay RayService spec, ray.io/v1")
    gs = raycluster.groups(cluster, ("spec", "rayClusterConfig"), doc, problems)
    gpu_groups = [g for g in gs if g.gpus_per_pod > 0]
    other = [] if gpu_groups else _other_accelerators(gs, doc)  # named, not "has 0 GPUs"
    problems.extend(other)
    group_pod = gpu_groups[0] if gpu_groups else gs[0]
    pod = dict(group_pod.pod)
    c_at: Key = (*group_pod.pod_at, "containers", 0)
    found = pod.get("containers")  # another type is raycluster's problem (named), not a crash
    first = as_dict(found[0] if isinstance(found, list) and found else {})
    container = {"image": first.get("image", ""), "command": [w for w, _ in words],
                 "env": first.get("env") or [],
                 "resources": {"limits": {"nvidia.com/gpu": gpus}}}
    lines: dict[Key, int] = {(*c_at, "command", k): line for k, (_, line) in enumerate(words)}
    lines[c_at + ("resources", "limits", "nvidia.com/gpu")] = inner.line(*k_at)
    lines[(r_key,)] = r_line
    lines[("__llm_config__",)] = inner.line(*at)
    accel = cfg.get("accelerator_type")
    if accel is not None:
        selector = dict(as_dict(pod.get("nodeSelector")))
        selector[RAY_ACCELERATOR] = str(accel)
        pod["nodeSelector"] = selector
        lines[group_pod.pod_at + ("nodeSelector", RAY_ACCELERATOR)] = inner.line(
            *at, "accelerator_type")
    if not other:  # a refused accelerator says it all: no GPU count beside it
        _count(problems, notes, (replicas, most, gpus), gs, r_line)
    site = PodSite("RayService", pod, group_pod.pod_at, [(container, c_at)], replicas,
                   (r_key,), group=group, name=name, lines=lines, problems=problems,
                   notes=notes, image_names_engine=False, release_unknown=True,
                   line_at=("__llm_config__",))
    if python_typed is not None:
        site.refusals.append(python_typed)
    return site


def _python_length(value: Any, line: int) -> Problem | None:
    """engine_kwargs.max_model_len as vLLM's engine arguments take it: a Python value, not a
    command-line word (Ray Serve LLM builds the engine arguments from the dict), so vLLM's
    argparse spellings do not apply (task h59maxlen). ModelConfig.max_model_len is a pydantic
    int (`Field(default=None, ge=-1)`, config/model.py:263 in 0.34.0, :214 in 0.29.0): an int,
    -1 (auto-fit from 0.14.0, read through the flag's path) or a numeric string pass; `auto` or
    `32k` stop the engine ("Input should be a valid integer"). None where it passes."""
    import re

    if not isinstance(value, str) or re.fullmatch(r"\s*[-+]?\d+\s*", value):
        return None
    from kvplan.engines.vllm_series import DEFAULT_VERSION

    return Problem("max_model_len", f"the engine refuses it: Ray Serve LLM passes engine_kwargs "
                   "to vLLM's engine arguments as Python values, not through vLLM's argparse, "
                   f"and ModelConfig.max_model_len is an int (pydantic, Field(ge=-1), "
                   f"config/model.py:263 in vLLM {DEFAULT_VERSION}, kvplan's default release: "
                   f"the ray-llm image names none), so the engine stops on {value!r} (\"Input "
                   "should be a valid integer\"): write -1 for vLLM's auto-fit (0.14.0 on) or "
                   "a number of tokens", line)


def _configs(args: dict[str, Any], a_at: Key) -> list[tuple[Any, Key, str]]:
    out: list[tuple[Any, Key, str]] = []
    items = args.get("llm_configs")
    if isinstance(items, list):
        out += [(c, (*a_at, "llm_configs", i), "") for i, c in enumerate(items)]
    for key in ("llm_config", "prefill_config", "decode_config"):
        if key in args:
            out.append((args[key], (*a_at, key), key.removesuffix("_config")))
    return out


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    inner, problem = _serve_config(data, doc)
    if problem is not None:
        return [PodSite("RayService", {}, ("spec",), [], problems=[problem])]
    apps = as_dict(inner.data if inner else {}).get("applications")
    out: list[PodSite] = []
    others: list[tuple[str, int]] = []
    for a, app in enumerate(apps if isinstance(apps, list) else []):
        app = as_dict(app)
        if str(app.get("import_path", "")) not in LLM_APPS:
            assert inner is not None
            others.append((str(app.get("import_path")), inner.line("applications", a,
                                                                   "import_path")))
            continue
        a_at: Key = ("applications", a, "args")
        assert inner is not None
        bad: list[Problem] = []
        args = typed(app, "args", ("applications", a), inner, bad, SCHEMA)
        typed(args, "llm_configs", a_at, inner, bad, SCHEMA, list)
        if bad:  # the LLMConfigs it holds are not read: named, never a silent skip
            out.append(PodSite("RayService", {}, ("spec",), [], group=len(out), problems=bad))
        for cfg, at, role in _configs(args, a_at):
            if not isinstance(cfg, dict):  # a path to a config file inside the image
                out.append(PodSite("RayService", {}, ("spec",), [], group=len(out), problems=[
                    Problem("llm_configs", f"{cfg!r} is a file inside the image; kvplan reads "
                            "LLMConfigs written in serveConfigV2", inner.line(*at))]))
                continue
            model_id = as_dict(cfg.get("model_loading_config")).get("model_id")
            name = " ".join(str(p) for p in (model_id, role) if p) or None
            out.append(_engine(cfg, at, inner, data, doc, len(out), name or "llm"))
    if not out and others:  # a Serve application of its own: what it starts is not declared
        path, line = others[0]
        out.append(PodSite("RayService", {}, ("spec",), [], problems=[Problem(
            "import_path", f"the Serve application {path} is not Ray Serve LLM "
            f"({', '.join(LLM_APPS)}): the engine it starts and its options are in its code, "
            "which kvplan does not read", line)]))
    return out
