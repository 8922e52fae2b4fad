"""AIBrix StormService (orchestration.aibrix.ai/v1alpha1): spec.replicas role sets (default 1),
each with the roles of spec.template.spec.roles; a role runs `replicas` instances (default 1)
of `podGroupSize` pods (default 1: multi-node when more) from its pod template (vllm-project/
aibrix api/orchestration/v1alpha1/stormservice_types.go, roleset_types.go). Each role that runs
an engine (prefill, decode, or one aggregated role) is checked on its own."""

from __future__ import annotations

import json
from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, template_site
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

KINDS = ("StormService",)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    schema = "AIBrix StormService CRD, orchestration.aibrix.ai/v1alpha1"
    spec = typed(data, "spec", (), doc, bad, schema)
    sets = spec.get("replicas", 1)
    tmpl = typed(spec, "template", ("spec",), doc, bad, schema)
    roles = typed(typed(tmpl, "spec", ("spec", "template"), doc, bad, schema), "roles",
                  ("spec", "template", "spec"), doc, bad, schema, list)
    base = str(as_dict(data.get("metadata")).get("name") or "stormservice")
    out = []
    for i, role in enumerate(roles if isinstance(roles, list) else []):
        at = ("spec", "template", "spec", "roles", i)
        if not isinstance(role, dict):  # a role is a RoleSpec mapping: named, never skipped
            bad.append(mistyped(at, dict, role, doc, schema))
            continue
        n = role.get("replicas", 1)
        site = template_site(role, at, "StormService", n, (*at, "replicas") if "replicas" in role
                             else ("spec", "replicas") if "replicas" in spec else None, doc)
        if isinstance(n, bool) or not isinstance(n, int):  # true was read as 1 (task h51sweep)
            site.problems.append(Problem(".".join(map(str, (*at, "replicas"))),
                                         f"{json.dumps(n, default=str)[:40]} is not a count "
                                         "of replicas; write a whole number",
                                         doc.line(*at, "replicas")))
        elif isinstance(sets, int) and not isinstance(sets, bool):
            site.replicas = sets * n
            if sets != 1:
                site.notes.append(f"{sets} role sets x {n} {role.get('name', 'role')} "
                                  "replica(s)")
        size = role.get("podGroupSize", 1)
        if isinstance(size, int) and size > 1:
            site.pods_per_engine = size
            site.notes.append(f"a group of {size} pods runs one engine (podGroupSize)")
        elif size is not None and not isinstance(size, int):
            site.problems.append(Problem("podGroupSize", f"{size!r} is not a count",
                                         doc.line(*at, "podGroupSize")))
        site.group, site.line_at = i, at
        # RoleSpec.name is a string: a list was written into the server's name in silence
        site.name = f"{base} {typed(role, 'name', at, doc, site.problems, schema, str) or i}"
        out.append(site)
    if bad:  # a wrong-typed field the reader walks: named, never a silent skip
        return [PodSite("StormService", {}, ("spec",), [], problems=bad)]
    return out
