"""A manifest's hardware: the GPU count (replicas x the GPUs one engine uses, held by the
pods' GPU limits) and the GPU type (kvplan.io/gpu, else the node labels the pod selects, else
--gpu).

Split from kvplan.check.manifests.workload's `Workload` (whose state these functions read and
fill: its found fields, problems and notes), as kvplan.check.manifests.launch reads the rest.
"""

from __future__ import annotations

from kvplan.check.gpus import (
    GKE_ACCELERATORS,
    GKE_COMPUTE_CLASS,
    LABEL_KEYS,
    UnknownLabel,
    catalog_name,
)
from kvplan.check.manifests.accelerators import container_refusal, cores_note, memory_slice
from kvplan.check.manifests.device_images import device_of_image
from kvplan.check.manifests.engine import Refusal
from kvplan.check.manifests.node_affinity import affinity_notes, gpu_labels, smallest, well_known
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.side import ANNOTATION_PREFIX
from kvplan.check.manifests.workload import (
    GPU_RESOURCES,
    NAMES_NO_GPU,
    RENDER_FIRST,
    Workload,
    unrendered,
)
from kvplan.deploy import resolve_gpu
from kvplan.errors import InputError
from kvplan.inputs import limits as lim

SCRIPT_KINDS = ("shell command", "docker run")  # kvplan.check.manifests.shell's sites
PROFILE_FIELD = "resourceProfile"  # a GPU the format's profile does not name (a side file's gpu: clears it)


def _device(w: Workload) -> tuple[str, int | None]:
    """The value of the server's `--device` option (vLLM before 0.10, SGLang), lower-case, and
    its line; ('', None) when the command has none."""
    assert w.inv is not None
    words = w.inv.words
    for i, word in enumerate(words):
        if word.text == "--device" and i + 1 < len(words):
            return words[i + 1].text.lower(), word.line
        if word.text.startswith("--device="):
            return word.text.split("=", 1)[1].lower(), word.line
    return "", None


def _vendor(key: str, image: str) -> str:
    """The GPU vendor a container runs on: a ROCm build (rocm/vllm, lmsysorg/sglang:*-rocm*,
    vllm-rocm-*: ROCm names itself in the image) runs on AMD GPUs only, whatever resource it
    asks for; else the device plugin's resource (amd.com/gpu, nvidia.com/gpu)."""
    if "rocm" in image.lower():
        return "amd"
    return "amd" if key.startswith("amd.com/") else "nvidia"


def _off_gpu(w: Workload, line: int) -> bool:
    """Whether the server runs on a device that is not a GPU (`--device cpu` / `npu`), said."""
    device, device_line = _device(w)
    if device and device not in ("cuda", "auto", "gpu", "rocm"):
        pool = _OFF_GPU_POOL.get(w.inv.engine if w.inv else "", _OFF_GPU_POOL["vllm"])
        w.problem("--device", f"the server runs on {device!r}, not a GPU: kvplan plans "
                  f"GPU memory{pool}", device_line or line)
        return True
    return False


# how each engine sizes the KV cache on a device that is not a GPU, in its own settings
_OFF_GPU_POOL = {
    "vllm": " (a CPU or other device's KV cache is sized by its own settings, e.g. "
            "VLLM_CPU_KVCACHE_SPACE)",
    # sglang 0.5.23 srt/utils/common.py get_available_gpu_memory (line 427): the free memory of
    # the device named by --device (torch.npu.mem_get_info on an NPU, line 517; the free CPU
    # memory per NUMA node on a CPU, lines 490-494), of which --mem-fraction-static is the
    # static part (srt/model_executor/model_runner_components/kv_pool_runtime.py line 75)
    "sglang": "; SGLang sizes an NPU's or a CPU's KV cache from --mem-fraction-static and that "
              "device's free memory (what torch.npu.mem_get_info reports, or a NUMA node's free "
              "memory on a CPU), which kvplan does not model",
}


def _script_nodes(w: Workload, engine_gpus: int) -> int:
    """The machines a launch script's engine spans: its --nnodes when that divides the engine's
    GPUs (each machine runs the same command; kvplan.check.manifests.node_options), else 1, the
    engine refusing the uneven split (a refusal: FAIL)."""
    from kvplan.check.argv import parse
    from kvplan.check.manifests.node_options import SCRIPT, node_note, nodes_given, uneven_refusal

    assert w.inv is not None
    options = parse(w.inv).options
    nodes = nodes_given(options) or 1
    if engine_gpus % nodes == 0:
        return nodes
    w.refusals.append(Refusal("--nnodes", uneven_refusal(w.inv.engine, nodes, engine_gpus,
                                                         _layout(w)), options["--nnodes"][1]))
    # the node note (written before the GPUs were known) said x nodes: say what is counted
    said, meant = node_note(options, SCRIPT), node_note(options, SCRIPT, engine_gpus)
    w.notes[:] = [meant if n == said and meant else n for n in w.notes]
    return 1


def _layout(w: Workload) -> str:
    """`tensor 8 x pipeline 2`: the parallel sizes that make one engine's GPUs."""
    tp = int(w.found.values.get("parallel.tensor", 1) or 1)
    pp = int(w.found.values.get("parallel.pipeline", 1) or 1)
    what = f"tensor {tp}" + (f" x pipeline {pp}" if pp > 1 else "")
    return what + (f" x data-parallel {w.dp}" if w.dp > 1 else "")


def _uneven_group(w: Workload, engine_gpus: int, per_pod: int, pods: int) -> int:
    """The nodes an engine of `engine_gpus` GPUs spans over a group of `pods` pods that does
    not divide them. Told the node count (--nnodes: SGLang always, vLLM's multiprocessing
    backend; LWS sets $(LWS_GROUP_SIZE) to the group's size) the engine refuses the uneven
    split (node_options.uneven_refusal); started over Ray (vLLM without --nnodes) it packs its
    ranks onto the first pods (vllm 0.29.0 vllm/v1/executor/ray_utils.py:655-656
    initialize_ray_cluster: one GPU bundle a rank, strategy="PACK") and the rest hold none."""
    from kvplan.check.argv import parse
    from kvplan.check.manifests.node_options import nodes_given, uneven_refusal

    assert w.inv is not None
    options = parse(w.inv).options
    if "--nnodes" in options:
        nodes = nodes_given(options) or pods
        if engine_gpus % nodes:
            w.refusals.append(Refusal("--nnodes", uneven_refusal(
                w.inv.engine, nodes, engine_gpus, _layout(w)), options["--nnodes"][1]))
        return pods
    used = -(-engine_gpus // per_pod)
    w.notes.append(f"a group of {pods} pods of {per_pod} GPUs runs one engine of {engine_gpus} "
                   f"GPUs ({_layout(w)}): Ray places its ranks on {used} of them, and "
                   f"{pods - used} pod(s) hold no rank")
    return used


def read_gpu_count(w: Workload) -> None:
    """GPUs: replicas x the GPUs one engine uses; the pods of an engine must hold them."""
    assert w.inv is not None
    doc, found, site = w.doc, w.found, w.site
    tp = int(found.values.get("parallel.tensor", 1) or 1)
    pp = int(found.values.get("parallel.pipeline", 1) or 1)
    engine_gpus = tp * pp * w.dp
    if engine_gpus <= 0 or max(tp, pp) > lim.MAX_PARALLEL:  # a size out of the record's
        # bounds is its own option's ERROR there, not a GPU count or `replicas` the file never
        return  # wrote (task h81hostile: `nvidia.com/gpu: -2`, `replicas: 10^30` for tp 10^30)
    replicas = site.replicas
    replicas_line = doc.line(*(site.replicas_at or site.pod_at[:1]))
    res = w.container.get("resources") or {}
    value, lim_line = None, doc.line(*w.c_at)
    for part in ("limits", "requests"):
        section = res.get(part) or {} if isinstance(res, dict) else {}
        for key in GPU_RESOURCES:
            if isinstance(section, dict) and key in section and value is None:
                value, lim_line = section[key], doc.line(*w.c_at, "resources", part, key)
                w.gpu_vendor = _vendor(key, str(w.container.get("image", "")))
    if site.kind in SCRIPT_KINDS and _off_gpu(w, lim_line):  # a script's count is not a limit
        return
    if value is None:
        other = container_refusal(w.container)
        if other is not None:
            at, key, words = other
            w.problem(key, words, doc.line(*w.c_at, *at))
            return
        if _off_gpu(w, lim_line):
            return
        if (device := device_of_image(str(w.container.get("image", "")))) is not None:
            w.problem("image", device, doc.line(*w.c_at, "image") or lim_line)
            return
        if w.site.kind == "compose service":
            said = w.site.gpus_said
            why = f" ({said})" if said else ""
            w.problem("deploy", f"the service reserves no GPU{why}; add deploy.resources."
                      f"reservations.devices (driver: nvidia, count: {engine_gpus}, capabilities: "
                      f"[gpu]), or runtime: nvidia with NVIDIA_VISIBLE_DEVICES naming {engine_gpus} "
                      "GPU(s)", doc.line(*w.site.pod_at) or lim_line)
            return
        w.problem("nvidia.com/gpu", "the server container sets no nvidia.com/gpu limit; "
                     f"add resources.limits nvidia.com/gpu: {engine_gpus}", lim_line)
        return
    if unrendered(str(value)):
        w.problem("nvidia.com/gpu", f"{value!r}: {RENDER_FIRST}", lim_line)
        return
    if (sliced := memory_slice(w.container)) is not None:
        at, key, words = sliced
        w.problem(key, words, doc.line(*w.c_at, *at))
        return
    if (cores := cores_note(w.container)) is not None:
        w.notes.append(cores)
    nodes = _script_nodes(w, engine_gpus) if site.kind in SCRIPT_KINDS else 1
    if str(value) == "all" and site.kind in SCRIPT_KINDS:
        value = engine_gpus // nodes  # no count in the script: the server's own parallel layout
        over = f", {value} on each of --nnodes {nodes} machines" if nodes > 1 else ""
        w.notes.append(f"{site.gpus_said}; the engine uses {engine_gpus} GPU(s), its tensor x "
                       f"pipeline x data-parallel size{over}")
    elif str(value) == "all" and site.kind == "compose service":
        value = engine_gpus  # compose's count: all reserves every GPU; the engine uses these
        if site.gpus_said:
            w.notes.append(f"{site.gpus_said} hands the container every GPU of the host, how "
                           f"many this file does not say; the engine uses {engine_gpus}")
        else:
            w.notes.append(f"count: all reserves every GPU of the host; the engine uses "
                           f"{engine_gpus}")
    elif site.kind in SCRIPT_KINDS and site.gpus_said:
        w.notes.append(f"{site.gpus_said}: {value} GPU(s)")
    elif site.kind == "compose service" and site.gpus_said:
        w.notes.append(f"{site.gpus_said}: {value} GPU(s) handed to the container")
    try:
        per_pod = int(str(value))
    except ValueError:
        per_pod = 0
    if per_pod <= 0:
        w.problem("nvidia.com/gpu", f"{value!r} is not a positive count", lim_line)
        return
    w.gpus_per_pod = per_pod
    pods_per_engine = 1 if w.dp_spread else max(site.pods_per_engine, nodes)
    have = per_pod * pods_per_engine if site.gpus_total is None else site.gpus_total
    if have < engine_gpus:
        what = f"tensor {tp}" + (f" x pipeline {pp}" if pp > 1 else "")
        what += f" x data-parallel {w.dp}" if w.dp > 1 else ""
        field, given = _given(site, per_pod, pods_per_engine)
        w.problem(field, f"{what} needs {engine_gpus} GPUs but the engine has {have} ({given})",
                  lim_line)
        return
    if have > engine_gpus:
        w.notes.append(f"{have - engine_gpus} of {have} GPUs per engine unused")
        if pods_per_engine > 1 and site.gpus_total is None and engine_gpus % pods_per_engine:
            pods_per_engine = _uneven_group(w, engine_gpus, per_pod, pods_per_engine)
    if pods_per_engine > 1 and "parallel.nodes" not in found.values:
        found.put("parallel.nodes", pods_per_engine, replicas_line, "pods per engine")
    # the field as the file spells it: a compose service's count is deploy.replicas
    named = "deploy.replicas" if site.kind == "compose service" else "replicas"
    if unrendered(str(replicas)):
        w.problem(named, f"{replicas!r}: {RENDER_FIRST}", replicas_line)
    elif not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        w.problem(named, f"{replicas!r} is not a count", replicas_line)
    elif replicas == 0 and site.kind == "compose service":  # compose starts none: no autoscaler
        w.problem(named, "0 replicas hold no users", replicas_line)
    else:
        if replicas == 0:  # a workload an autoscaler scales from zero (KubeAI's, OME's minReplicas 0)
            said = str(site.replicas_at[-1]) if site.replicas_at else named  # KServe: minReplicas
            w.notes.append(f"{said}: 0 (scaled to zero: an autoscaler, an HPA, KEDA or Knative, "
                           "sets the count, or the workload is parked): checked as the first "
                           "replica it starts")
        pods = site.pods_per_engine if w.dp_spread else 1
        found.put("hardware.count", max(replicas, 1) * pods * engine_gpus, replicas_line,
                  "replicas")
        found.lines["hardware"] = lim_line


def _given(site: PodSite, per_pod: int, pods: int) -> tuple[str, str]:
    """(the field, how the file hands the GPUs over) for a count short of what the engine uses:
    a pod's limit, a compose service's reservation, a script's CUDA_VISIBLE_DEVICES or --gpus."""
    if site.kind == "compose service":
        return "deploy", site.gpus_said or (f"count {per_pod} in deploy.resources.reservations."
                                            "devices")
    if site.kind in SCRIPT_KINDS:
        field = "--gpus" if site.kind == "docker run" else "CUDA_VISIBLE_DEVICES"
        return field, site.gpus_said or f"{per_pod} GPU(s)"
    return "nvidia.com/gpu", f"nvidia.com/gpu {per_pod} x {pods} pod(s)"


def read_gpu_type(w: Workload, default_gpu: str | None) -> None:
    """The GPU: kvplan.io/gpu, else the node labels, else --gpu; none: judged over all."""
    key = ANNOTATION_PREFIX + "gpu"
    if key in w.annotations:
        w.found.put("hardware.gpu", str(w.annotations[key]), w.ann_line(key), key)
        return
    if w.site.gpu is not None:  # the format names the GPU (a KubeAI resource profile)
        line = w.found.lines.get("hardware") or w.doc.line(*w.site.pod_at)
        w.found.put("hardware.gpu", w.site.gpu[0], line, w.site.gpu[1])
        return
    if w.site.gpu_unknown:
        if default_gpu is not None:
            w.found.put("hardware.gpu", default_gpu, w.doc.line(*w.site.pod_at), "--gpu")
        else:
            w.problem(PROFILE_FIELD, w.site.gpu_unknown, w.found.lines.get("hardware"))
        return
    labels = []
    for lab in gpu_labels(w.site.pod, w.site.pod_at, w.doc):
        if lab[0] in NAMES_NO_GPU or (lab[0] == GKE_COMPUTE_CLASS
                                      and lab[1].lower() not in GKE_ACCELERATORS):
            w.notes.append(f"{lab[0]}={lab[1]} names no GPU model: not used")
            continue
        labels.append(lab)
    mapped: list[tuple[str, str, str, int, str]] = []
    for label_key, value, line, where in labels:
        if unrendered(value):
            w.problem(label_key, f"{value!r}: {RENDER_FIRST}", line)
            return
        try:
            mapped.append((catalog_name(value, label_key), label_key, value, line, where))
        except UnknownLabel as err:
            w.problem(label_key, str(err), line)
    if len(mapped) != len(labels):
        return
    w.notes.extend(affinity_notes(w.site.pod, w.site.pod_at, w.doc,
                                  bool(mapped) or default_gpu is not None))
    if not mapped:
        if default_gpu is not None:
            w.found.put("hardware.gpu", default_gpu, w.doc.line(*w.site.pod_at),
                           "--gpu")
        else:
            w.gpu_named = False
            _unread_selector(w)
        return
    memory: dict[str, int] = {}
    for gpu, label_key, value, line, _ in mapped:
        try:
            memory[gpu] = resolve_gpu(gpu).memory_bytes
        except InputError:
            w.label_key = label_key
            w.problem(label_key, f"{value} maps to {gpu!r}, which the GPU catalog does not "
                      f"hold; add hardware_specs/{gpu}.yaml or set the annotation "
                      "kvplan.io/gpu to a catalog name (`kvplan gpus`)", line)
            return
    best, said = smallest(mapped, memory)  # several GPUs allowed: the least memory (h91readers2)
    gpu, label_key, value, line, _ = mapped[best]
    w.label_key = label_key
    names = sorted({m[0] for m in mapped})
    w.notes.extend([said] if said else [])
    w.found.put("hardware.gpu", gpu, line, label_key)
    w.found.names["hardware.gpu"] = f"{label_key}={value}"
    if len(names) == 1:
        _labelled_node(w, gpu, label_key, value)


def _unread_selector(w: Workload) -> None:
    """A note naming the nodeSelector labels that select the node where no GPU is named: a
    label of the user's own (`gpu-type: nvidia-2080ti`, TobiasEdman/des-chatbot, round
    blind-2026-12-07-r8) may pick the GPU, but only the labels of docs/check.md's "GPU labels"
    are read, so the verdict is over the catalog; it was passed over in silence."""
    selector = w.site.pod.get("nodeSelector")
    if not isinstance(selector, dict):
        return
    unread = [f"{k}={v}" for k, v in selector.items()
              if k not in LABEL_KEYS and not well_known(str(k))]
    if unread:
        w.notes.append(f"nodeSelector {', '.join(unread)}: not a GPU label kvplan reads "
                       "(docs/check.md, \"GPU labels\"), so no GPU is named by it")


def _labelled_node(w: Workload, gpu: str, label_key: str, value: str) -> None:
    """The GPUs one node holds where its label says it is bigger than the GPU spec's
    gpus_per_node: an instance type of more (kvplan.check.instances: GCP's a2-megagpu-16g, 16
    A100 40GB), or a GKE accelerator whose pod asks for a node size only a bigger GCP machine
    has (skypilot_counts.BIG_NODES; task h59nodes: TP 16 on one a2-megagpu-16g was refused as
    spanning nodes of 8). Other labels keep the spec's count."""
    from kvplan.check.gpus import BETA_INSTANCE_LABEL, GKE_LABEL, INSTANCE_LABEL
    from kvplan.check.instances import INSTANCE_TYPES
    from kvplan.check.manifests.skypilot_counts import node_gpus

    per_node = resolve_gpu(gpu).gpus_per_node
    if label_key in (INSTANCE_LABEL, BETA_INSTANCE_LABEL) and value in INSTANCE_TYPES:
        held = INSTANCE_TYPES[value][1]
        if held > per_node:
            w.node_gpus = held
            w.notes.append(f"{label_key}={value}: one node holds {held} {gpu} (the cloud's "
                           f"machine type, kvplan.check.instances), more than the GPU spec's "
                           f"{per_node} a server: tensor parallelism up to that runs on one node")
    elif label_key == GKE_LABEL:
        got = node_gpus(f"{label_key}={value} with {w.gpus_per_pod} GPUs a pod", gpu,
                        w.gpus_per_pod, "gcp", per_node)
        if got is not None:
            w.node_gpus, note = got
            w.notes.append(note)
