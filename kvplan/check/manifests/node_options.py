"""The options that place one engine over several nodes (`--nnodes N`, `--node-rank R`, vLLM's
and SGLang's spelling alike), named for what they are in one note instead of the not-used list
(task h53checkgaps: AIBrix's SGLang StormService tp-1p1d listed `--nnodes 2` as not used,
though the engine's GPUs come from its pod group of 2). kvplan counts an engine's GPUs from the
pods the file runs for it (a LeaderWorkerSet's, StormService's, OME's or llm-d's group, a Ray
cluster), so the note says whether --nnodes agrees with them. A launch script runs on one machine:
the same command starts on each of the --nnodes machines with its own --node-rank, so the engine's
GPUs are this machine's times --nnodes (sgl-project/sglang#3910, DeepSeek-R1 at --tp 16 over
`--nnodes 2`, 8 L40s a node: outcomes round 3, task h54outcomes3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvplan.check.manifests.workload import Workload

NODE_OPTIONS = ("--nnodes", "--node-rank")
SCRIPT = 0  # `pods` of a launch script's engine: one machine's share, placed by --nnodes


def _stated(options: dict[str, tuple[Any, Any]]) -> int | None:
    """--nnodes as written, when it is a whole number (None when absent or not one)."""
    raw = options.get("--nnodes", (None, None))[0]
    try:
        return int(str(raw)) if raw is not None else None
    except ValueError:
        return None


def nodes_given(options: dict[str, tuple[Any, Any]]) -> int | None:
    """--nnodes as a count (None when absent or not a positive integer)."""
    nodes = _stated(options)
    return nodes if nodes is not None and nodes > 0 else None


def node_note(options: dict[str, tuple[Any, Any]], pods: int,
              engine_gpus: int | None = None) -> str | None:
    """The note for the node options among `options` (flag -> (raw value, line)), for an
    engine the file runs over `pods` pods (SCRIPT: a launch script's); None when neither is
    given. `engine_gpus` (a script's, once known: kvplan.check.manifests.hardware) says whether
    --nnodes divides them; where it does not, the engine refuses to start (uneven_refusal)."""
    given = [f for f in NODE_OPTIONS if f in options]
    if not given:
        return None
    said = ", ".join(given)
    nodes, stated = nodes_given(options), _stated(options)
    if pods == SCRIPT:
        share = (f"the same command runs on each of the {nodes} machines, so kvplan counts the "
                 f"engine's GPUs as this machine's x {nodes}" if nodes and nodes > 1 else
                 "kvplan counts the engine's GPUs on this one machine")
        if nodes and nodes > 1 and engine_gpus is not None and engine_gpus % nodes:
            share = (f"--nnodes {nodes} does not divide the engine's {engine_gpus} GPUs (tensor x "
                     "pipeline x data-parallel), which the engine refuses (uneven_refusal)")
        if stated is not None and stated < 1:
            share = f"--nnodes {stated} is not a node count (1 or more): {share}"
        return (f"{said}: the machines one engine spans (not a KV-pool option); this script "
                f"starts one machine's share: {share}")
    parts = {"--nnodes": "the nodes one engine spans", "--node-rank": "this pod's place among "
             "the nodes"}
    what = f"{said}: {' and '.join(parts[f] for f in given)} (not a KV-pool option)"
    group = f"a group of {pods} pods" if pods > 1 else "one pod"
    if stated is not None and stated < 1:
        return (f"{what}; --nnodes {stated} is not a node count (1 or more): kvplan counts the "
                f"engine's GPUs from the pods that run it, {group}")
    if nodes is None or nodes == pods:
        agree = f", which --nnodes {nodes} agrees with" if nodes is not None else ""
        return f"{what}; kvplan counts the engine's GPUs from the pods that run it, {group}{agree}"
    return (f"{what}; --nnodes {nodes} says {nodes} nodes, but the file runs {group} per engine: "
            "kvplan counts the engine's GPUs from those pods")


def uneven_refusal(engine: str, nodes: int, gpus: int, what: str) -> str:
    """Why the engine does not start when its --nnodes `nodes` does not divide its `gpus` GPUs
    (`what`: tensor x pipeline ...): it places gpus / nodes ranks on each node and refuses an
    uneven split (kvplan.engine_traits' nnodes_rule: vLLM 0.29.0 vllm/engine/arg_utils.py:2179,
    SGLang 0.5.23 srt/arg_groups/validation_hook.py:179; task h59nodes: TP 8 x PP 2 over
    --nnodes 3 passed, counted on one machine)."""
    from kvplan.engine_traits import traits

    rule = traits(engine).nnodes_rule or "the engine splits its ranks evenly over its nodes"
    fits = [str(n) for n in range(2, gpus + 1) if gpus % n == 0]
    hint = (f"; --nnodes {' or '.join([', '.join(fits[:-1]), fits[-1]] if len(fits) > 1 else fits)}"
            " divides them" if fits else "")
    return (f"the engine refuses it: --nnodes {nodes} does not divide the engine's {gpus} GPUs "
            f"({what}): {rule}{hint}")


RAY = "--distributed-executor-backend"


def ray_cluster_nodes(w: Workload) -> None:
    """The nodes a launch script's vLLM engine spans over a Ray cluster. A script that starts
    the server with `--distributed-executor-backend ray` and no --nnodes runs on the head node
    of a Ray cluster the other machines joined (`ray start --address=...`), and vLLM places one
    GPU bundle a rank over the cluster's GPUs (vllm 0.29.0 vllm/v1/executor/ray_utils.py:655-656
    initialize_ray_cluster, the PACK placement _uneven_group cites; vLLM's docs from v0.4.3 on,
    serving/distributed_serving: after `ray start --head` on the head node and `ray start
    --address=<ray-head-address>` on the workers, "launching the vLLM process on the head node by
    setting tensor_parallel_size to ... the total number of GPUs across all machines"). So a
    tensor parallelism wider than the GPU's node spans ceil(GPUs / node) nodes of it, which kvplan
    counts: it was refused as "spans more than one node ... state the node count", a count such a
    script has no option for before vLLM's --nnodes (outcomes round 12, file 111: DeepSeek-R1 at
    --tp 16 over two nodes of 8 H800, vllm-project/vllm#16692, started). Called once the GPU is
    known (the side file's included); nothing is counted when the GPU is not, when --nnodes or a
    pod group states the nodes, or when the tensor parallelism fits one node."""
    from kvplan.check.argv import parse
    from kvplan.check.manifests.hardware import SCRIPT_KINDS
    from kvplan.deploy import resolve_gpu
    from kvplan.errors import InputError

    found = w.found
    if w.inv is None or w.site.kind not in SCRIPT_KINDS or "parallel.nodes" in found.values:
        return
    options = parse(w.inv).options
    raw, line = options.get(RAY, (None, None))
    gpu = found.values.get("hardware.gpu")
    if str(raw).lower() != "ray" or "--nnodes" in options or gpu is None:
        return
    try:
        per_node = resolve_gpu(str(gpu)).gpus_per_node
    except InputError:
        return  # an unknown GPU is the plan's own ERROR
    tp = int(found.values.get("parallel.tensor", 1) or 1)
    pp = int(found.values.get("parallel.pipeline", 1) or 1)
    engine_gpus = tp * pp * max(w.dp, 1)
    if tp <= per_node or per_node < 1:
        return
    nodes = -(-engine_gpus // per_node)
    found.put("parallel.nodes", nodes, line or found.lines.get("hardware", 0), f"{RAY} ray")
    _now_used(w.notes, RAY)
    w.notes.append(f"{RAY} ray without --nnodes: the engine's {engine_gpus} GPUs (tensor {tp}"
                   + (f" x pipeline {pp}" if pp > 1 else "") + f") span the Ray cluster the "
                   f"script's head node joins, {nodes} nodes of {per_node} {gpu} GPUs (vLLM "
                   "places one GPU a rank over the cluster; the other nodes run `ray start "
                   "--address=...`)")


def _now_used(notes: list[str], flag: str) -> None:
    """Take `flag` out of the "not used by kvplan's plan" note (kvplan.check.manifests.unread),
    written before the GPU was known, once the plan uses it; the note goes when it names no
    other option."""
    from kvplan.check.manifests.unread import unread_note

    head = "not used by kvplan's plan: "
    for i, note in enumerate(notes):
        if note.startswith(head) and " (kvplan reads" in note:
            listed = note[len(head):note.index(" (kvplan reads")].split(", ")
            if flag in listed:
                rest = unread_note([f for f in listed if f != flag])
                notes[i:i + 1] = [rest] if rest else []
            return
