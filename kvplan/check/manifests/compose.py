"""docker-compose services that run an engine: `command` (after `entrypoint`), the GPUs of
deploy.resources.reservations.devices, one replica unless deploy.replicas says more.

Compose interpolates `${VAR}` in the file itself before it runs anything (the Compose
specification's interpolation rules): with VAR unset, `${VAR:-default}` and `${VAR-default}`
are the default, `${VAR:+alt}` / `${VAR+alt}` are empty, `$$` is a literal `$` (left for the
container's shell), while `${VAR:?err}` / `${VAR?err}` stop compose and a bare `${VAR}` / `$VAR`
is the empty string with a warning; those two stay unrendered (render first). Variables come
from a `.env` file beside the compose file (compose's default env file); kvplan does not read
the shell environment of the machine it runs on, which is not the one that deploys. `$(NAME)`
is no compose interpolation and no shell runs the command: it stays text, and a string command is
split as compose splits it (kvplan.check.manifests.compose_words, task readfix).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kvplan.check.argv import SHELLS
from kvplan.check.manifests.compose_words import GO_SHELLWORDS, INVALID, compose_split
from kvplan.check.manifests.image_entry import image_entry, runs_vllm_image
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.shell_docker import cdi_gpus
from kvplan.check.manifests.workload import options_only
from kvplan.deploy import Problem
from kvplan.engine_traits import engine_words

_REF = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+?])((?:[^{}]|\{[^{}]*\})*))?\}"
                  r"|\$([A-Za-z_][A-Za-z0-9_]*)")


def is_compose(data: dict[str, Any]) -> bool:
    services = data.get("services")
    return isinstance(services, dict) and all(isinstance(s, dict) for s in services.values())


def dot_env(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of `.env` beside the compose file (comments and blanks skipped)."""
    env_file = path.parent / ".env"
    out: dict[str, str] = {}
    if not env_file.is_file():
        return out
    from kvplan.inputs.text import read_text

    for line in read_text(env_file).splitlines():
        text = line.strip()
        if not text or text.startswith("#") or "=" not in text:
            continue
        key, _, value = text.removeprefix("export ").partition("=")
        out[key.strip()] = value.strip().strip('"').strip("'")
    return out


def interpolate(text: str, env: dict[str, str]) -> str:
    """One string as compose interpolates it; what compose would not resolve stays as written
    (so the reader says "render first")."""

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$$"  # kept escaped until the end: the container's shell expands it
        name = m.group(1) or m.group(4)
        op, arg = m.group(2), m.group(3) or ""
        value = env.get(name)
        is_set = value is not None
        if op in (":-", "-"):
            if is_set and (op == "-" or value):
                return value or ""
            return interpolate(arg, env)
        if op in (":+", "+"):
            return interpolate(arg, env) if is_set and (op == "+" or value) else ""
        if is_set and (op is None or (op == ":?" and value) or op == "?"):
            return value or ""
        return m.group(0)  # ${VAR:?err} unset, or a bare unset ${VAR}: compose cannot run it

    return _REF.sub(sub, text)


def _resolve(value: Any, env: dict[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, env)
    if isinstance(value, list):
        return [_resolve(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, env) for k, v in value.items()}
    return value


def _words(value: Any, where: str = "", problems: list[Problem] | None = None,
           notes: list[str] | None = None) -> list[str]:
    """A command's words as compose hands them on: a list as written, a string split as
    go-shellwords splits it (kvplan.check.manifests.compose_words; shlex before task readfix,
    which split `$(echo a b)` in two and passed an unclosed quote)."""
    if isinstance(value, str) and "${" in value.replace("$$", ""):
        return [value]  # compose would not run it: kept whole, so "render first" names it all
    if isinstance(value, str):
        try:
            words, stop = compose_split(value)
        except ValueError:
            if problems is not None:
                problems.append(Problem(where, f"{value[:80]!r}: compose refuses this string "
                                        f"(\"{INVALID}\", {GO_SHELLWORDS}:214-223, :277-279: an "
                                        "unclosed quote, $( or backquote, or a bare parenthesis); "
                                        "close it, or write the command as a list"))
            return []
        if stop and notes is not None:
            notes.append(f"{where}: compose splits the string with {GO_SHELLWORDS}, which stops "
                         f"at the unquoted {stop!r} (:240-250): only `{' '.join(words)}` is run, "
                         "the rest is not (no shell runs it; use sh -c for a shell line)")
        return words
    return [str(v) for v in value] if isinstance(value, list) else []


def _command(svc: dict[str, Any], key: str, at: tuple[str, ...],
             problems: list[Problem], notes: list[str] | None = None) -> list[str]:
    """`entrypoint` or `command`: a string, or a list of strings (numbers are written out);
    another type, or a list or mapping inside the list, is one Problem each (it was dropped
    from the command line in silence before task h51sweep)."""
    value = svc.get(key)
    if value is None or isinstance(value, str):
        return _words(value, ".".join((*at, key)), problems, notes)
    if not isinstance(value, list):
        problems.append(Problem(".".join((*at, key)), _not_a("a string or a list of strings",
                                                              value)))
        return []
    kept = []
    for i, item in enumerate(value):
        if isinstance(item, (list, dict, bool)) or item is None:
            problems.append(Problem(".".join((*at, key, str(i))), _not_a("a string", item)))
        else:
            kept.append(item)
    return _words(kept)


def _gpus(value: Any) -> Any:
    """The service-level `gpus` attribute of the Compose Specification (05-services.md, gpus:
    `gpus: all`, or a list of device requests with `count` / `device_ids`), as a count."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    for dev in value if isinstance(value, list) else []:
        if isinstance(dev, dict):
            return dev.get("count", len(dev.get("device_ids") or []) or "all")
    return 0


def _amd_devices(value: Any) -> bool:
    """AMD GPUs handed to a container the ROCm way: /dev/kfd and /dev/dri as `devices`, which
    exposes every AMD GPU of the host (ROCm's Docker instructions), as `count: all` does."""
    paths = {str(d).split(":", 1)[0].rstrip("/") for d in value} if isinstance(value, list) else set()
    return {"/dev/kfd", "/dev/dri"} <= paths


# The NVIDIA Container Toolkit's GPU enumeration (docs.nvidia.com/datacenter/cloud-native/
# container-toolkit/latest/docker-specialized.html, "GPU Enumeration"): under the nvidia runtime,
# NVIDIA_VISIBLE_DEVICES is a comma-separated list of GPU indexes or UUIDs, `all`, `none` (no GPU,
# driver capabilities only) or `void` / empty (no GPU, as runc).
_NO_GPU_VALUES = ("none", "void", "")


def _visible_devices(runtime: Any, env: dict[str, Any]) -> tuple[Any, str]:
    """(GPU count or 'all' or 0, how the file says it) from `runtime: nvidia` and its
    NVIDIA_VISIBLE_DEVICES; (0, '') when the service does not use the nvidia runtime."""
    if str(runtime or "").strip() != "nvidia":
        return 0, ""
    if "NVIDIA_VISIBLE_DEVICES" not in env:
        # the image's own environment decides, and images differ (vllm-project/vllm#15255's
        # environment dump shows `all`, #30392's `void`): not a count this file gives
        return 0, ("runtime: nvidia without NVIDIA_VISIBLE_DEVICES leaves the GPUs to the "
                   "image's environment, which this file does not show")
    value = str(env["NVIDIA_VISIBLE_DEVICES"]).strip()
    said = f"NVIDIA_VISIBLE_DEVICES={value} (runtime: nvidia)"
    if value.lower() in _NO_GPU_VALUES:
        return 0, f"{said} hands the container no GPU"
    if value.lower() == "all" or "${" in value:
        return value, said
    return len([d for d in value.split(",") if d.strip()]), said


def _amd_visible(env: dict[str, Any]) -> tuple[Any, str]:
    """The AMD GPUs a ROCm container sees: every GPU of the host through /dev/kfd, narrowed by
    HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES to the listed ones (ROCm's GPU isolation,
    rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html)."""
    for key in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        value = str(env.get(key, "")).strip()
        if value and "${" not in value:
            return (len([d for d in value.split(",") if d.strip()]),
                    f"{key}={value} (/dev/kfd devices)")
    return "all", ""


def _program(command: list[str]) -> str:
    """The program a command names first (`vllm`, `python3`, `sh`), '' when it starts with a
    model or an option."""
    first = command[0].rsplit("/", 1)[-1] if command else ""
    return first if first in {"vllm", "python", "python3", *SHELLS} else ""


def _appended(program: str) -> str:
    # vLLM's docker/Dockerfile (vllm-project/vllm, target vllm-openai) sets the image's
    # ENTRYPOINT: ["python3", "-m", "vllm.entrypoints.openai.api_server"] through 0.11.0,
    # ["vllm", "serve"] from 0.11.1 (kvplan.check.manifests.image_entry). Compose's `command`
    # replaces CMD only, so it is appended to that entrypoint.
    return (f"the vllm/vllm-openai image's entrypoint already starts the server, and compose "
            f"appends `command` to it: `{program} ...` reaches vLLM as arguments and the "
            "container stops with 'unrecognized arguments'; pass only the model and options in "
            "`command`, or set `entrypoint:` to the full command")


def _unescape(words: list[str]) -> list[str]:
    return [w.replace("$$", "$") for w in words]


def _not_a(want: str, value: Any) -> str:
    """What a field of the wrong type gets said: what it must be, what it is, what to do."""
    kind = ("a list" if isinstance(value, list) else "a string" if isinstance(value, str)
            else "a mapping" if isinstance(value, dict) else "null" if value is None
            else "a boolean" if isinstance(value, bool) else "a number")
    return (f"must be {want} (the Compose Specification), got {kind} ({str(value)[:40]!r}); "
            "write it so, or remove it")


def _section(parent: dict[str, Any], keys: tuple[str, ...], at: tuple[str, ...],
             problems: list[Problem]) -> dict[str, Any]:
    """The mapping at parent[keys[-1]]: {} when absent or null; one Problem when it is
    some other type (a list, a string, a number), which compose itself refuses."""
    value = parent.get(keys[-1])
    if value is None or isinstance(value, dict):
        return value or {}
    problems.append(Problem(".".join((*at, *keys)), _not_a("a mapping", value)))
    return {}


def _listed(parent: dict[str, Any], keys: tuple[str, ...], at: tuple[str, ...],
            problems: list[Problem]) -> list[Any]:
    """The list at parent[keys[-1]]: [] when absent or null; one Problem when it is some
    other type."""
    value = parent.get(keys[-1])
    if value is None or isinstance(value, list):
        return value or []
    problems.append(Problem(".".join((*at, *keys)), _not_a("a list", value)))
    return []


def sites(data: dict[str, Any], path: Path | None = None) -> list[tuple[PodSite, str]]:
    env = dot_env(path) if path is not None else {}
    out = []
    for name, raw in data["services"].items():
        svc = _resolve(raw, env)
        at = ("services", str(name))
        problems: list[Problem] = []
        deploy = _section(svc, ("deploy",), at, problems)
        resources = _section(deploy, ("deploy", "resources"), at, problems)
        reserved = ("deploy", "resources", "reservations")
        devices = _listed(_section(resources, reserved, at, problems), (*reserved, "devices"),
                          at, problems)
        count: Any = 0
        for j, dev in enumerate(devices):
            if not isinstance(dev, dict):
                continue
            where = (*reserved, "devices", str(j))
            ids = _listed(dev, (*where, "device_ids"), at, problems)
            if "gpu" in _listed(dev, (*where, "capabilities"), at, problems):
                count = dev.get("count", len(ids) or "all")
        count = count or _gpus(svc.get("gpus"))
        resource, said = "nvidia.com/gpu", ""
        environment = svc.get("environment")
        if isinstance(environment, list):
            for i, item in enumerate(environment):
                if not isinstance(item, str):  # NAME=value strings only
                    problems.append(Problem(".".join((*at, "environment", str(i))),
                                            _not_a("a string (NAME=value)", item)))
            environment = dict(str(e).partition("=")[::2] for e in environment
                               if isinstance(e, str))
        elif environment is not None and not isinstance(environment, dict):
            problems.append(Problem(".".join((*at, "environment")), _not_a(
                "a mapping (NAME: value) or a list of NAME=value", environment)))
            environment = {}
        if not count and _amd_devices(svc.get("devices")):
            count, resource = "all", "amd.com/gpu"
            count, said = _amd_visible(environment or {})
        if not count and isinstance(svc.get("devices"), list):  # CDI: nvidia.com/gpu=all
            names = [str(d) for d in svc["devices"] if isinstance(d, str)]
            count, cdi = cdi_gpus(names)
            if count:
                resource, said = cdi, "devices: " + ", ".join(
                    n.strip() for n in names if "/gpu=" in n) + " (CDI)"
        if not count:
            count, visible = _visible_devices(svc.get("runtime"), environment or {})
            said = visible
        split: list[str] = []  # what compose's split of a string command drops, said
        container = {
            "image": svc.get("image", ""),
            "command": _unescape(_command(svc, "entrypoint", at, problems, split)
                                 + _command(svc, "command", at, problems, split)),
            "env": [{"name": k, "value": str(v)} for k, v in (environment or {}).items()],
            "resources": {"limits": {resource: count}} if count else {},
        }
        if not svc.get("entrypoint") and runs_vllm_image(str(svc.get("image", ""))):
            program = _program(container["command"])
            if program:
                problems.append(Problem("command", _appended(program)))
            entry = image_entry(str(container["image"])).words  # by release (task h61misc)
            container["command"] = [*entry, *container["command"]]
            container["implied_entry"], container["entry_image"] = True, container["image"]
        elif not svc.get("entrypoint"):
            why = options_only(container, container["command"], compose=True)
            if why:
                problems.append(Problem("command", why))
        site = PodSite("compose service", {"containers": [container]}, at, [(container, at)],
                       deploy.get("replicas", 1), (*at, "deploy", "replicas"), line_at=at,
                       problems=problems, gpus_said=said)
        site.notes.extend(split)
        if raw != svc:
            site.notes.append("${VAR:-default} interpolated as compose does with VAR unset"
                              + (" (and .env beside the file)" if env else ""))
        out.append((site, str(name)))
    return out




def unread_services(data: Any) -> list[str]:
    """Why each service whose name, container name or image names an engine gave no deployment
    (its server command is in an image kvplan cannot see), for a compose file given by name in
    which nothing was read; [] when no service looks like one."""
    services = data.get("services") if isinstance(data, dict) else None
    out: list[str] = []
    for name, svc in (services or {}).items() if isinstance(services, dict) else ():
        if not isinstance(svc, dict):
            continue
        image = str(svc.get("image") or "")
        said = f"{name} {image} {svc.get('container_name') or ''}".lower()
        engine = next((e for word, e in engine_words() if word in said), None)
        if engine is None:
            continue
        build = svc.get("build")
        context = build.get("context", ".") if isinstance(build, dict) else build
        source = (f"image {image}" if image else "the image") + (
            f" (built from `{context}`)" if build is not None else "")
        words = _words(svc.get("entrypoint")) + _words(svc.get("command"))
        if not words:
            out.append(f"service {name} looks like {engine} (its name or image) but has no "
                       f"`command:` or `entrypoint:`: its server starts from the entrypoint and "
                       f"CMD of {source}, which kvplan cannot see")
        else:
            shown = " ".join(words)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            out.append(f"service {name} looks like {engine} (its name or image) but its "
                       f"command `{shown}` names no model and no server kvplan reads, and "
                       f"the entrypoint of {source}, which would start the server, is not in "
                       "this file")
    return out
