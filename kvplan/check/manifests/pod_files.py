"""The option file a Kubernetes container's server names (vLLM/SGLang `--config`, TensorRT-LLM
`--extra_llm_api_options`), found as the kubelet puts it there (task h44checkgaps): the
container's `volumeMounts` entry whose `mountPath` covers the path (the longest; with `subPath`,
that one entry of the volume at exactly `mountPath`), its pod's `volumes` entry of that `name`,
and for a `configMap` volume the ConfigMap of that `metadata.name` among the files checked (the
manifest's own documents first, then the other files of the run): the file is the data key the
path names below the mount (or the `items` entry whose `path` it is; `subPath` names it within
the volume). Kubernetes' API (core/v1 VolumeMount, ConfigMapVolumeSource, KeyToPath) is the
source of the rules.

A mount that covers the path but cannot be read (another volume type, a ConfigMap that is not
among the files checked, a key it lacks) is said, and the file is not read: the server reads
what the mount holds, not a file beside the manifest. When no mount covers the path the server
reads the image's own file: kvplan.check.manifests.option_files goes on with its order (the file
beside the manifest, then a ConfigMap holding that file name), and says that no mount covers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

ADVICE = ("put the ConfigMap in the manifest's file, or check the folder that holds both "
          "(kvplan check DIR)")


@dataclass
class PodFiles:
    """A container's volume mounts and its pod's volumes (a PodSite's `files` for Kubernetes)."""

    mounts: list[dict[str, Any]] = field(default_factory=list)
    volumes: list[dict[str, Any]] = field(default_factory=list)
    on_host: bool = False  # read as script_files.ScriptFiles is (option_files, config_file)
    compose: bool = False
    advice: str = ADVICE


def pod_files(pod: dict[str, Any], container: dict[str, Any]) -> PodFiles:
    def dicts(value: Any) -> list[dict[str, Any]]:
        return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

    return PodFiles(dicts(container.get("volumeMounts")), dicts(pod.get("volumes")))


def _covering(ref: str, files: PodFiles) -> tuple[dict[str, Any], str] | None:
    """(the mount that puts `ref` in the container, the path within its volume)."""
    path = PurePosixPath(ref)
    best: tuple[dict[str, Any], str] | None = None
    depth = -1
    for mount in files.mounts:
        at = PurePosixPath(str(mount.get("mountPath", "")).rstrip("/") or "/")
        if not str(mount.get("mountPath", "")):
            continue
        sub = str(mount.get("subPath") or "")
        if path == at:
            inner = sub
        elif at in path.parents:
            rel = path.relative_to(at).as_posix()
            inner = f"{sub.rstrip('/')}/{rel}" if sub else rel
        else:
            continue
        if len(at.parts) > depth:
            best, depth = (mount, inner), len(at.parts)
    return best


def _configmaps(manifest: Path | None) -> list[tuple[dict[str, Any], Path]]:
    """The ConfigMaps of the manifest's file, then of the other files checked in the run."""
    from kvplan.check.manifests.ome_run import current
    from kvplan.check.manifests.option_files import _docs

    paths = [manifest] if manifest is not None else []
    paths += [p for p in current().files if manifest is None or p.resolve() != manifest.resolve()]
    out = []
    for path in paths:
        if path.suffix.lower() not in (".yaml", ".yml", ".json"):
            continue
        for doc in _docs(path):
            if isinstance(doc.data, dict) and doc.data.get("kind") == "ConfigMap":
                out.append((doc.data, path))
    return out


def lookup(ref: str, files: PodFiles, manifest: Path | None,
           notes: list[str] | None) -> tuple[Path | str | None, str] | None:
    """(the ConfigMap's text or None, what to call it or why it is not read; "mounted from ..."
    when not read), or None when no mount covers `ref`."""
    covering = _covering(ref, files)
    if covering is None:
        return None
    mount, inner = covering
    vname = str(mount.get("name", ""))
    volume = next((v for v in files.volumes if str(v.get("name", "")) == vname), None)
    at = f"volume {vname} at {mount.get('mountPath')}" + (
        f" (subPath {mount.get('subPath')})" if mount.get("subPath") else "")
    if volume is None:
        return None, f"mounted from {at}, which the pod's volumes do not define"
    source = volume.get("configMap")
    if not isinstance(source, dict):
        kind = next((k for k in volume if k != "name"), "?")
        return None, f"mounted from {at}, a {kind} volume, which kvplan does not read"
    cm = str(source.get("name", ""))
    items = source.get("items")
    key = inner
    if isinstance(items, list):  # only the listed keys, each at its own path
        key = next((str(i.get("key")) for i in items if isinstance(i, dict)
                    and str(i.get("path", "")).strip("/") == inner.strip("/")), "")
        if not key:
            return None, (f"mounted from ConfigMap {cm} ({at}), whose items put no key at "
                          f"{inner!r}")
    for data, path in _configmaps(manifest):
        meta: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
        if str(meta.get("name", "")) != cm:
            continue
        body: dict[str, Any] = data["data"] if isinstance(data.get("data"), dict) else {}
        where = (f"ConfigMap {cm} {key}" + ("" if manifest is None or path.resolve()
                                            == manifest.resolve() else f" ({path.name})"))
        if isinstance(body.get(key), str):
            if notes is not None:
                notes.append(f"{ref}: read from {where}, which the container mounts ({at})")
            return body[key], where
        return None, f"mounted from ConfigMap {cm} ({at}), which has no key {key!r}"
    return None, (f"mounted from ConfigMap {cm} ({at}), which is not among the files checked")
