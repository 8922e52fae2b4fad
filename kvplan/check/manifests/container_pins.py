"""The engine release a server's own `pip install` names (split from kvplan.check.manifests.workload
along the release seam): a script's pin (PodSite.releases, read by the shell-script reader), or
a pin in the `sh -c` script of the container that starts the server (task h71left: `image:
python:3.11` with `command: ["sh", "-c", "pip install vllm==0.8.5 && vllm serve ..."]` left the
release unknown, the profile's default planned).

The container's script is read as a launch script's is (launcher_sites.pip_pins: only a pip that
runs, an exact pin, the last of an engine, a range or a variable noted), with the container's
`env` values for a pin through a variable (`vllm==$VLLM_VERSION`): the pip runs in the container
before the server, so the release it installs is the one that serves, over a base image's tag
(python, ubuntu, nvidia/cuda, pytorch/pytorch: pods.BASE_IMAGES) and over an engine image's own
release alike (pip replaces what the image installed, and says so in a note)."""

from __future__ import annotations

import shlex
from typing import Any

from kvplan.check.argv import SHELLS
from kvplan.check.manifests.pods import base_image


def shell_script(container: dict[str, Any]) -> tuple[str, str] | None:
    """(the shell and its flag as the file writes them, `bash -c` / `/bin/sh -ec`; the script
    they run) of a container's `sh -c` / `bash -lc` (command and args together, as the runtime
    joins them), else None."""
    from kvplan.check.manifests.workload import SHELL_C

    words: list[str] = []
    for part in ("command", "args"):
        value = container.get(part)
        if isinstance(value, str):
            try:
                value = shlex.split(value)
            except ValueError:
                return None
        if isinstance(value, list):
            words.extend(str(v) for v in value)
    if not words or words[0].rsplit("/", 1)[-1] not in SHELLS:
        return None
    for i, word in enumerate(words[1:-1], start=1):
        if SHELL_C.fullmatch(word):
            return f"{words[0]} {word}", words[i + 1]
    return None


def read_release(w: Any, engine: str, image: str) -> None:
    """Into Workload `w`'s found (engine.version) and notes: the release its server's own pip
    install names, where one does."""
    if engine in w.site.releases and not image:  # a launch script's pin (PodSite.releases)
        release, pinned = w.site.releases[engine]
        w.found.values["engine.version"] = release
        w.notes.append(pinned)
        return
    found = shell_script(w.container)
    if found is None:
        return
    from kvplan.check.manifests.launcher_sites import env_at, pip_pins

    shell, script = found  # named as written (task h80shell: `bash -c` was said as `sh -c`)
    from kvplan.check.k8s_expansion import NOT_KUBERNETES, kubernetes_expand

    if w.site.kind not in NOT_KUBERNETES:  # the kubelet expands `$(VAR)` in the args before
        script = kubernetes_expand(script, w.env)  # the shell runs them; the shell does not
    lines = len(script.splitlines())
    releases, notes = pip_pins(
        script, lambda n: f"the container's {shell} script" + (f" (its line {n})" if lines > 1
                                                              else ""),
        env_at(script, w.env))
    w.notes.extend(notes)
    if engine not in releases:
        w.notes.extend(f"{said.split(': ', 1)[0]}: not the engine this server runs, so not its "
                       "release" for _, said in releases.values())
        return
    release, pinned = releases[engine]
    from kvplan.check.manifests.ngc_table import carries_no_engine

    if image and (what := carries_no_engine(image)) is not None:  # no engine to install over
        pinned += f" (installed into image {image}, {what}, which carries no {engine})"
    elif image and base_image(image) is None and "$" not in image:
        pinned += f" (installed over the {engine} that image {image} holds)"
    w.found.values["engine.version"] = release
    w.notes.append(pinned)
