"""Where kvplan finds an option file a server names (vLLM/SGLang `--config`, TensorRT-LLM
`--extra_llm_api_options`), in one order for every file that starts a container:

1. the mount that covers the path inside the container: a compose service's own volume
   (kvplan.check.manifests.compose_mounts) or a `docker run`'s `-v` / `--mount`
   (kvplan.check.manifests.script_files). The engine opens the container path, and a mount
   puts the host file there, hiding whatever the image holds at that path: so the mounted file
   is what it reads, even when another file lies beside the compose file or the script. A mount
   kvplan cannot read (a named volume, a host path not on this machine) leaves the file unread,
   named, and the file beside is not used in its place;
2. only when no mount covers the path: the file beside the compose file, the script or the
   manifest (the container path below its folder, or its base name there), with a note, for a
   compose file or a `docker run`, that no mount covers the path and the image must hold the
   same file;
3. a ConfigMap of a Kubernetes manifest whose data has that file name.

A Kubernetes container's own `volumeMounts` come first (kvplan.check.manifests.pod_files, task
h44checkgaps): a mount whose mountPath (+ subPath) covers the path is matched to its pod's
volume and, for a configMap volume, to the ConfigMap of that name among the files checked, its
key the file name below the mount; a covering mount kvplan cannot read is said and leaves the
file unread. With no covering mount, steps 2 and 3 follow, and step 3 says that no mount covers
the path.

A server a script starts outside a container reads its own machine's paths, relative ones
against the directory the script's `cd` went to (kvplan.check.manifests.script_files.find).
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from kvplan.inputs.text import what_is_there

# options_text's why, when a compose volume covers the path or a script's host path is not here
UNREAD_MOUNT = ("mounted from", "an anonymous", "a path on the machine")


def _beside(ref: str, manifest: Path | None) -> Path | None:
    """The file beside the manifest kvplan would take for `ref` when no mount covers it."""
    if manifest is None:
        return None
    for cand in (manifest.parent / ref.lstrip("/"), manifest.parent / Path(ref).name):
        if cand.is_file():
            return cand
    return None


def _named(path: Path, manifest: Path | None) -> str:
    """A file as the manifest's folder sees it (cfg/serve.yaml), else its full path."""
    try:
        return path.relative_to(manifest.parent).as_posix() if manifest else str(path)
    except ValueError:
        return str(path)


def _same_text(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def _hidden(ref: str, read: Path, beside: Path | None, where: str, manifest: Path | None,
            notes: list[str] | None) -> None:
    """Notes that the mounted file was read, not the one beside the compose file / script."""
    if beside is None or notes is None or beside.resolve() == read.resolve():
        return
    same = "the same text" if _same_text(read, beside) else "other options"
    notes.append(f"{ref}: read from {_named(read, manifest)}, which a mount puts at the path "
                 f"the server opens (hiding the image's file there); {_named(beside, manifest)} "
                 f"beside {where} ({same}) is not what the server reads")


def options_text(ref: str, manifest: Path | None, notes: list[str] | None = None,
                 script: Any = None) -> tuple[Path | str | None, str]:
    """(the file on this machine, or a ConfigMap's text, or None; what to call it), in the
    module's order. A mount that covers `ref` but is not read says why as the second value,
    starting "mounted from" / "an anonymous" (UNREAD_MOUNT); a host path read appends its
    caution to `notes`. `script`: a compose service (compose_mounts.ComposeService) or where a
    script's command finds its files (script_files.ScriptFiles: a server started outside a
    container, or a `docker run`'s mounts); None for a Kubernetes manifest."""
    from kvplan.check.manifests.compose_mounts import ComposeService, mounted
    from kvplan.check.manifests.pod_files import PodFiles, lookup

    pod = isinstance(script, PodFiles)
    if pod:
        said = lookup(ref, script, manifest, notes)
        if said is not None:
            return said
        script = None  # no volumeMount covers the path: the image's own file is read
    base = Path(ref).name
    service = script.name if isinstance(script, ComposeService) else None
    if service is not None:
        script = None
    on_host = script is not None and script.on_host
    beside = _beside(ref, manifest)
    if script is not None:
        from kvplan.check.manifests.script_files import find

        said = find(ref, script, notes)
        if said is not None:
            if isinstance(said[0], Path) and not on_host:
                _hidden(ref, said[0], beside, "the script", manifest, notes)
            return said
    if on_host and ref.startswith(("/", "~")):
        host = Path(ref).expanduser()
        if host.is_file():
            if notes is not None:
                notes.append(f"{host} read on this machine (the one running kvplan): the machine "
                             "that runs the script must hold the same file")
            return host, str(host)
        if manifest is None or not (manifest.parent / host.name).is_file():
            return None, (f"a path on the machine that runs the script, and {host} "
                          f"{what_is_there(host, 'on this machine (the one running kvplan)')}")
    if manifest is None:
        return None, base
    docs = _docs(manifest)
    compose = False
    unread = None
    for doc in docs:
        mount = mounted(doc.data, ref, manifest, service)
        compose = compose or (isinstance(doc.data, dict) and isinstance(
            doc.data.get("services"), dict))
        if mount is not None and mount.path is not None:
            if mount.note and notes is not None:
                notes.append(mount.note)
            _hidden(ref, mount.path, beside, "the compose file", manifest, notes)
            return mount.path, mount.said
        unread = unread or mount
    if unread is not None:  # a mount covers it: the server reads that, not a file beside
        return None, unread.said
    if beside is not None:
        if notes is not None and (compose or (script is not None and not on_host)):
            who = (f"no volume of service {service}" if service else "no volume of the compose "
                   "file") if compose else "no -v / --mount of the docker run"
            folder = "the compose file" if compose else "the script"
            notes.append(f"{ref}: {who} covers this path, so the server reads the image's own "
                         f"file there; kvplan read {_named(beside, manifest)} beside {folder} "
                         "in its place, which the image must hold at that path")
        return beside, beside.name
    for doc in docs:
        data = doc.data
        if isinstance(data, dict) and data.get("kind") == "ConfigMap" and \
                isinstance(data.get("data"), dict) and isinstance(data["data"].get(base), str):
            meta = data.get("metadata")
            cm = meta.get("name", "?") if isinstance(meta, dict) else "?"
            if pod and notes is not None:
                notes.append(f"{ref}: no volumeMount of the container covers this path, so the "
                             "server reads the image's own file there; kvplan read ConfigMap "
                             f"{cm}'s {base} by its file name in its place (mount it at "
                             f"{PurePath(ref).parent} to make it the file the server reads)")
            return data["data"][base], f"ConfigMap {cm} {base}"
    return None, base


def _docs(manifest: Path) -> list[Any]:
    from kvplan.inputs import load_yaml_docs

    try:
        return list(load_yaml_docs(manifest))
    except Exception:  # noqa: BLE001 - the manifest itself was read; a second read is a bonus
        return []
