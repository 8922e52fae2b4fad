"""dstack replica groups: a service whose `replicas` is a list of groups (dstack 0.20.7 on,
dstackai/dstack bd2d485f), renamed `groups` in d667f128 with the list under `replicas` kept as
its legacy spelling (ServiceConfiguration._normalize_legacy_replica_groups, dstack 0.22.5
src/dstack/_internal/core/models/configurations.py). Each group is its own deployment and is
judged as one (kvplan.check.manifests.dstack.unit_targets), named `replica group NAME` in the
verdict (NAME is the group's `name`, else its position: '0', '1', ... as validate_groups sets
it). What a group runs, as dstack's server reads it (server/services/jobs/configurators/base.py
_requirements, 0.22.5): its own `commands`, its own `resources` (the top level's are not used:
`resources = group.resources`), its own `image`, else the service's; `env` is the service's (a
group has none). `replicas` / `count` (a group's count of replicas, `count` its alias) moves no
per-engine verdict and is noted. A group whose commands start no engine and name none (the SMG
or Dynamo router) is no deployment: noted beside the groups judged.

Refused as dstack refuses them (the validators of ServiceConfiguration and ReplicaGroup, named
in each message): `replicas` and `groups` both set; an empty list; top-level `commands` or
`scaling` beside groups; two groups of one name; `image` at both levels. Refused as kvplan
cannot read them: a group that is not a mapping, or one without `commands` (it runs its image's
own entry point, which the file does not hold).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

# a ReplicaGroup's keys (dstack src/dstack/_internal/core/models/configurations.py `class
# ReplicaGroup`, `count` its alias of `replicas`, at dstackai/dstack 511c318c); dstack's models
# forbid any other key (core/models/common.py CoreModel: extra="forbid"), so `dstack apply`
# refuses a group with one (an `env` in a group: a group has none, the service's applies)
GROUP_KEYS = frozenset({"name", "replicas", "count", "scaling", "resources", "spot_policy",
                        "reservation", "commands", "image", "python", "nvcc", "docker",
                        "privileged", "router"})


def groups_of(data: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """(key, groups) of a service whose `groups` or `replicas` is a list; None otherwise."""
    if data.get("type") != "service":
        return None
    for key in ("groups", "replicas"):
        if isinstance(data.get(key), list):
            return key, data[key]
    return None


def _refusal(data: dict[str, Any], key: str, groups: list[Any], doc: Doc) -> Problem | None:
    """dstack's own refusals of a service with replica groups, or a group kvplan cannot read."""
    if key == "groups" and data.get("replicas") is not None:
        return Problem("replicas", "`replicas` and `groups` are mutually exclusive (dstack "
                       "refuses both); keep the groups", doc.line("replicas"))
    if not groups:
        return Problem(key, "an empty list of replica groups (dstack refuses it: `groups` "
                       "cannot be an empty list)", doc.line(key))
    for top in ("commands", "scaling"):
        if data.get(top):
            return Problem(top, (
                f"top-level `{top}` is not allowed when `{key}` is a list of replica groups "
                f"(dstack refuses it); write `{top}` in each group"), doc.line(top))
    seen: set[str] = set()
    for i, group in enumerate(groups):
        at = doc.line(key, i)
        if not isinstance(group, dict):
            return Problem(f"{key}[{i}]", f"{group!r} is not a replica group (a mapping of "
                           "count, commands, resources, ...)", at)
        name = str(group.get("name") if group.get("name") is not None else i)
        if name in seen:
            return Problem(f"{key}[{i}].name", f"{name!r} names two replica groups (dstack "
                           "refuses duplicate group names)", doc.line(key, i, "name"))
        seen.add(name)
        unknown = sorted(str(k) for k in group if str(k) not in GROUP_KEYS)
        if unknown:
            where = ("; set it at the service level (the service's env applies to every group)"
                     if "env" in unknown else "")
            return Problem(f"{key}[{i}].{unknown[0]}", (
                f"replica group {name}: {', '.join(map(repr, unknown))} "
                f"{'is not a key' if len(unknown) == 1 else 'are not keys'} of a dstack replica "
                "group (dstack refuses unknown keys; a group takes "
                + ", ".join(sorted(GROUP_KEYS)) + f"){where}"), doc.line(key, i, unknown[0]))
        if group.get("image") is not None and not isinstance(group["image"], str):
            from kvplan.check.manifests.dstack import image_problem

            return image_problem(group["image"], (key, i, "image"), doc)
        if group.get("image") and data.get("image"):
            return Problem(f"{key}[{i}].image", (
                "`image` is set at both the service level and in this replica group (dstack "
                "refuses it); set it in one place"), doc.line(key, i, "image"))
        commands = group.get("commands")
        if not isinstance(commands, list) or not commands:
            why = ("runs its image's own entry point, which the file does not hold; write its "
                   "server in the group's `commands` to have it checked"
                   if group.get("image") or data.get("image") else
                   "has neither `commands` nor an `image` (dstack refuses it)")
            if commands is not None and not isinstance(commands, list):
                why = f"`commands` {commands!r} is not a list of shell commands"
            return Problem(f"{key}[{i}].commands", f"replica group {name} {why}", at)
    return None


def group_targets(doc: Doc, path: Path, side_cache: dict[Path, Any],
                  default_gpu: str | None) -> list[Target] | None:
    """One deployment per replica group (each with its own candidate GPUs), in file order;
    None when no group starts an engine or names one."""
    from kvplan.check.manifests.dstack import LAUNCHER, Unit, unit_targets

    data = doc.data
    found = groups_of(data)
    assert found is not None
    key, groups = found
    problem = _refusal(data, key, groups, doc)
    if problem is not None:
        return [Target(file=str(path), kind=SCRIPT, line=problem.line or doc.line(key),
                       launcher=LAUNCHER, problems=[problem])]
    out: list[Target] = []
    idle: list[str] = []
    for i, group in enumerate(groups):
        name = str(group.get("name") if group.get("name") is not None else i)
        count = group.get("replicas", group.get("count"))
        notes = [f"replica group {name}: {key}[{i}] of the service, judged as its own "
                 f"deployment (its own commands, resources and image; the service's env)"]
        if count is not None:
            notes.append(f"replica group {name}: count {count}: each replica is one copy of "
                         "this group; the verdict is per engine and replicas do not move it")
        unit = Unit(commands=group["commands"], resources=group.get("resources"),
                    image=str(group.get("image") or data.get("image") or ""), at=(key, i),
                    said=f"replica group {name}", notes=notes)
        got = unit_targets(doc, path, side_cache, default_gpu, unit, [])
        if got is None:
            idle.append(name)
            continue
        out += got
    if not out:
        return None
    shared: list[str] = []
    if idle:
        many = len(idle) > 1
        shared.append(f"replica group{'s' if many else ''} {', '.join(idle)} "
                      f"start{'' if many else 's'} no engine kvplan reads and name{'' if many else 's'} "
                      "none (a router or a helper): not judged")
    if data.get("resources") is not None:
        shared.append("top-level resources: not used by replica groups (dstack provisions "
                      "each group with its own `resources`)")
    for target in out:
        target.notes = [*target.notes, *shared]
    return out
