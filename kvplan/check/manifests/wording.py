"""The manifests' words in the terms of the file a deployment was read from.

The readers share one conversion (kvplan.check.manifests.launch), whose messages speak of a
Kubernetes manifest: annotations, a pod's nvidia.com/gpu limit, node labels, a ConfigMap,
`helm template`. A compose service, a shell script's server start and a `docker run` line have
none of those; `in_file_words` says the same thing in their terms (the side file
`<file>.kvplan.yaml` for the annotations, the compose file's `.env` or the script's variables
for an unrendered value, the machine the script runs on for a container's path), and
`no_gpu_named` / `vendor_only` are the WARN's advice and note per kind.
"""

from __future__ import annotations

from pathlib import Path

from kvplan.check.target import COMPOSE, DOCKER_RUN, KUBERNETES, SCRIPT

_RENDER_FIRST = "render first (helm template / kustomize build / envsubst)"
_WHERE = {COMPOSE: "the compose file", SCRIPT: "the script", DOCKER_RUN: "the script"}
# an unresolved value: compose reads `.env` beside the file; a script sets its variables itself
_SET_IT = {
    COMPOSE: "set it in .env beside the compose file (compose reads that file), or render "
             "first (docker compose config)",
    SCRIPT: "set it in the script, or render it first (envsubst)",
    DOCKER_RUN: "set it in the script, or render it first (envsubst)",
}


# where kvplan looks for an option file the server names (kvplan.check.manifests.option_files)
_NOT_THERE = {
    COMPOSE: "beside the compose file or in a file a volume of it bind-mounts there, and no "
             "volume mounts this path",
    SCRIPT: "beside the script, and this one is not there",
    DOCKER_RUN: "beside the script or in a file a -v / --mount of the docker run puts there, "
                "and no mount of it covers this path",
}

_NEITHER = {
    COMPOSE: "a file inside the container, neither beside the compose file nor mounted by one "
             "of its volumes",
    SCRIPT: "not a file beside the script",
    DOCKER_RUN: "a file inside the container, neither beside the script nor mounted by a -v / "
                "--mount of the docker run",
}


def in_file_words(message: str, path: Path, kind: str) -> str:
    """One message of the manifests' conversion, said in the words of a compose file, a shell
    script or a `docker run` line (`kind`); unchanged for Kubernetes and kvplan/v1."""
    where = _WHERE.get(kind)
    if where is None:
        return message
    side = f"`model:` in a side file {path.stem}.kvplan.yaml"
    message = message.replace("the annotation kvplan.io/model", side)
    message = message.replace("kvplan.io/model: ", "model: ")
    message = message.replace("set kvplan.io/model to", f"set `model:` in {path.stem}.kvplan.yaml "
                              "to")
    message = message.replace("beside the manifest or in a ConfigMap of it, and this one is "
                              "neither", _NOT_THERE[kind])
    message = message.replace("a file inside the container, neither beside the manifest nor "
                              "in a ConfigMap of it", _NEITHER[kind])
    message = message.replace("beside the manifest", f"beside {where}")
    message = message.replace(_RENDER_FIRST, _SET_IT[kind])
    if kind == SCRIPT:  # started outside a container: paths and releases are the machine's
        message = message.replace("a path inside the container", "a path on the machine")
        message = message.replace("the image does not name its", "the script does not name the "
                                  "installed")
    return message


def no_gpu_named(kind: str, path: Path) -> str:
    """How to name the GPU a file runs on, in the WARN that lists where it starts."""
    if kind == KUBERNETES:
        return "name one with a node label or --gpu"
    return f"name one with --gpu, or `gpu:` in a side file {path.stem}.kvplan.yaml"


def _script_or_notebook(kind: str, path: Path) -> str | None:
    if kind not in (SCRIPT, DOCKER_RUN) and path.suffix != ".ipynb":
        return None
    return "notebook" if path.suffix == ".ipynb" else "script"


def gpu_unnamed(kind: str, path: Path) -> tuple[str, str]:
    """`kvplan explain`'s note on a file that names no GPU: (the file, how to name one)."""
    if _script_or_notebook(kind, path) is None:
        return ("the manifest", "give --gpu")
    return (f"the {_script_or_notebook(kind, path)}",
            f"give --gpu, or `gpu:` in a side file {path.stem}.kvplan.yaml")


def no_traffic(kind: str, path: Path) -> str:
    """What `kvplan explain` says of a file that declares no traffic: a manifest's annotations,
    or, for a script or notebook (which has none), the side file beside it (task h72mix)."""
    what = _script_or_notebook(kind, path)
    if what is None:
        return ("the manifest declares no traffic (kvplan.io annotations); give --peak-users "
                "for a fleet")
    return (f"the {what} declares no traffic; give --peak-users for a fleet, or the traffic in a "
            f"side file {path.stem}.kvplan.yaml beside it (traffic: peak_concurrent_users: N, "
            "...; docs/check.md \"Annotations\")")


def vendor_only(kind: str, vendor: str) -> str:
    """Why `starts on` lists one vendor's GPUs only: what in the file says which it asks for."""
    if vendor == "amd":
        why = {KUBERNETES: "the container is a ROCm build or asks for amd.com/gpu",
               COMPOSE: "the container is a ROCm build or is handed /dev/kfd and /dev/dri",
               DOCKER_RUN: "the container is a ROCm build or is handed /dev/kfd and /dev/dri"}
    else:
        why = {KUBERNETES: "the container asks for NVIDIA GPUs (nvidia.com/gpu)",
               COMPOSE: "the service asks for NVIDIA GPUs (a device reservation, `gpus:` or "
                        "runtime: nvidia)",
               DOCKER_RUN: "the container asks for NVIDIA GPUs (--gpus)"}
    return f"starts on lists {vendor.upper()} GPUs only: " + why.get(kind, why[KUBERNETES])
