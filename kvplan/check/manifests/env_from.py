"""A Kubernetes container's environment as the kubelet builds it from its ConfigMaps (task
h90readers): `envFrom: [{configMapRef: {name: X}, prefix: P}]` gives every key of ConfigMap X's
`data` as a variable (named P + key), and `env: [{name: N, valueFrom: {configMapKeyRef: {name: X,
key: K}}}]` one key. Kubernetes API reference, Container v1, `envFrom`: "When a key exists in
multiple sources, the value associated with the last source will take precedence. Values defined
by an Env with a duplicate key will take precedence." Command and args then expand `$(NAME)`
from that environment ("Variable references $(VAR_NAME) are expanded using the container's
environment. If a variable cannot be resolved, the reference in the input string will be
unchanged"), so `--max-model-len $(MAX_MODEL_LEN)` is the ConfigMap's value.

The ConfigMaps are the run's (every file checked together): the one of that name in the same
file, else in the same folder, else the only one of that name (a namespace both state must
match). Before, the value was read as the text `$(MAX_MODEL_LEN)` ("is not a number") or
`$(VLLM_MODEL)` ("not in the catalog"): QuentinHamonic/llm-ops-sandbox's k8s/vllm/deployment.yaml
and configmap.yaml. A reference kvplan cannot resolve because a ConfigMap is not among the files,
or a Secret holds it (`secretRef`, `secretKeyRef`: values kvplan does not read), is one ERROR
naming that source; a ConfigMap `data` value that is not a string is refused as the API server
refuses it (ConfigMap.data is map[string]string)."""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.check.manifests.run_scope import RunScope, mapping_documents
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)()")
_SHELL_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class ConfigMap:
    name: str
    namespace: str | None
    path: Path
    doc: Doc

    def data(self) -> dict[Any, Any]:
        data = self.doc.data.get("data") if isinstance(self.doc.data, dict) else None
        return data if isinstance(data, dict) else {}


@dataclass
class Run:
    config_maps: dict[str, list[ConfigMap]] = field(default_factory=dict)
    referenced: set[str] = field(default_factory=set)  # ConfigMaps a container's env reads


def collect(files: list[Path]) -> Run:
    run = Run()
    for path, doc in mapping_documents(files, "onfigMap"):  # ConfigMap, configMapRef
        meta = doc.data.get("metadata")
        if doc.data.get("kind") == "ConfigMap" and isinstance(meta, dict) and meta.get("name"):
            name = str(meta["name"])
            ns = meta.get("namespace")
            run.config_maps.setdefault(name, []).append(
                ConfigMap(name, None if ns is None else str(ns), path, doc))
        run.referenced.update(_references(doc.data))
    return run


def _references(data: Any) -> set[str]:
    """The ConfigMap names any `configMapRef` / `configMapKeyRef` in `data` names."""
    out: set[str] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("configMapRef", "configMapKeyRef") and isinstance(value, dict) and \
                        value.get("name"):
                    out.add(str(value["name"]))
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return out


_SCOPE: RunScope[Run] = RunScope("env_from", Run(), collect)
current, run_of = _SCOPE.current, _SCOPE.of


def referenced(name: str) -> bool:
    """Whether a container of the run reads ConfigMap `name` into its environment."""
    return name in current().referenced


def find(name: str, path: Path, namespace: str | None) -> ConfigMap | None:
    found = [c for c in current().config_maps.get(name, [])
             if c.namespace is None or namespace is None or c.namespace == namespace]
    for near in ([c for c in found if c.path == path],
                 [c for c in found if c.path.parent == path.parent], found):
        if len(near) == 1 or (near and near is not found):
            return near[-1]
    return None


@dataclass
class Env:
    """The container's variables kvplan knows, and why the others are unknown."""

    values: dict[str, str] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)  # name -> why (a Secret's, ...)
    sources: list[str] = field(default_factory=list)  # sources whose names kvplan cannot list
    notes: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (field, message)

    def refusals(self, inv: Any, shell: bool, line: int | None,
                 escaped: Container[int] = ()) -> list[Problem]:
        """The ERRORs of the server `inv` runs: a ConfigMap data value that is not a string (at
        `line`, its envFrom), then the first `$(NAME)` (in a `sh -c` script also `$NAME` /
        `${NAME}`) the sources leave unset, in the model or an option kvplan reads: one in an
        option kvplan does not read (`--api-key=$(VLLM_API_KEY)` from a Secret) is passed over
        as before (shell_runtime.runtime_only)."""
        out = [Problem(f, message, line) for f, message in self.problems]
        if not (self.sources or self.unknown):
            return out
        from kvplan.check.argv import parse
        from kvplan.check.manifests.shell_runtime import runtime_only

        refs = (_REF, _SHELL_REF) if shell else (_REF,)
        bad = [w for w in inv.words if id(w) not in escaped and  # `$$(X)`: the text $(X)
               any(r.search(w.text) for r in refs)]
        for w in runtime_only(inv, parse(inv), bad)[0] if bad else []:
            why = next((y for r in refs if (y := self.why_unresolved(w.text, r))), None)
            if why is not None:
                return [*out, Problem("", why, w.line)]
        return out

    def why_unresolved(self, text: str, ref: re.Pattern[str] = _REF) -> str | None:
        """Why a `$(NAME)` left in `text` is not expanded, when the container's sources say."""
        for m in ref.finditer(text):
            name, said = m.group(1) or m.group(2), m.group(0)
            if name in self.unknown:
                return f"{text!r}: {said} is {self.unknown[name]}"
            if self.sources:
                return (f"{text!r}: {said} is set by none of the container's env entries; "
                        f"{' and '.join(self.sources)} may set it")
        return None


def container_env(c: dict[str, Any], path: Path, doc: Doc) -> Env:
    """The variables of container `c` of document `doc`: its envFrom sources in order, then its
    env entries."""
    meta = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    namespace = None if ns is None else str(ns)
    out = Env()
    for item in c.get("envFrom") or []:
        if not isinstance(item, dict):
            continue
        prefix = str(item.get("prefix") or "")
        ref = item.get("configMapRef")
        if isinstance(ref, dict) and ref.get("name"):
            _from_config_map(out, str(ref["name"]), prefix, bool(ref.get("optional")), path,
                             namespace)
        secret = item.get("secretRef")
        if isinstance(secret, dict) and secret.get("name"):
            out.sources.append(f"Secret {secret['name']} (envFrom), whose values kvplan does "
                               "not read,")
    for e in c.get("env") or []:
        if not isinstance(e, dict) or not e.get("name"):
            continue
        name = str(e["name"])
        out.unknown.pop(name, None)
        if "value" in e:
            out.values[name] = str(e.get("value"))
            continue
        got = e.get("valueFrom")
        source: dict[str, Any] = got if isinstance(got, dict) else {}
        key_ref = source.get("configMapKeyRef")
        out.values.pop(name, None)
        if isinstance(key_ref, dict) and key_ref.get("name") and key_ref.get("key"):
            _key(out, name, str(key_ref["name"]), str(key_ref["key"]), path, namespace)
        elif isinstance(source.get("secretKeyRef"), dict):
            out.unknown[name] = ("a Secret's key (env valueFrom.secretKeyRef), whose value "
                                 "kvplan does not read: write the value in the manifest, or "
                                 "describe the deployment in a kvplan/v1 file")
        else:
            out.unknown[name] = ("set at run time (env valueFrom: a field or a resource of the "
                                 "pod), which kvplan does not read: write the value in the "
                                 "manifest")
    return out


def _missing(name: str) -> str:
    return (f"from ConfigMap {name}, which is not among the files checked: give its file too "
            f"(kvplan check the manifest and the ConfigMap's file together, or their folder)")


def _from_config_map(out: Env, name: str, prefix: str, optional: bool, path: Path,
                     namespace: str | None) -> None:
    cm = find(name, path, namespace)
    if cm is None:
        out.sources.append(f"ConfigMap {name} (envFrom{', optional' if optional else ''}), "
                           "which is not among the files checked (give its file too),")
        return
    where = "this file" if cm.path == path else cm.path.name
    read = []
    for key, value in cm.data().items():
        if not isinstance(value, str):
            out.problems.append(("envFrom", (
                f"ConfigMap {name} ({where}) data.{key} is {value!r}, not a string: the API "
                "server refuses a ConfigMap whose data values are not strings "
                "(ConfigMap.data is map[string]string); quote it")))
            continue
        out.values[prefix + str(key)] = value
        out.unknown.pop(prefix + str(key), None)
        read.append(prefix + str(key))
    out.notes.append(f"envFrom ConfigMap {name} ({where}): its data gives the container "
                     f"{', '.join(read) if read else 'no variables'}"
                     + (f" (prefix {prefix!r})" if prefix else ""))


def _key(out: Env, name: str, cm_name: str, key: str, path: Path,
         namespace: str | None) -> None:
    cm = find(cm_name, path, namespace)
    if cm is None:
        out.unknown[name] = _missing(cm_name) + f" (env {name}: configMapKeyRef key {key})"
        return
    value = cm.data().get(key)
    where = "this file" if cm.path == path else cm.path.name
    if not isinstance(value, str):
        out.unknown[name] = (f"ConfigMap {cm_name} ({where}) key {key}, which it "
                             + ("does not hold" if value is None else
                                f"holds as {value!r}, not a string (the API server refuses it)"))
        return
    out.values[name] = value
    out.notes.append(f"env {name}: ConfigMap {cm_name} ({where}) key {key} = {value!r}")
