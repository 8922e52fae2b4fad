"""SkyPilot task YAML (`sky launch` / `sky serve up`): `resources`, `envs`, `setup`, `run`,
`num_nodes`, `service`. The task's `run` is a shell script, read by the script reader
(kvplan.check.manifests.shell) with `envs` as its exported variables and SkyPilot's own
(SKYPILOT_NUM_GPUS_PER_NODE, SKYPILOT_NUM_NODES, SKYPILOT_NODE_RANK of the head node, 0).

The GPU is `resources.accelerators` (or `resources.gpus`) in SkyPilot's names, NAME:COUNT per
node, count 1 when left out; a set, a list, or `resources.any_of` / `ordered` are candidates
SkyPilot may launch any of: each is checked (kvplan.check.alternatives) and the verdict says
which start. SkyPilot's names map to catalog GPUs through SKYPILOT_GPUS (SkyPilot's catalog
names, docs/source/compute/show-gpus-all.txt of skypilot-org/skypilot at 1c9d60bd; its A100 is
the 40 GB part, A100-80GB the 80 GB one); a name the table lacks is refused with the reason. An
`envs` value of null is set at launch (`--env`), which the file does not hold: a server word
that needs it is refused, as the script reader refuses a variable the script does not set.
`resources.image_id: docker:IMAGE` is the container the task runs in: its tag names the engine
release (kvplan.check.manifests.image_tag); an `any_of` / `ordered` option's own `image_id` is
its candidates' container alone; else an exact `pip install` pin in `setup` is the release
(launcher_sites.pip_pins). A count above the most GPUs of its name that any cloud of SkyPilot's
catalog offers on one node (skypilot_gpus.SKYPILOT_MAX_PER_NODE) is refused. `service.replicas`
/ `replica_policy` is a replica count: it moves no per-engine verdict (noted). Keys that do not
move the KV pool (disk_size, cpus, memory, ports, cloud, region, use_spot, file_mounts, ...) are
not read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kvplan.check.manifests.launcher_sites import env_at, installed, launcher_targets, pip_pins
from kvplan.check.manifests.pods import as_dict
from kvplan.check.manifests.skypilot_gpus import (
    OWN_MACHINES,
    SKYPILOT_GPUS,
    Candidate,
    candidates,
    over_node,
    overridden,
)
from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

TASK_KEYS = ("resources", "setup", "envs", "service", "num_nodes")
_NOT_TASK = ("kind", "apiVersion", "services", "deployment", "version")
# a Kubernetes container's resources keys, none of SkyPilot's (task h56review: a YAML with `run`
# and `resources: {limits: {nvidia.com/gpu: 1}}` was read as a task, its limits unread)
_K8S_RESOURCES = ("limits", "requests", "claims")


def is_task(data: Any) -> bool:
    """A SkyPilot task: a mapping with a `run` script and `resources` (or setup, envs, service,
    num_nodes), none of a Kubernetes object's, a compose file's or a kvplan/v1 file's keys."""
    if not isinstance(data, dict) or any(k in data for k in _NOT_TASK):
        return False
    res = data.get("resources")
    if isinstance(res, dict) and any(k in res for k in _K8S_RESOURCES):
        return False  # a container's resources (limits: nvidia.com/gpu), no SkyPilot key
    return isinstance(data.get("run"), str) and any(k in data for k in TASK_KEYS)


def _text_start(path: Path, doc: Doc) -> int:
    """The file line the `run` script's first line is on: the line after `run: |`."""
    line = doc.line("run")
    try:
        raw = path.read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError, UnicodeDecodeError):
        return line
    after = raw.split(":", 1)[1].split("#", 1)[0].strip() if ":" in raw else ""
    return line + 1 if after[:1] in ("|", ">", "") else line


def _envs(data: dict[str, Any], doc: Doc) -> tuple[dict[str, str], list[str], list[Problem]]:
    """(the variables `envs` sets, those left for launch, problems). Left for launch: a null
    value, and a value that is the variable's own name (`MODEL_NAME: $MODEL_NAME`, task
    h100corpus: bmills20/azure-ml-skypilot's serve.yaml), which names no value in the file
    either; said so where a server word needs it (`_at_launch`)."""
    envs = data.get("envs")
    if envs is None:
        return {}, [], []
    if not isinstance(envs, dict):
        return {}, [], [Problem("envs", f"{envs!r} is not a mapping of variables",
                                doc.line("envs"))]
    out: dict[str, str] = {}
    unset: list[str] = []
    for k, v in envs.items():
        if v is None or _own_name(str(k), v):
            unset.append(str(k))
        elif isinstance(v, bool):
            out[str(k)] = str(v).lower()
        else:
            out[str(k)] = str(v)
    return out, unset, []


def _own_name(name: str, value: Any) -> bool:
    """Whether an `envs` value is a reference to the variable itself (`$NAME`, `${NAME}`)."""
    return isinstance(value, str) and value.strip() in (f"${name}", f"${{{name}}}")


def _at_launch(data: dict[str, Any]) -> Callable[[str], str]:
    """Where a variable left for launch is set, in words: null, or its own name."""
    envs = as_dict(data.get("envs"))

    def said(n: str) -> str:
        value = envs.get(n)
        what = "null" if value is None else f"{str(value).strip()!r}, its own name"
        return f"envs.{n} is {what}: it is set at launch (`sky launch --env {n}=...`)"
    return said


def _nodes(data: dict[str, Any], doc: Doc) -> tuple[int, list[Problem]]:
    n = data.get("num_nodes", 1)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return 1, [Problem("num_nodes", f"{n!r} is not a count of nodes", doc.line("num_nodes"))]
    return n, []


def _image(data: dict[str, Any], doc: Doc) -> tuple[str, list[str]]:
    res = data.get("resources") if isinstance(data.get("resources"), dict) else {}
    return image_of(res.get("image_id") if isinstance(res, dict) else None, "resources.image_id")


def image_of(value: Any, where: str) -> tuple[str, list[str]]:
    """(the container image of an image_id `value`, notes): `docker:IMAGE` is a container whose
    tag names the release; anything else is a machine image, noted."""
    image = str(value or "")
    if not image:
        return "", []
    if image.startswith("docker:"):
        return image.removeprefix("docker:"), []
    return "", [f"{where} {image!r} is a machine image, not a container: the engine "
                "release is the one installed on it, which the file does not name"]


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _service_note(data: dict[str, Any], doc: Doc) -> tuple[str | None, list[Problem]]:
    """(the note on SkyServe's replica count, problems): a count that is no whole number of 0
    or more is refused, as SkyPilot's service schema does (replicas an integer, replica_policy
    min_replicas / max_replicas integers of 0 or more; task h56review: `replicas: -1` was noted
    as a replica count)."""
    service = data.get("service")
    if not isinstance(service, dict):
        return None, []
    policy = service.get("replica_policy")
    if isinstance(policy, dict):
        for key in ("min_replicas", "max_replicas"):
            if key in policy and not _count(policy[key]):
                return None, [Problem(f"service.replica_policy.{key}", (
                    f"{policy[key]!r} is not a count of replicas (a whole number, 0 or more)"),
                    doc.line("service", "replica_policy", key))]
        said = (f"service.replica_policy: {policy.get('min_replicas', '?')} to "
                f"{policy.get('max_replicas', policy.get('min_replicas', '?'))} replicas")
    elif service.get("replicas") is not None:
        if not _count(service["replicas"]):
            return None, [Problem("service.replicas", (
                f"{service['replicas']!r} is not a count of replicas (a whole number, 0 or "
                "more)"), doc.line("service", "replicas"))]
        said = f"service.replicas: {service['replicas']}"
    else:
        return None, []
    return (f"{said} (SkyServe): each replica is one copy of this task; the verdict is per "
            "engine and replicas do not move it"), []


def targets(doc: Doc, path: Path, side_cache: dict[Path, Any],
            default_gpu: str | None) -> list[Target] | None:
    """The engine a task's `run` starts, checked on each candidate GPU; None when the run
    starts no engine and names none (a training or batch task)."""
    from kvplan.check.manifests.engine_mention import mentions_engine

    data = doc.data
    run = str(data["run"])
    start = _text_start(path, doc)
    text = "\n" * (start - 1) + run
    envs, unset, problems = _envs(data, doc)
    nodes, bad = _nodes(data, doc)
    problems += bad
    service, bad = _service_note(data, doc)
    problems += bad
    found, bad = candidates(data, doc)
    problems += bad
    image, notes = _image(data, doc)
    notes += [n for n in (overridden(data),) if n]
    releases, said = _releases(data, envs)
    notes += said
    base = Target(file=str(path), kind=SCRIPT, line=doc.line("run") or doc.start_line,
                  launcher="SkyPilot")
    if problems:
        base.problems = problems
        return [base]
    if not found and default_gpu is None:
        sites, refused = _read(path, text, envs, None, nodes, image, doc)
        if not sites and not refused:
            return no_engine(base, "run", run, mentions_engine(run))
        base.problems = [Problem("resources.accelerators", (
            "the task names no accelerators: SkyPilot launches it on a machine without "
            "GPUs; name them (resources: accelerators: H100:1) or pass --gpu"),
            doc.line("resources") or base.line)]
        return [base]
    alternatives: list[Target] = []
    each: list[Candidate | None] = list(found) or [None]  # None: --gpu, no accelerators
    for c in each:
        if c is not None and c.gpu is None:
            why = ("SkyPilot may launch this option on a machine without GPUs, where no "
                   "engine of this task runs; name its accelerators" if c.where else
                   f"{c.name!r} is not in kvplan's table of SkyPilot GPU names "
                   f"({', '.join(sorted(SKYPILOT_GPUS))}); name one of them, or check this GPU "
                   "with a kvplan/v1 file")
            alternatives.append(Target(file=str(path), kind=SCRIPT, line=c.line, name=c.label,
                                       problems=[Problem("resources.accelerators", why,
                                                         c.line)]))
            continue
        over = over_node(c) if c is not None else None
        if c is not None and over is not None:
            alternatives.append(Target(file=str(path), kind=SCRIPT, line=c.line, name=c.label,
                                       problems=[Problem("resources.accelerators", over,
                                                         c.line)]))
            continue
        own_image, own_notes = (image, []) if c is None or c.image is None else image_of(
            c.image, "its option's image_id")
        sites, refused = _read(path, text, envs, c, nodes, own_image, doc, releases)
        if not sites and not refused:
            return no_engine(base, "run", run, mentions_engine(run))
        got = launcher_targets(path, sites, refused, side_cache, default_gpu, unset,
                               _at_launch(data), "write its value in `envs:` to have it checked")
        if len(got) > 1:
            lines = ", ".join(str(t.line) for t in got)
            base.problems = [Problem("run", (
                f"`run` starts {len(got)} servers (lines {lines}): they share the node's GPUs, "
                "which kvplan does not divide; write one server per task (or a kvplan/v1 file "
                "per server) to have each checked"), got[1].line)]
            return [base]
        target = got[0]
        target.name = c.label if c is not None and len(found) > 1 else None
        shared = [n for n in notes if c is None or c.image is None
                  or not n.startswith("resources.image_id ")]  # the top level's, replaced
        target.notes = [*shared, *own_notes, *target.notes]
        if c is not None:
            target.notes.append(_gpu_note(c, nodes))
            _node_size(target, c)
        alternatives.append(target)
    if len(alternatives) == 1:
        one = alternatives[0]
        if service and not one.problems:
            one.notes.append(service)
        return [one]
    base.alternatives = alternatives
    base.line = found[0].line
    base.notes = [n for n in (service,) if n]
    return [base]


def _gpu_note(c: Candidate, nodes: int) -> str:
    from kvplan.check.manifests.skypilot_counts import offered_note

    over = f" on each of num_nodes {nodes} ({nodes * int(c.count)} GPUs)" if nodes > 1 else ""
    pcie = (" (some clouds' H100 is the PCIe card, 0.1 GB smaller: checked as the SXM part)"
            if c.name.lower() == "h100" else "")
    offered = offered_note(c.name, int(c.count), c.cloud) if c.cloud not in OWN_MACHINES else None
    return (f"SkyPilot's {c.name} is {c.gpu}{pcie}; $SKYPILOT_NUM_GPUS_PER_NODE = "
            f"{c.count}{over}" + (f"; {offered}" if offered else ""))


def _node_size(target: Target, c: Candidate) -> None:
    """The GPUs one node holds where the cloud's machine holds more than the GPU spec's
    gpus_per_node (GCP's a2-megagpu-16g: 16 A100 40GB), so tensor parallelism up to them is
    one node's (task h59nodes); other clouds keep the spec's count."""
    from kvplan.check.manifests.skypilot_counts import node_gpus
    from kvplan.deploy import resolve_gpu

    if c.cloud in OWN_MACHINES or c.gpu is None:
        return
    got = node_gpus(f"{c.name}:{c.count}", c.gpu, int(c.count), c.cloud,
                    resolve_gpu(c.gpu).gpus_per_node)
    if got is not None:
        target.node_gpus, note = got
        target.notes.append(note)


def no_engine(base: Target, key: str, script: str, engine: str | None) -> list[Target] | None:
    """None for a script that names no engine; else its refusal: no server kvplan reads."""
    if engine is None:
        return None
    from kvplan.check.manifests.unserved import SERVERS

    base.problems = [Problem(key, f"`{key}` mentions {engine}, but none of its commands starts "
                             f"a server kvplan reads ({SERVERS})", base.line)]
    return [base]


def _releases(data: dict[str, Any], envs: dict[str, str],
              ) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """engine -> (release, note) for an exact pin in `setup`'s pip install (`vllm==0.6.6`)
    (kvplan.check.manifests.launcher_sites.pip_pins, shared with dstack's `commands`)."""
    setup = data.get("setup")
    if not isinstance(setup, str):
        return {}, []
    return pip_pins(setup, lambda _line: "setup", env_at(setup, envs))  # envs reach setup too


def _read(path: Path, text: str, envs: dict[str, str], c: Candidate | None, nodes: int,
          image: str, doc: Doc, releases: dict[str, tuple[str, str]] | None = None,
          ) -> tuple[list[Any], list[Target]]:
    """The script reader's sites for the run script on one candidate GPU."""
    from kvplan.check.manifests.shell import sites
    from kvplan.check.manifests.shell_docker import docker_on

    given = {**envs, "SKYPILOT_NUM_NODES": str(nodes), "SKYPILOT_NODE_RANK": "0"}
    if c is not None:
        given["SKYPILOT_NUM_GPUS_PER_NODE"] = str(c.count)
    found, refused = sites(path, text, given)
    for site in found:
        if site.kind != "shell command":  # a `docker run` in the task: its own --gpus (`all`:
            if c is not None:  # the node's, the candidate's count) on the candidate's GPU
                docker_on(site, str(c.gpu), c.count, nodes, f"resources.accelerators {c.label}")
            continue
        container = site.pod["containers"][0]
        installed(site, image, releases)
        if c is not None:
            container["resources"] = {"limits": {"nvidia.com/gpu": c.count}}
            site.gpus_said = f"resources.accelerators {c.label}"
            site.gpu = (str(c.gpu), f"resources.accelerators {c.label}")
            site.pods_per_engine = nodes
    return found, refused


