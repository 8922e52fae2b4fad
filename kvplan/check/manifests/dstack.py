"""dstack run configurations (`.dstack.yml`, `*.dstack.yml`: `type: service` or `task`). The
`commands` list is a shell script, read by the script reader (kvplan.check.manifests.shell) with
`env` as its variables (`KEY=VALUE` items or a mapping) and dstack's own (DSTACK_GPUS_NUM, the
run's GPUs = nodes x count; DSTACK_GPUS_PER_NODE; DSTACK_NODES_NUM; DSTACK_NODE_RANK of the
master node, 0; dstackai/dstack mkdocs/docs/reference/env.md at 511c318c). An `env` item without
a value (`- HF_TOKEN`) is set at launch, which the file does not hold: a server word that needs
it is refused, as the script reader refuses a variable the script does not set.

`resources.gpu` is dstack's GPU spec (kvplan.check.manifests.dstack_gpus): every GPU it matches
that kvplan's catalog holds is a candidate dstack may provision, each judged
(kvplan.check.alternatives) and the verdict says on which it starts; those the catalog lacks are
named. `image` is the container the commands run in: its tag names the engine release
(kvplan.check.manifests.image_tag). `nodes` (a task's) multiplies the GPUs of the run;
`replicas` (a service's) is a replica count that moves no per-engine verdict (noted); a list of
replica groups (`replicas` or `groups`) is one deployment per group
(kvplan.check.manifests.dstack_groups). An exact `pip install vllm==X` pin in `commands` is the
release where no `image` names one (launcher_sites.pip_pins, shared with SkyPilot's `setup`).
`model` (the name dstack's gateway registers) and `port` do not move the pool. Keys that do not
move the KV pool (name, python, disk, shm_size, spot_policy, volumes, ...) are not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.check.manifests.dstack_gpus import Choice, Spec, read_spec
from kvplan.check.manifests.launcher_sites import env_at, installed, launcher_targets, pip_pins
from kvplan.check.target import SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

TYPES = ("service", "task")
_NOT_CONFIG = ("kind", "apiVersion", "services", "deployment", "run")
LAUNCHER = "dstack"


def is_config(data: Any) -> bool:
    """A dstack run configuration: `type: service` or `task` and a `commands` list, none of a
    Kubernetes object's, a compose file's, a SkyPilot task's or a kvplan/v1 file's keys."""
    if not isinstance(data, dict) or any(k in data for k in _NOT_CONFIG):
        return False
    if data.get("type") not in TYPES:
        return False
    from kvplan.check.manifests.dstack_groups import groups_of

    return (isinstance(data.get("commands"), list) or groups_of(data) is not None
            or any(isinstance(data.get(k), list) for k in ("groups", "replicas")))


def _script(path: Path, doc: Doc, commands: list[Any], at: tuple[Any, ...] = (),
            ) -> tuple[str, list[Problem]]:
    """The commands (at `at` + ("commands",) in the file) as one script, each command on its
    file line (a `- |` block's first line is the line after it)."""
    try:
        raw = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        raw = []
    parts: list[str] = []
    line_at = 1
    where = ".".join(str(k) for k in (*at, "commands"))
    for i, cmd in enumerate(commands):
        if not isinstance(cmd, (str, int, float)) or isinstance(cmd, bool):
            return "", [Problem(f"{where}[{i}]", f"{cmd!r} is not a shell command",
                                doc.line(*at, "commands", i))]
        line = doc.line(*at, "commands", i)
        text = raw[line - 1] if 0 < line <= len(raw) else ""
        after = text.split("-", 1)[1].split("#", 1)[0].strip() if "-" in text else ""
        if after[:1] in ("|", ">"):
            line += 1
        if line > line_at:
            parts.append("\n" * (line - line_at))
            line_at = line
        body = str(cmd).rstrip("\n")
        parts.append(body + "\n")
        line_at += body.count("\n") + 1
    return "".join(parts), []


def _env(data: dict[str, Any], doc: Doc) -> tuple[dict[str, str], list[str], list[Problem]]:
    """(the variables `env` sets, those set at launch, problems)."""
    env = data.get("env")
    if env is None:
        return {}, [], []
    out: dict[str, str] = {}
    unset: list[str] = []
    items: list[tuple[str, Any]]
    if isinstance(env, dict):
        items = [(str(k), v) for k, v in env.items()]
    elif isinstance(env, list):
        items = []
        for i, item in enumerate(env):
            if not isinstance(item, str):
                return {}, [], [Problem(f"env[{i}]", f"{item!r} is not KEY=VALUE or KEY",
                                        doc.line("env", i))]
            key, eq, value = item.partition("=")
            items.append((key.strip(), value if eq else None))
    else:
        return {}, [], [Problem("env", f"{env!r} is not a list (KEY=VALUE) or a mapping of "
                                "variables", doc.line("env"))]
    for key, value in items:
        if value is None:
            unset.append(key)
        elif isinstance(value, bool):
            out[key] = str(value).lower()
        else:
            out[key] = str(value)
    return out, unset, []


def _count(data: dict[str, Any], key: str, doc: Doc) -> tuple[int, list[Problem]]:
    n = data.get(key, 1)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return 1, [Problem(key, f"{n!r} is not a count of {key}", doc.line(key))]
    return n, []


def _replicas(data: dict[str, Any], doc: Doc) -> tuple[str | None, list[Problem]]:
    replicas = data.get("replicas")
    if replicas is None:
        return None, []
    return (f"replicas: {replicas}: each replica is one copy of this service; the verdict is "
            "per engine and replicas do not move it"), []


@dataclass
class Unit:
    """One deployment of a configuration: the whole of it, or one replica group (`at` its path
    in the file, `said` its name in verdicts and fields) with its own commands, resources and
    image, and the configuration's env."""

    commands: list[Any]
    resources: Any
    image: str
    at: tuple[Any, ...] = ()
    said: str = ""
    notes: list[str] = field(default_factory=list)

    def key(self, *keys: str) -> str:
        """The field's name in messages: `replicas[1].resources.gpu`."""
        out = ""
        for k in (*self.at, *keys):
            out += f"[{k}]" if isinstance(k, int) else f"{'.' if out else ''}{k}"
        return out


def image_problem(value: Any, at: tuple[Any, ...], doc: Doc) -> Problem:
    """An `image` that is no string: str() had made `[]` no image (the commands read as run
    outside a container) and a mapping an image named "{...}", in silence (task h70hostile)."""
    from kvplan.check.manifests.shapes import mistyped

    return mistyped(at, str, value, doc, "dstack's run configuration: image is a string")


def targets(doc: Doc, path: Path, side_cache: dict[Path, Any],
            default_gpu: str | None) -> list[Target] | None:
    """The engine a configuration's commands start, checked on each candidate GPU; None when
    the commands start no engine and name none (a training or batch task). A service whose
    `replicas` (or `groups`) is a list of replica groups is one deployment per group
    (kvplan.check.manifests.dstack_groups)."""
    from kvplan.check.manifests.dstack_groups import group_targets, groups_of

    data = doc.data
    if data.get("image") is not None and not isinstance(data["image"], str):
        return [Target(file=str(path), kind=SCRIPT, line=doc.line("image"), launcher=LAUNCHER,
                       problems=[image_problem(data["image"], ("image",), doc)])]
    if groups_of(data) is not None:
        return group_targets(doc, path, side_cache, default_gpu)
    for key in ("groups", "replicas"):  # a task's list: not read before with `groups` (task
        if isinstance(data.get(key), list):  # h58review), nor without `commands`
            return [Target(file=str(path), kind=SCRIPT, line=doc.line(key), launcher=LAUNCHER,
                           problems=[Problem(key, (
                               "a list of replica groups is a service's (dstack's "
                               "ServiceConfiguration); a task has none: write `type: service`, "
                               "or one task per group"), doc.line(key))])]
    service, bad = _replicas(data, doc)
    unit = Unit(commands=data["commands"], resources=data.get("resources"),
                image=str(data.get("image") or ""), notes=[n for n in (service,) if n])
    return unit_targets(doc, path, side_cache, default_gpu, unit, bad)


def unit_targets(doc: Doc, path: Path, side_cache: dict[Path, Any], default_gpu: str | None,
                 unit: Unit, problems: list[Problem]) -> list[Target] | None:
    """The targets of one deployment `unit` (the configuration, or one replica group)."""
    from kvplan.check.manifests.engine_mention import mentions_engine
    from kvplan.check.manifests.skypilot import no_engine

    data = doc.data
    text, bad = _script(path, doc, unit.commands, unit.at)
    problems = [*problems, *bad]
    envs, unset, bad = _env(data, doc)
    problems += bad
    nodes, bad = _count(data, "nodes", doc)
    problems += bad
    res = unit.resources
    gpu = res.get("gpu") if isinstance(res, dict) else None
    if res is not None and not isinstance(res, dict):
        problems.append(Problem(unit.key("resources"), f"{res!r} is not a mapping (dstack's "
                                "resources: gpu, cpu, memory, disk)",
                                doc.line(*unit.at, "resources")))
    spec = read_spec(gpu) if gpu is not None else None
    gpu_line = doc.line(*unit.at, "resources", "gpu")
    if spec is not None and spec.problem and not spec.choices:
        problems.append(Problem(unit.key("resources", "gpu"), f"{spec.said!r}: {spec.problem}",
                                gpu_line))
    releases, said = pip_pins(text, lambda n: f"{unit.key('commands')} (line {n})",
                              env_at(text, envs))
    joined = "\n".join(str(c) for c in unit.commands)
    base = Target(file=str(path), kind=SCRIPT, line=doc.line(*unit.at, "commands"),
                  launcher=LAUNCHER, name=unit.said or None)
    if problems:
        base.problems = problems
        return [base]
    choices: list[Choice | None] = list(spec.choices) if spec is not None else []
    if not choices:
        if default_gpu is None:
            sites, refused = _read(path, text, envs, None, nodes, unit.image)
            if not sites and not refused:
                return no_engine(base, unit.key("commands"), joined, mentions_engine(joined))
            base.problems = [Problem(unit.key("resources", "gpu"), (
                f"{unit.said or 'the configuration'} names no GPU: dstack runs it on a machine "
                "without GPUs; name them (resources: gpu: H100:1) or pass --gpu"),
                gpu_line or base.line)]
            return [base]
        choices = [None]
    absent = spec.absent if spec is not None and spec.by_name else []
    several = len(choices) + len(absent) > 1
    alternatives: list[Target] = []
    for c in choices:
        sites, refused = _read(path, text, envs, c, nodes, unit.image, releases)
        if not sites and not refused:
            return no_engine(base, unit.key("commands"), joined, mentions_engine(joined))
        got = launcher_targets(path, sites, refused, side_cache, default_gpu, unset,
                               lambda n: (f"env {n} has no value: it is set at launch (from the "
                                          "shell or `dstack apply -e`)"),
                               "write its value in `env:` (- NAME=VALUE) to have it checked")
        if len(got) > 1:
            lines = ", ".join(str(t.line) for t in got)
            base.problems = [Problem(unit.key("commands"), (
                f"`commands` start {len(got)} servers (lines {lines}): they share the "
                "machine's GPUs, which kvplan does not divide; write one server per "
                "configuration (or a kvplan/v1 file per server) to have each checked"),
                got[1].line)]
            return [base]
        target = got[0]
        target.name = c.label if c is not None and several else unit.said or None
        target.notes = [*said, *target.notes]
        if c is not None:
            target.notes.append(_gpu_note(c, nodes))
        alternatives.append(target)
    for name in absent:
        alternatives.append(Target(file=str(path), kind=SCRIPT, line=gpu_line, name=name,
                                   problems=[Problem(unit.key("resources", "gpu"), (
                                       f"{name} is not in kvplan's GPU catalog; check this GPU "
                                       "with a kvplan/v1 file"), gpu_line)]))
    notes = [n for n in (_spec_note(spec, unit.key("resources", "gpu")), *unit.notes) if n]
    if len(alternatives) == 1:
        one = alternatives[0]
        if not one.problems:
            one.notes.extend(notes)
        return [one]
    base.alternatives = alternatives
    base.line = gpu_line or base.line
    base.notes = notes
    return [base]


def _spec_note(spec: Spec | None, where: str = "resources.gpu") -> str | None:
    if spec is None:
        return None
    said = [spec.count_note] if spec.count_note else []
    if len(spec.choices) > 1 or (spec.absent and not spec.by_name):
        names = ", ".join(c.label for c in spec.choices)
        absent = (f"; dstack may also provision {', '.join(spec.absent)}, not in kvplan's "
                  "catalog: not checked" if spec.absent and not spec.by_name else "")
        said.append(f"{where} {spec.said}: {len(spec.choices)} candidate GPUs in "
                    f"kvplan's catalog ({names}){absent}")
    return "; ".join(said) or None


def _gpu_note(c: Choice, nodes: int) -> str:
    over = f" ({c.count} a node on each of nodes {nodes})" if nodes > 1 else ""
    return (f"dstack's {c.name} ({c.memory} GB) is {c.gpu}; $DSTACK_GPUS_NUM = "
            f"{nodes * c.count}{over}")


def _read(path: Path, text: str, envs: dict[str, str], c: Choice | None, nodes: int,
          image: str, releases: dict[str, tuple[str, str]] | None = None,
          ) -> tuple[list[Any], list[Target]]:
    """The script reader's sites for the commands on one candidate GPU."""
    from kvplan.check.manifests.shell import sites
    from kvplan.check.manifests.shell_docker import docker_on

    given = {**envs, "DSTACK_NODES_NUM": str(nodes), "DSTACK_NODE_RANK": "0"}
    if c is not None:
        given["DSTACK_GPUS_PER_NODE"] = str(c.count)
        given["DSTACK_GPUS_NUM"] = str(c.count * nodes)
    found, refused = sites(path, text, given)
    for site in found:
        if site.kind != "shell command":  # a `docker run` in the commands: its own --gpus
            if c is not None:  # (`all`: the node's, the candidate's count) on the candidate's GPU
                docker_on(site, str(c.gpu), c.count, nodes, f"resources.gpu {c.label}")
            continue
        container = site.pod["containers"][0]
        installed(site, image, releases)
        if c is not None:
            container["resources"] = {"limits": {"nvidia.com/gpu": c.count}}
            site.gpus_said = f"resources.gpu {c.label}"
            site.gpu = (str(c.gpu), f"resources.gpu {c.label}")
            site.pods_per_engine = nodes
    return found, refused

