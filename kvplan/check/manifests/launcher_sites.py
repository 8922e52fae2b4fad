"""Targets for the engine sites a launcher's script starts (SkyPilot's `run`, dstack's
`commands`): each site read by the script reader becomes its targets as a script's would, on
the candidate GPU the launcher gave it, with the reader's words for an unset variable put in
the launcher's own terms; an exact engine pin in a `pip install` line (SkyPilot's `setup`,
dstack's `commands`) is the engine release (pip_pins)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kvplan.check.target import Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc
from kvplan.engine_traits import pip_packages


def launcher_targets(path: Path, found: list[Any], refused: list[Target],
                     side_cache: dict[Path, Any], default_gpu: str | None, unset: list[str],
                     at_launch: Callable[[str], str], hint: str) -> list[Target]:
    """The targets of the sites `found` (and the sites the reader `refused`), in line order.
    The script reader's words for a variable in `unset` (the file names it without a value)
    become the launcher's: `at_launch(name)` says where it is set, `hint` what to write."""
    from kvplan.check.manifests import site_targets

    doc = Doc(data={}, start_line=1, lines={})
    out: list[Target] = []
    for site in found:
        for target in site_targets(doc, path, [site], None, {}, side_cache, default_gpu):
            target.gpu_vendor = None
            out.append(target)
    out.extend(refused)
    for target in out:
        target.problems = [Problem(p.field, _words(p.message, unset, at_launch, hint), p.line)
                           for p in target.problems]
    return sorted(out, key=lambda t: t.line)


def _words(message: str, unset: list[str], at_launch: Callable[[str], str], hint: str) -> str:
    for name in unset:
        said = f"the script does not set {name};"
        if said in message:
            message = message.replace(said, f"{at_launch(name)}, which the file does not hold;")
    return message.replace("set it in the script, or render it first (envsubst)", hint)


def _pep503(name: str) -> str:
    """A package name as pip compares it: runs of `-`, `_` and `.` are one separator, any case
    (PEP 503: `tensorrt-llm`, `tensorrt_llm` and `TensorRT.LLM` are one package)."""
    return re.sub(r"[-_.]+", "-", name).lower()


# `pip install vllm==0.6.6` / `"sglang[all]==0.4.6"` / `uv pip install vllm==0.9.2` /
# `pip install tensorrt-llm==1.0.0`: the packages from the engine layer, spelled any way pip
# accepts
# a line that runs pip's install: `pip install`, `pip3 install`, `pip3.11 install`, `python -m pip
# install`, `uv pip install`
_INSTALL = re.compile(r"\bpip(?:3(?:\.[0-9]+)?)?\s+install\b")
_PACKAGES = {_pep503(p): engine for p, engine in pip_packages().items()}
_PIN = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(p).replace(r"\-", "[-_.]+")
                                             for p in _PACKAGES) +
                  r")(?:\[[^\]]*\])?\s*(===|==|>=|<=|!=|~=|>|<)\s*v?([0-9][0-9A-Za-z.+]*)",
                  re.IGNORECASE)  # PEP 440's operators: === (arbitrary equality) pins as == does


def pip_pins(script: str, where: Callable[[int], str],
             ) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """engine -> (release, note) for an exact pin in a line of `script` that runs `pip install`
    (`pip install vllm==0.6.6`, `uv pip install "sglang[all]==0.4.6"`), read as an image tag is
    (kvplan.check.manifests.image_tag); a range (`vllm>=0.10`) or a release kvplan does not read
    is noted. `where(n)` names the script's line n (1-based) in the notes; the last exact pin
    of an engine is its release, as pip replaces what an earlier install put there (task
    h62review: a second pin was passed over in silence), said with the pin it replaces."""
    from kvplan.check.manifests.image_tag import read_image_tag

    out: dict[str, tuple[str, str]] = {}
    pins: dict[str, tuple[str, str]] = {}  # engine -> (the pin read, where)
    notes: list[str] = []
    for n, line in enumerate(script.splitlines(), start=1):
        if not _INSTALL.search(line) or line.lstrip().startswith("#"):
            continue
        for m in _PIN.finditer(line):
            engine, op, version = _PACKAGES[_pep503(m.group(1))], m.group(2), m.group(3)
            said = f"{where(n)} installs {m.group(0).strip()}"
            if op not in ("==", "==="):  # a range (task h70hostile: ===, <=, < and != had
                # been passed over in silence, >= and ~= noted)
                notes.append(f"{said}: a range, not a release; the {engine} profile's default "
                             "version is used")
                continue
            tag = read_image_tag(f"{engine}:v{version}", engine)
            if tag.version is None:
                notes.append(f"{said}: kvplan does not read that release; the {engine} "
                             "profile's default version is used")
                continue
            pin = (m.group(0).strip(), where(n))
            earlier = pins.get(engine)
            if earlier is not None and out[engine][0] != tag.version:  # pip replaces it
                said += f" after {earlier[0]} ({earlier[1]}), which it replaces"
            pins[engine] = pin
            out[engine] = (tag.version, f"{said}: {engine} {tag.version}")
    return out, notes


# kvplan.check.manifests.shell's note on a server started outside a container: "started outside a
# container: the ENGINE release is the one installed, ..."
_OUTSIDE = "started outside a container:"


def installed(site: Any, image: str, releases: dict[str, tuple[str, str]] | None) -> None:
    """The engine release of a script's server `site`: the launcher's container `image` (its tag
    read as any image tag is), else the exact pin its `pip install` lines hold of the engine
    this server runs; a pin of another engine only is named as not this server's (task
    h58review: `pip install vllm==X` beside an SGLang server took the SGLang release as named
    and dropped the note that it is not)."""
    container = site.pod["containers"][0]
    if image:
        container["image"] = image
    elif releases:
        if not any(n.startswith(f"{_OUTSIDE} the {engine} release") for engine in releases
                   for n in site.notes):
            pins = "; ".join(said.split(": ", 1)[0] for _, said in releases.values())
            site.notes.append(f"{pins}: not the engine this server runs, so not its release")
            return
        site.releases = releases
    else:
        return
    site.release_unknown = False
    site.notes = [n for n in site.notes if not n.startswith(_OUTSIDE)]
