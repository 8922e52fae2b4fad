"""The options that place one engine over several nodes (`--nnodes N`, `--node-rank R`, vLLM's
and SGLang's spelling alike), named for what they are in one note instead of the not-used list
(task h53checkgaps: AIBrix's SGLang StormService tp-1p1d listed `--nnodes 2` as not used,
though the engine's GPUs come from its pod group of 2). kvplan counts an engine's GPUs from the
pods the file runs for it (a LeaderWorkerSet's, StormService's, OME's or llm-d's group, a Ray
cluster), so the note says whether --nnodes agrees with them.
"""

from __future__ import annotations

from typing import Any

NODE_OPTIONS = ("--nnodes", "--node-rank")


def node_note(options: dict[str, tuple[Any, Any]], pods: int) -> str | None:
    """The note for the node options among `options` (flag -> (raw value, line)), for an
    engine the file runs over `pods` pods; None when neither is given."""
    given = [f for f in NODE_OPTIONS if f in options]
    if not given:
        return None
    said = ", ".join(given)
    raw = options.get("--nnodes", (None, None))[0]
    try:
        nodes = int(str(raw)) if raw is not None else None
    except ValueError:
        nodes = None
    parts = {"--nnodes": "the nodes one engine spans", "--node-rank": "this pod's place among "
             "the nodes"}
    what = f"{said}: {' and '.join(parts[f] for f in given)} (not a KV-pool option)"
    group = f"a group of {pods} pods" if pods > 1 else "one pod"
    if nodes is not None and nodes < 1:
        return (f"{what}; --nnodes {nodes} is not a node count (1 or more): kvplan counts the "
                f"engine's GPUs from the pods that run it, {group}")
    if nodes is None or nodes == pods:
        agree = f", which --nnodes {nodes} agrees with" if nodes is not None else ""
        return f"{what}; kvplan counts the engine's GPUs from the pods that run it, {group}{agree}"
    return (f"{what}; --nnodes {nodes} says {nodes} nodes, but the file runs {group} per engine: "
            "kvplan counts the engine's GPUs from those pods")
