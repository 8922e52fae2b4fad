"""Which file on this machine a compose service's volume puts at a path inside its container,
for the option files a server names there (vLLM/SGLang `--config`, TensorRT-LLM
`--extra_llm_api_options`), or why kvplan cannot read it.

A volume is `SOURCE:TARGET[:MODE]` (short syntax) or `{type, source, target}` (long syntax), as
the Compose Specification's services.volumes says; `${VAR}` in it is interpolated as in the rest
of the file (kvplan.check.manifests.compose.interpolate, with `.env` beside the file). What a
source can be, and what kvplan does with it:

- a relative path (`./cfg/serve.yaml`): compose resolves it against the compose file's folder,
  and so does kvplan: the file beside the compose file is read;
- an absolute host path (`/srv/vllm/serve.yaml`) or `~/...`: a path on the host that runs
  compose; read when it exists on the machine running kvplan (the same host, or a copy of the
  tree), said in a note, else named as not on this machine;
- a named volume (`hf-cache:/etc/vllm`, `type: volume`): its content is in Docker's volume store
  on that host, filled by whatever ran before; never read, and said so;
- an anonymous volume or a tmpfs: empty when the container starts.

Only the volumes of the service whose server names the file count (ComposeService), and of
those covering the path the one with the longest target (Docker stacks mounts: a deeper one
hides a shallower one's file); a relative path is below the service's `working_dir`. A
covering mount comes before a file beside the compose file (kvplan.check.manifests.option_files).
Files are read with the same bounded, safe loaders as every input (kvplan.inputs: size limit,
safe YAML); only a regular file is read.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kvplan.inputs.text import what_is_there


@dataclass(frozen=True)
class Mount:
    """What a service's volume puts at the path: `path` is the file on this machine to read
    (None when it is not read); `said` is how to name it (read) or why not (not read)."""

    path: Path | None
    said: str
    note: str | None = None  # said beside a file read from a host path


def _volume(vol: Any) -> tuple[str, str, str] | None:
    """(type, source, target) of one volume entry; None when it has no container path."""
    if isinstance(vol, str):
        parts = vol.split(":")
        if len(parts) == 1:  # `/data`: an anonymous volume at that path
            return "volume", "", parts[0]
        source, target = parts[0], parts[1]
        kind = "bind" if source.startswith((".", "/", "~")) else "volume"
        return kind, source, target
    if isinstance(vol, dict):
        kind = str(vol.get("type", "volume" if "source" not in vol else "bind"))
        source = str(vol.get("source", "") or "")
        if kind == "bind" and source and not source.startswith((".", "/", "~")):
            kind = "volume"  # a bare name is a named volume whatever `type` says
        return kind, source, str(vol.get("target", "") or "")
    return None


def _covers(target: str, ref: str) -> str | None:
    """The rest of `ref` below a mount at `target` ('' when it is the target); None if outside."""
    target = target.rstrip("/")
    if not target.startswith("/"):
        return None
    if ref == target:
        return ""
    if ref.startswith(target + "/"):
        return ref[len(target) + 1:]
    return None


@dataclass(frozen=True)
class Owner:
    """Who mounts the volume, in a message's words: a compose service, or a script's `docker
    run` (kvplan.check.manifests.script_files)."""

    name: str  # "service vllm" | "the docker run of line 7"
    host: str = "the host that runs compose"
    unset: str = "a variable neither the compose file nor the .env beside it sets; set it in " \
                 ".env to have the file read"


def _mount(kind: str, source: str, rest: str, service: str | Owner, folder: Path) -> Mount:
    owner = service if isinstance(service, Owner) else Owner(f"service {service}")
    who = owner.name
    if kind == "tmpfs":
        return Mount(None, f"mounted from a tmpfs ({who}): empty when the container "
                     "starts, so the server finds no file there")
    if not source:
        return Mount(None, f"an anonymous volume of {who}: empty when the "
                     "container first starts, filled only by what runs in it")
    if "${" in source or "$(" in source or source.startswith("$"):
        return Mount(None, f"mounted from {source!r} ({who}), {owner.unset}")
    if kind != "bind":
        return Mount(None, f"mounted from the named volume {source} ({who}), whose "
                     f"content is in Docker's volume store on {owner.host}, not a "
                     "file kvplan can read")
    if source.startswith("."):
        host = folder / source / rest if rest else folder / source
        if host.is_file():
            return Mount(host, f"{host.name} (mounted at {{ref}})")
        return Mount(None, f"mounted from {source} ({who}), and {host} "
                     f"{what_is_there(host)}")
    host = Path(source).expanduser()
    host = host / rest if rest else host
    if host.is_file():
        return Mount(host, f"{host} (mounted at {{ref}})", f"{host} is the host path {who} "
                     f"mounts at {{ref}}, read on this machine (the one running "
                     f"kvplan): {owner.host} must hold the same file")
    there = what_is_there(host, "on this machine (the one running kvplan)")
    return Mount(None, f"mounted from the host path {source} ({who}), and {host} {there}"
                 + (f", only perhaps on {owner.host}" if there.startswith("is not a file") else ""))


@dataclass(frozen=True)
class ComposeService:
    """The compose service whose server names an option file (a PodSite's `files`): only its
    own volumes put files in its container, and its `working_dir` is where a relative path is
    resolved inside the container."""

    name: str
    on_host: bool = False  # the server runs in a container, not on the machine that runs compose
    compose: bool = True


def _service_mount(svc: dict[str, Any], ref: str, name: str, compose: Path,
                   env: dict[str, str]) -> Mount | None:
    """What the service's own volumes put at `ref` (relative: below its `working_dir`): the
    mount with the longest target covering the path, as Docker stacks mounts (a deeper target
    hides what a shallower one puts there), read or named as not read; None when none covers."""
    from kvplan.check.manifests.compose import interpolate

    path = ref
    if not ref.startswith("/"):
        workdir = svc.get("working_dir")
        if not isinstance(workdir, str) or not interpolate(workdir, env).startswith("/"):
            return None  # the image's WORKDIR, which this file does not show
        path = posixpath.join(interpolate(workdir, env), ref)
    covering: list[tuple[str, str, str, str]] = []
    vols = svc.get("volumes")
    for vol in vols if isinstance(vols, list) else []:
        if isinstance(vol, str):
            vol = interpolate(vol, env)
        elif isinstance(vol, dict):
            vol = {k: interpolate(v, env) if isinstance(v, str) else v for k, v in vol.items()}
        entry = _volume(vol)
        rest = _covers(entry[2], path) if entry is not None else None
        if entry is not None and rest is not None:
            covering.append((entry[2], entry[0], entry[1], rest))
    if not covering:
        return None
    _, kind, source, rest = max(covering, key=lambda m: len(m[0].rstrip("/")))
    found = _mount(kind, source, rest, name, compose.parent)
    return Mount(found.path, found.said.replace("{ref}", path),
                 found.note.replace("{ref}", path) if found.note else None)


def mounted(data: Any, ref: str, compose: Path, service: str | None = None) -> Mount | None:
    """The file on this machine that a compose service's volume puts at `ref` inside the
    container, or why kvplan cannot read it; None when no volume of the file covers `ref` (or
    `data` is not a compose file). With `service`, only that service's volumes count (the
    longest target covering the path wins, and a relative `ref` is below its working_dir);
    without, any service's, and a mount that gives a file wins over one that does not."""
    from kvplan.check.manifests.compose import dot_env, interpolate

    services = data.get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict):
        return None
    env = dot_env(compose)
    if service is not None:
        svc = services.get(service)
        return _service_mount(svc, ref, service, compose, env) if isinstance(svc, dict) else None
    if not ref.startswith("/"):
        return None
    unread: Mount | None = None
    for name, svc in services.items():
        vols = svc.get("volumes") if isinstance(svc, dict) else None
        for vol in vols if isinstance(vols, list) else []:
            if isinstance(vol, str):
                vol = interpolate(vol, env)
            elif isinstance(vol, dict):
                vol = {k: interpolate(v, env) if isinstance(v, str) else v
                       for k, v in vol.items()}
            entry = _volume(vol)
            if entry is None:
                continue
            kind, source, target = entry
            rest = _covers(target, ref)
            if rest is None:
                continue
            found = _mount(kind, source, rest, str(name), compose.parent)
            if found.path is not None:
                return Mount(found.path, found.said.replace("{ref}", ref),
                             found.note.replace("{ref}", ref) if found.note else None)
            unread = unread or found
    return unread
