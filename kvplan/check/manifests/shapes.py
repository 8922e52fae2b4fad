"""The types of the pod-template fields kvplan reads, checked once before a reader walks them.

Kubernetes' API server refuses a Pod whose `env` is not a list or whose `resources` is not a
mapping (the PodSpec / Container schemas of the core/v1 API); a file with such a field never
deploys. kvplan says which field, on which line, and what it must be, instead of failing
deeper in a reader that takes the schema for granted.
"""

from __future__ import annotations

from typing import Any

from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

_REQUIRED = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
# (path under the pod spec, the type it must have; "*": each item of a list); core/v1 PodSpec,
# Affinity, NodeAffinity, NodeSelector (nodeSelectorTerms), NodeSelectorRequirement
_POD: tuple[tuple[tuple[str, ...], type], ...] = (
    (("affinity",), dict),
    (("affinity", "nodeAffinity"), dict),
    (("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"), dict),
    ((*_REQUIRED, "nodeSelectorTerms"), list),
    ((*_REQUIRED, "nodeSelectorTerms", "*"), dict),
    ((*_REQUIRED, "nodeSelectorTerms", "*", "matchExpressions"), list),
    ((*_REQUIRED, "nodeSelectorTerms", "*", "matchExpressions", "*"), dict),
    ((*_REQUIRED, "nodeSelectorTerms", "*", "matchExpressions", "*", "values"), list),
    (("containers",), list),
    (("nodeSelector",), dict),
    (("tolerations",), list),
    (("volumes",), list),
)
# core/v1 Container: image a string, command and args lists of strings (an item of another
# type was dropped from the command line in silence before task h51sweep), env (of EnvVar
# mappings, each name and value a string), envFrom and volumeMounts are lists, resources and
# its limits and requests mappings
_CONTAINER: tuple[tuple[tuple[str, ...], type], ...] = (
    (("image",), str),
    (("command",), list),
    (("command", "*"), str),
    (("args",), list),
    (("args", "*"), str),
    (("env",), list),
    (("env", "*"), dict),
    (("env", "*", "name"), str),
    (("env", "*", "value"), str),
    (("envFrom",), list),
    (("volumeMounts",), list),
    (("resources",), dict),
    (("resources", "limits"), dict),
    (("resources", "requests"), dict),
)
_WORDS: dict[type, str] = {dict: "a mapping", list: "a list", str: "a string", int: "an integer"}


def _kind(value: Any) -> str:
    return ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
            else "a string" if isinstance(value, str) else "a boolean" if isinstance(value, bool)
            else "a number")


def _check(node: Any, rules: tuple[tuple[tuple[str, ...], type], ...], at: tuple[Any, ...],
           doc: Doc, out: list[Problem]) -> None:
    for keys, want in rules:
        for where, value in _at(node, keys, at):
            if value is None or isinstance(value, want):
                continue
            out.append(mistyped(where, want, value, doc))


def _at(node: Any, keys: tuple[str, ...], at: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every node `keys` reaches from `node`; "*" walks each item of a list."""
    found: list[tuple[tuple[Any, ...], Any]] = [(at, node)]
    for key in keys:
        if key == "*":
            found = [((*w, i), item) for w, v in found if isinstance(v, list)
                     for i, item in enumerate(v)]
        else:
            found = [((*w, key), v.get(key)) for w, v in found if isinstance(v, dict)]
    return found


def mistyped(where: tuple[Any, ...], want: type, value: Any, doc: Doc,
             schema: str = "Kubernetes core/v1 schema") -> Problem:
    """The ERROR of a field at `where` that is not of type `want` (`schema`: what says so)."""
    return Problem(".".join(str(k) for k in where),
                   f"must be {_WORDS[want]} ({schema}), got {_kind(value)} "
                   f"({str(value)[:40]!r}); write it as {_WORDS[want]}, or remove it",
                   doc.line(*where))


def typed(block: dict[str, Any], key: str, at: tuple[Any, ...], doc: Doc, out: list[Problem],
          schema: str, want: type = dict) -> Any:
    """`block[key]` when absent or of type `want`, else the empty `want` with the field named
    in `out` (what a reader walks is read, or refused with its path and line; never skipped
    in silence: task h46silent)."""
    value = block.get(key)
    if value is None:
        return want()
    if isinstance(value, want):
        return value
    out.append(mistyped((*at, key), want, value, doc, schema))
    return want()


def shape_problems(pod: Any, pod_at: tuple[Any, ...],
                   containers: list[tuple[Any, tuple[Any, ...]]], doc: Doc) -> list[Problem]:
    """One Problem per field of the pod template or its containers that has the wrong type."""
    out: list[Problem] = []
    _check(pod, _POD, pod_at, doc, out)
    for container, at in containers:
        if not isinstance(container, dict):
            out.append(Problem(".".join(str(k) for k in at),
                               f"must be a mapping (a container), got {_kind(container)}; "
                               "write each container as a mapping with image and command",
                               doc.line(*at)))
            continue
        _check(container, _CONTAINER, at, doc, out)
    return out
