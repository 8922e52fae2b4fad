"""Targets for the engine sites a launcher's script starts (SkyPilot's `run`, dstack's
`commands`): each site read by the script reader becomes its targets as a script's would, on
the candidate GPU the launcher gave it, with the reader's words for an unset variable put in
the launcher's own terms; an exact engine pin in a `pip install` line (SkyPilot's `setup`,
dstack's `commands`) is the engine release (pip_pins)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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
_PACKAGES = {_pep503(p): engine for p, engine in pip_packages().items()}
_PACKAGE_OP = (r"(?<![\w.-])(" + "|".join(re.escape(p).replace(r"\-", "[-_.]+")
                                          for p in _PACKAGES) +
               r")(?:\[[^\]]*\])?\s*(===|==|>=|<=|!=|~=|>|<)\s*")
_PIN = re.compile(_PACKAGE_OP + r"v?([0-9][0-9A-Za-z.+]*\*?)", re.IGNORECASE)
_PACKAGE_OP_RE = re.compile(_PACKAGE_OP, re.IGNORECASE)
# PEP 440's operators: `==` and `===` name one release, unless `==` ends in a wildcard (`==0.8.*`
# matches every 0.8 release); every other operator is a range


# `$NAME`, `${NAME}`, `${NAME:-default}` / `${NAME-default}` in a pin (`vllm==${VLLM_VERSION}`)
_VAR = re.compile(r"\$\{(\w+)(?:(:?)-([^}]*))?\}|\$(\w+)")
# a pin whose release is still a variable after that (one kvplan does not know there)
_VAR_PIN = re.compile(_PACKAGE_OP + r"(\$\{?\w+[^\s'\"]*)", re.IGNORECASE)
# a pin whose version is neither a release (a digit first) nor a variable: `sglang==abc`
# (task h81hostile: passed over in silence, and the script said to name no release)
_WORD_PIN = re.compile(_PACKAGE_OP + r"(?!v?[0-9]|[$=<>!~])([^\s'\";&|)]+)", re.IGNORECASE)


def _short(pin: str) -> str:
    """A pin as a note names it: at most 60 characters (a hostile line can hold any number)."""
    pin = pin.strip()
    return pin if len(pin) <= 60 else pin[:57] + "..."


def _uncommented(line: str) -> str:
    """`line` without a shell comment: a `#` that starts a word, outside quotes (the shell drops
    the rest; `pip install torch  # vllm==0.8.5` installs no vLLM)."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _expand(line: str, env: Mapping[str, str]) -> str:
    """`line` with the variables `env` sets expanded, as the shell would (task h70review:
    `pip install vllm==${VLLM_VERSION}` with VLLM_VERSION set before was passed over)."""
    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(4)
        if m.group(3) is not None and (name not in env or (m.group(2) and not env[name])):
            return m.group(3)  # ${NAME:-default}: unset (or, with the colon, empty)
        return env.get(name, m.group(0))

    return _VAR.sub(value, line)


def env_at(script: str, given: Mapping[str, str]) -> Callable[[int], Mapping[str, str]]:
    """The variables set at each line of `script`, for pip_pins: its own assignments
    (kvplan.check.manifests.shell_lex.read_script) over `given`, those it starts with (a
    container's `env`, SkyPilot's or dstack's `envs`). A pin through a variable the script sets
    (`VLLM_VERSION=0.8.5; pip install vllm==$VLLM_VERSION`) is read there as in a launch script
    (task h80review: a container's sh -c script, SkyPilot's setup and dstack's commands read
    `given` only, and noted 'a variable kvplan does not know there')."""
    from kvplan.check.manifests.shell_lex import ScriptTooLarge, read_script

    try:
        commands = read_script(script, dict(given)).commands
    except ScriptTooLarge:  # the script's own reader says so: no release read past it
        return lambda _n: given
    at = {cmd.lines[0]: env for cmd, env, _ in commands if cmd.lines}
    return lambda n: at.get(n, given)


def pip_pins(script: str, where: Callable[[int], str],
             env: Callable[[int], Mapping[str, str]] | None = None,
             ) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """engine -> (release, note) for an exact pin in a line of `script` that runs `pip install`
    (`pip install vllm==0.6.6`, `uv pip install "sglang[all]==0.4.6"`), read as an image tag is
    (kvplan.check.manifests.image_tag); a range (`vllm>=0.10`) or a release kvplan does not read
    is noted. `env(n)` gives the variables set at line n (the script's, a launcher's `envs`): a
    pin through one is read as expanded, one through a variable not set there is noted. A line
    a trailing backslash continues is read with its continuation lines, named by
    its first. `where(n)` names the script's line n (1-based) in the notes; the last exact pin
    of an engine is its release, as pip replaces what an earlier install put there (task
    h62review: a second pin was passed over in silence), said with the pin it replaces. Only a
    pip that runs is read (kvplan.check.manifests.pip_commands: not one `echo` prints, nor the
    text a `cat <<EOF` writes); two releases of one engine in one pip command are neither, as
    pip stops there (_double)."""
    from kvplan.check.manifests.pip_commands import installs, run_lines

    out: dict[str, tuple[str, str]] = {}
    pins: dict[str, tuple[str, str]] = {}  # engine -> (the pin read, where)
    notes: list[str] = []
    for n, line in run_lines(script, _uncommented):
        if env is not None:
            line = _expand(line, env(n))
        for command, why in installs(line):
            if why:
                notes.extend(_inert(command, why, where(n)))
                continue
            _install(command, where(n), out, pins, notes)
    return out, notes


def _inert(command: str, why: str, where: str) -> list[str]:
    """The note on a pip command that names an engine's release and installs nothing into the
    environment the server runs from (pip_commands.inert): no release is taken from it."""
    found = sorted({_PACKAGES[_pep503(m.group(1))] for m in _PACKAGE_OP_RE.finditer(command)})
    return [f"{where} runs `{_short(command)}`: {why}; kvplan takes no {engine} release from it"
            for engine in found]


def _install(command: str, where: str, out: dict[str, tuple[str, str]],
             pins: dict[str, tuple[str, str]], notes: list[str]) -> None:
    """The pins of one `pip install` command into `out` (engine -> (release, note)), `pins`
    (engine -> (the pin, where)) and `notes`."""
    from kvplan.check.manifests.image_tag import read_image_tag

    notes.extend(f"{where} installs {_short(m.group(0))}: a variable kvplan does not know "
                 f"there; the {_PACKAGES[_pep503(m.group(1))]} profile's default version is "
                 "used" for m in _VAR_PIN.finditer(command))
    notes.extend(f"{where} installs {_short(m.group(0))}: {_short(m.group(3))} is no release "
                 "(a PEP 440 version starts with a digit) and pip installs nothing for it (pip "
                 "23.2.1: \"No matching distribution found\"; packaging 22 and later: an invalid "
                 f"requirement); the {_PACKAGES[_pep503(m.group(1))]} profile's default version "
                 "is used"
                 for m in _WORD_PIN.finditer(command))
    exact: dict[str, list[tuple[str, str]]] = {}  # engine -> [(release, pin)] of this command
    for m in _PIN.finditer(command):
        engine, op, version = _PACKAGES[_pep503(m.group(1))], m.group(2), m.group(3)
        said = f"{where} installs {_short(m.group(0))}"
        if op not in ("==", "===") or version.endswith("*"):
            notes.append(f"{said}: a range, not a release; the {engine} profile's default "
                         "version is used")
            continue
        tag = read_image_tag(f"{engine}:v{version}", engine)
        if tag.version is None:
            notes.append(f"{said}: kvplan does not read that release; the {engine} "
                         "profile's default version is used")
            continue
        exact.setdefault(engine, []).append((tag.version, m.group(0).strip()))
    for engine, found in exact.items():
        if len({release for release, _ in found}) > 1:
            notes.append(_double(engine, [pin for _, pin in found], where, out))
            continue
        version, pin = found[-1]
        said = f"{where} installs {_short(pin)}"
        earlier = pins.get(engine)
        if earlier is not None and out[engine][0] != version:  # pip replaces it
            said += f" after {earlier[0]} ({earlier[1]}), which it replaces"
        pins[engine] = (pin, where)
        out[engine] = (version, f"{said}: {engine} {version}")


def _double(engine: str, pins: list[str], where: str, out: dict[str, tuple[str, str]]) -> str:
    """Two releases of one engine in one pip command: pip installs none of them. pip 20.3 and
    later (the resolvelib resolver) stop with ResolutionImpossible: "Cannot install vllm==0.8.5
    and vllm==0.9.0 because these package versions have conflicting dependencies" (pip 23.2.1
    src/pip/_internal/resolution/resolvelib/factory.py:695, get_installation_error; run on two
    local wheels of one package, exit 1, nothing installed); the legacy resolver (pip 20.2 and
    before, `--use-deprecated=legacy-resolver`) stops with "Double requirement given"
    (resolution/legacy/resolver.py:268). What was installed before stays."""
    named = " and ".join(_short(p) for p in dict.fromkeys(pins))
    kept = f"{engine} {out[engine][0]}, installed before, stays" if engine in out else \
        f"the {engine} profile's default version is used"
    return (f"{where} installs {named} in one pip command: pip stops without installing either "
            "(ResolutionImpossible, 'these package versions have conflicting dependencies'; "
            f"'Double requirement given' before pip 20.3), so neither is the release; {kept}")


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
