"""KubeAI `Model` (kubeai.org/v1): the KubeAI controller renders one pod per replica. Every
mapping below is from substratusai/kubeai at commit 2f32ef498da629f96fd417ddfaaf22c28d40787e:

- api/k8s/v1/model_types.go `ModelSpec`: url (hf://, pvc://, ollama://, s3://, gs://, oss://),
  engine (enum OLlama | VLLM | FasterWhisper | Infinity), resourceProfile "<name>:<multiple>",
  image, args, env (a map), replicas, minReplicas (0 allowed), maxReplicas, cacheProfile.
- internal/modelcontroller/engine_vllm.go `vLLMPodForModel`: the VLLM engine's container runs
  `python3 -m vllm.entrypoints.openai.api_server --model=<ref> --served-model-name=<name>
  [--load-format=runai_streamer (s3://)] <spec.args> [--enable-lora (adapters)]` with the env
  map's keys sorted; <ref> is the hf:// repository, /model for pvc://, the s3:// URL itself,
  or the cache directory with a cacheProfile. Only VLLM is planned here: OLlama,
  FasterWhisper and Infinity are other servers (engine_ollama.go, engine_fasterwhisper.go,
  engine_infinity.go) and are refused with that reason.
- internal/modelcontroller/model_controller.go `getModelConfig`: the profile's requests and
  limits are multiplied by <multiple> (lines 274-305); `lookupServerImage`: spec.image, else
  the chart's modelServers.VLLM.images[profile.imageName], else its `default`.
- charts/kubeai/values.yaml `resourceProfiles` (nvidia-gpu-t4 ... amd-gpu-mi300x: one
  nvidia.com/gpu or amd.com/gpu each, the GPU named by the profile) and
  charts/kubeai/values-gke.yaml (google-tpu-v5e-*: google.com/tpu); `modelServers.VLLM.images`
  for the default images. A cluster's own Helm values can add or change profiles: a name not
  below is an ERROR unless --gpu or a side file names the GPU.
- model_controller.go `applyAutoscalingReplicaBounds` (lines 357-371): replicas = spec.replicas, raised
  to minReplicas, capped at maxReplicas; the autoscaler moves it between the two.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

SCHEMA = "KubeAI Model CRD, kubeai.org/v1"
KINDS = ("Model",)
GROUP = "kubeai.org"
CHART = "substratusai/kubeai charts/kubeai/values.yaml at 2f32ef49"
# profile -> (resource key, catalog GPU or None, imageName) from charts/kubeai/values.yaml and
# values-gke.yaml; the GPU is what the profile's name says (values-gke.yaml's node selectors
# agree: nvidia-gpu-l4 -> gke-accelerator nvidia-l4, nvidia-gpu-h100 -> nvidia-h100-80gb)
PROFILES: dict[str, tuple[str, str | None, str]] = {
    "nvidia-gpu-t4": ("nvidia.com/gpu", "t4", "nvidia-gpu"),
    "nvidia-gpu-l4": ("nvidia.com/gpu", "l4", "nvidia-gpu"),
    "nvidia-gpu-l40s": ("nvidia.com/gpu", "l40s", "nvidia-gpu"),
    "nvidia-gpu-h100": ("nvidia.com/gpu", "h100-sxm-80gb", "nvidia-gpu"),
    "nvidia-gpu-gh200": ("nvidia.com/gpu", None, "gh200"),
    "nvidia-gpu-a100-80gb": ("nvidia.com/gpu", "a100-80gb", "nvidia-gpu"),
    "nvidia-gpu-a100-40gb": ("nvidia.com/gpu", "a100-40gb", "nvidia-gpu"),
    "nvidia-gpu-a16": ("nvidia.com/gpu", None, "nvidia-gpu"),
    "nvidia-gpu-rtx4070-8gb": ("nvidia.com/gpu", None, "nvidia-gpu"),
    "amd-gpu-mi300x": ("amd.com/gpu", "mi300x", "amd-gpu"),
    "google-tpu-v5e-1x1": ("google.com/tpu", None, "google-tpu"),
    "google-tpu-v5e-2x2": ("google.com/tpu", None, "google-tpu"),
    "google-tpu-v5e-2x4": ("google.com/tpu", None, "google-tpu"),
}
# charts/kubeai/values.yaml modelServers.VLLM.images
IMAGES = {"default": "vllm/vllm-openai:v0.8.3", "nvidia-gpu": "vllm/vllm-openai:v0.8.3",
          "cpu": "substratusai/vllm:v0.6.3.post1-cpu",
          "google-tpu": "substratusai/vllm:v0.6.4.post1-tpu",
          "gh200": "substratusai/vllm-gh200:v0.8.3",
          "amd-gpu": "substratusai/vllm-rocm:nightly_main_20250120"}
OTHER_ENGINES = {"OLlama": "Ollama", "FasterWhisper": "faster-whisper (speech to text)",
                 "Infinity": "Infinity (embeddings)"}


def _model_ref(spec: dict[str, Any], name: str) -> tuple[str, str | None]:
    """vLLM's --model for spec.url (engine_vllm.go), and what keeps kvplan from resolving it."""
    url = str(spec.get("url", ""))
    scheme, _, rest = url.partition("://")
    if spec.get("cacheProfile"):
        # cache.go modelCacheDir: /models/<name>-<uid>
        return f"/models/{name}-<uid>", (f"cacheProfile {spec['cacheProfile']!r} loads {url} from a "
                                    "cache directory")
    if scheme == "hf":
        return rest, None
    if scheme == "pvc":
        return "/model", f"{url} mounts the weights from a volume at /model"
    if scheme == "s3":
        return url, f"{url} streams the weights from a bucket (--load-format=runai_streamer)"
    return url, f"url {url!r} is not a Hugging Face repository (hf://org/name)"


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    name = str(as_dict(data.get("metadata")).get("name", "model"))
    at: Key = ("spec",)
    engine = str(spec.get("engine", ""))
    if engine != "VLLM":
        what = OTHER_ENGINES.get(engine)
        why = (f"engine {engine}: KubeAI runs {what}, not vLLM; kvplan plans vLLM, SGLang and "
               "TensorRT-LLM servers only (KubeAI's engine: VLLM)" if what else
               f"engine {engine!r} is not one of KubeAI's engines (OLlama, VLLM, FasterWhisper, "
               "Infinity)")
        return [PodSite("Model", {}, at, [], problems=[
            Problem("engine", why, doc.line(*at, "engine") or doc.start_line)])]
    ref, unresolved = _model_ref(spec, name)
    url_line = doc.line(*at, "url")
    profile_text = str(spec.get("resourceProfile", ""))
    p_line = doc.line(*at, "resourceProfile")
    pname, _, multiple_text = profile_text.partition(":")
    problems: list[Problem] = []
    if not multiple_text.isdigit() or int(multiple_text) < 1:
        problems.append(Problem("resourceProfile", f"{profile_text!r} is not <name>:<count> "
                                "(KubeAI's format, e.g. nvidia-gpu-l4:2)", p_line))
        return [PodSite("Model", {}, at, [], problems=problems)]
    multiple = int(multiple_text)
    words: list[tuple[str, int]] = [("python3", doc.line(*at, "engine")),
                                    ("-m", doc.line(*at, "engine")),
                                    ("vllm.entrypoints.openai.api_server", doc.line(*at, "engine")),
                                    ("--model=" + ref, url_line),
                                    ("--served-model-name=" + name, doc.start_line)]
    if str(spec.get("url", "")).startswith("s3://") and not spec.get("cacheProfile"):
        words.append(("--load-format=runai_streamer", url_line))
    args = typed(spec, "args", at, doc, problems, SCHEMA, list)
    for j, a in enumerate(args):
        if isinstance(a, (list, dict)):  # a list of strings: never written out as text
            problems.append(mistyped((*at, "args", j), str, a, doc, SCHEMA))
            continue
        words.append((str(a), doc.line(*at, "args", j)))
    if spec.get("adapters"):
        words.append(("--enable-lora", doc.line(*at, "adapters")))
    env_map = typed(spec, "env", at, doc, problems, SCHEMA)
    env = [{"name": str(k), "value": str(env_map[k])} for k in sorted(env_map)]
    notes = ["KubeAI renders the pod: its command, GPUs and image are read from the Model and "
             f"the default resource profiles ({CHART})"]
    known = PROFILES.get(pname)
    if pname == "cpu":
        problems.append(Problem("resourceProfile", "profile cpu runs vLLM on CPUs: kvplan plans "
                                "GPU memory (a CPU's KV cache is sized by VLLM_CPU_KVCACHE_SPACE)",
                                p_line))
    key, gpu, image_name = known or ("nvidia.com/gpu", None, "default")
    image = str(spec.get("image") or IMAGES.get(image_name, IMAGES["default"]))
    if not spec.get("image"):
        notes.append(f"image {image}: the chart's default (modelServers.VLLM.images"
                     f"[{image_name if known else 'default'}]); a cluster's Helm values may pin "
                     "another")
    container: dict[str, Any] = {"image": image, "command": [w for w, _ in words], "env": env,
                                 "resources": {"limits": {key: multiple}}}
    c_at: Key = ("spec", "__container__")
    lines: dict[Key, int] = {(*c_at, "command", k): line for k, (_, line) in enumerate(words)}
    lines[c_at + ("resources", "limits", key)] = p_line
    for k, item in enumerate(env):
        lines[c_at + ("env", k)] = doc.line(*at, "env", item["name"])
    site = PodSite("Model", {"containers": [container]}, at, [(container, c_at)],
                   lines=lines, problems=problems, notes=notes)
    site.replicas, site.replicas_at = _replicas(spec, site.notes)
    if unresolved:  # launch.resolve_model's ERROR when the served name names no model either
        site.model_elsewhere = (f"{unresolved}; kvplan reads the model from a KubeAI url only "
                                "as hf://org/name: set the annotation kvplan.io/model (or a side "
                                "file's model:) to the model it holds")
    if known is None:
        site.gpu_unknown = (f"resourceProfile {pname!r} is not one of the profiles of KubeAI's "
                            f"chart ({', '.join(sorted(PROFILES))}), so kvplan cannot tell its "
                            "GPU (your cluster's Helm values define it); run kvplan check --gpu "
                            "NAME or give gpu: in a side file")
        site.notes.append(f"resourceProfile {pname} is not the chart's: checked as {multiple} "
                          "nvidia.com/gpu a pod (one GPU a unit, as every GPU profile of the "
                          "chart holds)")
    elif gpu is None and key != "google.com/tpu":
        site.gpu_unknown = (f"resourceProfile {pname}'s GPU is not in kvplan's GPU catalog "
                            "(`kvplan gpus`); run kvplan check --gpu NAME or give gpu: in a "
                            "side file")
    elif gpu is not None:
        site.gpu = (gpu, f"resourceProfile {pname}")
    return [site]


def _replicas(spec: dict[str, Any], notes: list[str]) -> tuple[Any, Key | None]:
    """KubeAI's replicas: spec.replicas raised to minReplicas and capped at maxReplicas
    (applyAutoscalingReplicaBounds); 0 (scale to zero) is checked as the first replica it starts."""
    low = spec.get("minReplicas", 0)
    high = spec.get("maxReplicas")
    want = spec.get("replicas")
    if not isinstance(low, int) or (high is not None and not isinstance(high, int)):
        return low, ("spec", "minReplicas")
    at: Key = ("spec", "minReplicas") if "minReplicas" in spec else ("spec",)
    count = low
    if isinstance(want, int) and want > low:
        count, at = want, ("spec", "replicas")
    if high is not None and count > high:
        count, at = high, ("spec", "maxReplicas")
    upto = f"up to maxReplicas {high}" if high is not None else "with no maxReplicas"
    if count == 0:
        notes.append("minReplicas 0 (scale to zero): checked as the first replica it starts "
                     f"(KubeAI's autoscaler scales {upto})")
        return 1, at
    notes.append(f"checked at {count} replica(s) (KubeAI's autoscaler scales {upto})")
    return count, at
