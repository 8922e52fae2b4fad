"""llm-d ModelService Helm values (llm-d-incubation/llm-d-modelservice, charts/
llm-d-modelservice at 3051935e): `decode` and `prefill` (each `create`, default true) are
Deployments (a LeaderWorkerSet when `multinode: true`) whose container runs, by `modelCommand`:

- vllmServe: `vllm serve <model> --port P [--tensor-parallel-size T] [--data-parallel-size D]
  [--data-parallel-size-local L] --served-model-name <modelArtifacts.name> <args>`;
- imageDefault: the image's entry point with `--model <model>` and the same options;
- custom (the default): the container's own command and args.

<model> comes from modelArtifacts.uri: `hf://<id>` is <id>, `pvc://<claim>/<path>` is
<mountPath>/<path> (default /model-cache), `pvc+hf://.../<ns>/<id>` is <ns>/<id>; oci:// is
refused as the chart refuses it. The GPUs a pod are the container's own accelerator limit,
else dataLocal x tensor of `parallelism` (defaults tensor 1, data 1, dataLocal 1, workers 1);
the resource is accelerator.type's (nvidia: nvidia.com/gpu, amd: amd.com/gpu, google:
google.com/tpu, ...). `acceleratorTypes` (labelKey, labelValues) selects the node. Values the
chart renders with tpl (`{{ .Values.modelArtifacts.name }}`) are substituted from the file.
"""

from __future__ import annotations

import re
from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

RESOURCES = {"nvidia": "nvidia.com/gpu", "intel-i915": "gpu.intel.com/i915",
             "intel-xe": "gpu.intel.com/xe", "intel-gaudi": "habana.ai/gaudi",
             "amd": "amd.com/gpu", "google": "google.com/tpu",
             "rebellions-atom": "rebellions.ai/ATOM"}
SCHEMA = "llm-d-modelservice chart values"
_VALUES_REF = re.compile(r"\{\{-?\s*\.Values\.([A-Za-z0-9_.]+)\s*-?\}\}")


def is_values(data: dict[str, Any]) -> bool:
    return isinstance(data.get("modelArtifacts"), dict) and any(
        isinstance(data.get(k), dict) for k in ("decode", "prefill"))


def _tpl(text: str, values: dict[str, Any]) -> str:
    """`{{ .Values.a.b }}` replaced by that scalar of the values (as the chart's tpl does)."""

    def sub(m: re.Match[str]) -> str:
        node: Any = values
        for part in m.group(1).split("."):
            node = as_dict(node).get(part)
        return str(node) if isinstance(node, (str, int, float)) else m.group(0)

    return _VALUES_REF.sub(sub, text)


def _model(values: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the model argument, or None with why)."""
    art = as_dict(values.get("modelArtifacts"))
    uri = _tpl(str(art.get("uri", "")), values)
    protocol, _, rest = uri.partition("://")
    rest = rest.strip().strip('"').strip("'")
    if protocol == "hf":
        return rest, None
    if protocol == "pvc":
        path = rest.split("/", 1)[1] if "/" in rest else ""
        return f"{art.get('mountPath', '/model-cache')}/{path}", None
    if protocol == "pvc+hf":
        parts = rest.split("/")
        return "/".join(parts[-2:]), None
    return None, f"modelArtifacts.uri {uri!r}: the chart renders only hf://, pvc:// and pvc+hf://"


def _int(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _role(values: dict[str, Any], role: str, doc: Doc, group: int) -> PodSite | None:
    bad: list[Problem] = []
    spec = typed(values, role, (), doc, bad, SCHEMA)
    if bad:  # a role of the wrong type: named, never skipped as if absent
        return PodSite(f"llm-d {role}", {}, (role,), [], group=group, name=role, problems=bad)
    if not spec or spec.get("create") is False:
        return None
    at: Key = (role,)
    items: list[Any] = typed(spec, "containers", at, doc, bad, SCHEMA, list)
    if group == 0:  # the chart-wide blocks: named once
        typed(values, "modelArtifacts", (), doc, bad, SCHEMA)
        typed(values, "accelerator", (), doc, bad, SCHEMA)
    typed(spec, "accelerator", at, doc, bad, SCHEMA)
    typed(spec, "acceleratorTypes", at, doc, bad, SCHEMA)
    c_i = next((i for i, c in enumerate(items) if as_dict(c).get("modelCommand")), 0)
    main = as_dict(items[c_i]) if items else {}
    c_at: Key = (*at, "containers", c_i)
    par = typed(spec, "parallelism", at, doc, bad, SCHEMA)
    tp, data, local, workers = (_int(par.get(k)) for k in ("tensor", "data", "dataLocal",
                                                           "workers"))
    if "data" not in par and "dataLocal" in par:
        data = local * workers
    if "dataLocal" not in par and "data" in par:
        local = max(data // max(workers, 1), 1)
    problems: list[Problem] = bad
    notes: list[str] = []
    command = str(main.get("modelCommand", "custom"))
    words: list[tuple[str, int]] = []
    lines: dict[Key, int] = {}
    container = dict(main)
    image = str(main.get("image", ""))
    if "llm-d-inference-sim" in image:  # the chart's simulator: no engine, no accelerator
        return PodSite(f"llm-d {role}", {"containers": [main]}, at, [], group=group, name=role)
    dra = as_dict(spec.get("accelerator")).get("dra", as_dict(values.get("accelerator")).get("dra"))
    if dra is True:
        problems.append(Problem("accelerator.dra", "dra: true takes the GPUs from a "
                                "ResourceClaimTemplate, not a resource limit; kvplan reads device "
                                "plugin limits (set dra: false, or check the rendered pods with "
                                "kubectl get pod -o yaml)", doc.line(*at, "accelerator", "dra")
                                if "dra" in as_dict(spec.get("accelerator"))
                                else doc.line("accelerator", "dra")))
    if command in ("vllmServe", "imageDefault"):
        model, why = _model(values)
        m_line = doc.line("modelArtifacts", "uri")
        if why:
            problems.append(Problem("modelArtifacts.uri", why, m_line))
        words = [("vllm", doc.line(*c_at, "modelCommand")), ("serve", doc.line(*c_at,
                                                                                "modelCommand"))]
        if command == "imageDefault":
            words.append(("--model", m_line))
            notes.append("modelCommand imageDefault: read as the image's `vllm serve`")
        words += [(model or "", m_line), ("--port", doc.line(*c_at)), ("8000", doc.line(*c_at))]
        p_line = doc.line(*at, "parallelism")
        for flag, value, key in (("--tensor-parallel-size", tp, "tensor"),
                                 ("--data-parallel-size", data, "data"),
                                 ("--data-parallel-size-local", local, "dataLocal")):
            if value > 1:
                words += [(flag, doc.line(*at, "parallelism", key) if key in par else p_line),
                          (str(value), p_line)]
        name = _tpl(str(as_dict(values.get("modelArtifacts")).get("name", "")), values)
        words += [("--served-model-name", doc.line("modelArtifacts", "name")),
                  (name, doc.line("modelArtifacts", "name"))]
        args: list[Any] = main["args"] if isinstance(main.get("args"), list) else []
        words += [(_tpl(str(a), values), doc.line(*c_at, "args", j)) for j, a in enumerate(args)]
        container["command"] = [w for w, _ in words]
        container.pop("args", None)
        lines = {c_at + ("command", k): line for k, (_, line) in enumerate(words)}
    elif command != "custom":
        problems.append(Problem("modelCommand", f"{command!r}: the chart takes vllmServe, "
                                "imageDefault or custom", doc.line(*c_at, "modelCommand")))
    accel = str(as_dict(spec.get("accelerator")).get("type")
                or as_dict(values.get("accelerator")).get("type") or "nvidia")
    resource = RESOURCES.get(accel)
    limits = as_dict(as_dict(main.get("resources")).get("limits"))
    if resource is not None and resource not in limits and local * tp >= 1 and dra is not True:
        res = dict(as_dict(main.get("resources")))
        res["limits"] = {**limits, resource: local * tp}
        container["resources"] = res
        lines[c_at + ("resources", "limits", resource)] = doc.line(*at, "parallelism")
        notes.append(f"{resource}: {local * tp} from parallelism (dataLocal {local} x tensor "
                     f"{tp}), as the chart fills it in")
    pod: dict[str, Any] = {"containers": [container]}
    sel = typed(spec, "acceleratorTypes", at, doc, problems, SCHEMA)
    # the node label that names the GPU: of another type it was read as no GPU named, in silence
    key = typed(sel, "labelKey", (*at, "acceleratorTypes"), doc, problems, SCHEMA, str)
    typed(sel, "labelValues", (*at, "acceleratorTypes"), doc, problems, SCHEMA, list)
    if key and isinstance(sel.get("labelValues"), list) and sel["labelValues"]:
        pod["nodeSelector"] = {str(sel["labelKey"]): str(sel["labelValues"][0])}
        lines[at + ("nodeSelector", str(sel["labelKey"]))] = doc.line(*at, "acceleratorTypes",
                                                                      "labelValues", 0)
        if len(sel["labelValues"]) > 1:
            notes.append(f"acceleratorTypes allows {', '.join(map(str, sel['labelValues']))}; "
                         f"checked on {sel['labelValues'][0]}")
    replicas: Any = spec.get("replicas", 1)
    per_engine = 1
    if values.get("multinode") is True and workers > 1:
        if data > 1 and isinstance(replicas, int):
            replicas = replicas * workers  # each pod holds dataLocal data-parallel ranks
            notes.append(f"multinode: {workers} pods a group, {local} data-parallel rank(s) "
                         "a pod")
        else:
            per_engine = workers
            notes.append(f"multinode: a group of {workers} pods runs one engine")
    site = PodSite(f"llm-d {role}", pod, at, [(container, c_at)], replicas,
                   (*at, "replicas") if "replicas" in spec else at, per_engine,
                   group=group, name=role, lines=lines, problems=problems, notes=notes,
                   line_at=at)
    return site


def sites(values: dict[str, Any], doc: Doc) -> list[PodSite]:
    out = []
    for g, role in enumerate(("decode", "prefill")):
        site = _role(values, role, doc, g)
        if site is not None:
            out.append(site)
    return out
