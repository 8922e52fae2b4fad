"""The GPU labels a pod selects its node by: `nodeSelector`, and the match expressions of
`affinity.nodeAffinity` (task h91readers2; split from kvplan.check.manifests.hardware).

Kubernetes API reference, NodeAffinity / NodeSelector v1: the terms of
`requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms` are ORed and the expressions
of one term ANDed, "the pod will not be scheduled onto the node" unless they hold; with
`nodeSelector` too, both must hold. `preferredDuringSchedulingIgnoredDuringExecution` terms are
weights "the scheduler will prefer to schedule pods to nodes that satisfy": the pod may run
elsewhere. So:

- a GPU label (docs/check.md, "GPU labels": `nvidia.com/gpu.product`,
  `cloud.google.com/gke-accelerator`, `karpenter.k8s.aws/instance-gpu-name`, ...) a required
  term matches with `In` is a GPU the pod may run on; several values (or terms) are several GPUs
  the scheduler may pick from, and the deployment must start on each: it is checked on the one
  with the least memory (a GPU spec's memory_bytes), said in a note (before, on the first
  listed: nvidia.com/gpu.product In [NVIDIA-H100-80GB-HBM3, NVIDIA-L4] was a PASS on the H100
  that the pod's L4 node may not start). A GPU the nodeSelector names is required on every
  node: the affinity's other GPUs are not candidates then;
- a GPU label tested with another operator (NotIn, Exists, DoesNotExist, Gt, Lt) names no GPU
  the pod runs on: noted, not read (before, passed over in silence);
- a preferred term's GPU label is a preference: noted, not read as the GPU;
- where no GPU label is read, the required terms' other labels (`gpu.nvidia.com/model In
  [H200]`, a cluster's own) are named in a note as nodeSelector's are: kvplan does not read
  them as a GPU (before, passed over in silence).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kvplan.check.gpus import LABEL_KEYS
from kvplan.deploy.yamldoc import Doc, Key

REQUIRED = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
PREFERRED = ("affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
# Kubernetes' well-known node labels (kubernetes.io/docs/reference/labels-annotations-taints):
# the node's OS, CPU architecture, name and zone, never its GPU
WELL_KNOWN = ("kubernetes.io/os", "kubernetes.io/arch", "kubernetes.io/hostname",
              "beta.kubernetes.io/os", "beta.kubernetes.io/arch")


def well_known(key: str) -> bool:
    return key in WELL_KNOWN or key.startswith(("topology.kubernetes.io/",
                                                "node.kubernetes.io/"))


def _expressions(pod: dict[str, Any], path: tuple[str, ...]
                 ) -> Iterator[tuple[Key, dict[str, Any], Any]]:
    """(the expression's key path, the expression, the term's weight or None) of each match
    expression under `path` (required: nodeSelectorTerms; preferred: each term's preference)."""
    node: Any = pod
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    items: list[tuple[Key, Any, Any]]
    if path == REQUIRED:
        terms = node.get("nodeSelectorTerms") if isinstance(node, dict) else None
        items = [((*path, "nodeSelectorTerms", t), term, None)
                 for t, term in enumerate(terms if isinstance(terms, list) else [])]
    else:
        items = [((*path, t, "preference"), (term or {}).get("preference"),
                  (term or {}).get("weight"))
                 for t, term in enumerate(node if isinstance(node, list) else [])
                 if isinstance(term, dict)]
    for at, term, weight in items:
        exprs = term.get("matchExpressions") if isinstance(term, dict) else None
        for e, expr in enumerate(exprs if isinstance(exprs, list) else []):
            if isinstance(expr, dict):
                yield (*at, "matchExpressions", e), expr, weight


def _said(expr: dict[str, Any]) -> str:
    values = expr.get("values")
    shown = f" [{', '.join(str(v) for v in values)}]" if isinstance(values, list) else ""
    return f"{expr.get('key')} {expr.get('operator', 'In')}{shown}"


def gpu_labels(pod: dict[str, Any], at: Key, doc: Doc) -> list[tuple[str, str, int, str]]:
    """(label key, value, line, where: "nodeSelector" or "affinity") of every GPU label the
    pod's node must have: nodeSelector's, and each value of a required term's `In`."""
    out: list[tuple[str, str, int, str]] = []
    selector = pod.get("nodeSelector") or {}
    if isinstance(selector, dict):
        for key in LABEL_KEYS:
            if key in selector:
                out.append((key, str(selector[key]), doc.line(*at, "nodeSelector", key),
                            "nodeSelector"))
    for e_at, expr, _ in _expressions(pod, REQUIRED):
        if expr.get("key") not in LABEL_KEYS or expr.get("operator", "In") != "In":
            continue
        values = expr.get("values")
        for v, value in enumerate(values if isinstance(values, list) else []):
            out.append((str(expr["key"]), str(value), doc.line(*at, *e_at, "values", v),
                        "affinity"))
    return out


def affinity_notes(pod: dict[str, Any], at: Key, doc: Doc, gpu_named: bool) -> list[str]:
    """What the node affinity says that kvplan does not read as the GPU, each named: a GPU label
    tested with another operator than `In`, a preferred term's GPU label, and (when no GPU label
    is read) a required term's other labels."""
    out: list[str] = []
    unread: list[str] = []
    for e_at, expr, _ in _expressions(pod, REQUIRED):
        key, line = str(expr.get("key")), doc.line(*at, *e_at)
        if key in LABEL_KEYS and expr.get("operator", "In") != "In":
            out.append(f"node affinity {_said(expr)} (line {line}): {expr.get('operator')} names "
                       "no GPU the pod runs on (only a required `In` does), so kvplan does not "
                       "read it as the GPU")
        elif key not in LABEL_KEYS and not well_known(key):
            unread.append(f"{_said(expr)} (line {line})")
    for e_at, expr, weight in _expressions(pod, PREFERRED):
        key, line = str(expr.get("key")), doc.line(*at, *e_at)
        if key in LABEL_KEYS:
            out.append(f"node affinity preferred{'' if weight is None else f' (weight {weight})'}"
                       f" {_said(expr)} (line {line}): a preference, the scheduler may place the "
                       "pod on a node without it (preferredDuringSchedulingIgnoredDuringExecution)"
                       ", so it does not name the GPU")
    if unread and not gpu_named:
        out.append(f"node affinity {', '.join(unread)}: not a GPU label kvplan reads "
                   "(docs/check.md, \"GPU labels\"), so no GPU is named by it")
    return out


def smallest(mapped: list[tuple[str, str, str, int, str]], memory: dict[str, int]
             ) -> tuple[int, str]:
    """(the index in `mapped` of the GPU to check on, the note that says why) among the GPUs the
    labels allow: (catalog name, key, value, line, where) each; nodeSelector's are required, so
    the affinity's others are candidates only without them; the least memory_bytes, the first
    listed of those."""
    names = sorted({m[0] for m in mapped})
    chosen = [i for i, m in enumerate(mapped) if m[4] == "nodeSelector"] or list(range(len(mapped)))
    best = min(chosen, key=lambda i: (memory[mapped[i][0]], i))
    if len(names) == 1:
        return best, ""
    candidates = sorted({mapped[i][0] for i in chosen})
    if len(candidates) == 1:
        return best, (f"node affinity allows {', '.join(names)}; the nodeSelector requires "
                      f"{candidates[0]}: checked on it")
    return best, (f"node affinity allows {', '.join(candidates)}: the scheduler may place the pod "
                  f"on any of them, so it is checked on {mapped[best][0]}, the one with the "
                  f"least memory ({memory[mapped[best][0]] / 2**30:.2f} GiB); give kvplan.io/gpu "
                  "to check another")
