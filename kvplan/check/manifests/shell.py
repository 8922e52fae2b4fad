"""Shell scripts and `docker run` lines that start an engine (`serve.sh`, a README's command,
a Makefile recipe saved as a script): one deployment per server start.

The script is read as a shell runs it, top to bottom, without running anything:
backslash-newline continuations are joined (a comment line ends the command, as in a shell:
its trailing backslash continues nothing), each line is split after `&&`, `;`, `|`, `&`
(kvplan.check.argv, as for a container's `sh -c`), redirections (`> log 2>&1`) are dropped,
`exec` and launcher prefixes (`nohup`, `env`, `uv run`) are passed over. Variables set earlier
in the script (`VAR=value`, `export VAR=value`) are substituted, `${VAR:-default}` with VAR
unset is its default, and a script argument with a default (`${1:-X}`) is X (the script run
without arguments); a reference the script does not resolve (`$1`, `$HOME`, `$(cmd)`) is
"render first", as an unrendered template is elsewhere.

The GPUs: `CUDA_VISIBLE_DEVICES` (exported, or before the command) lists them; a `docker run`
hands over those of `--gpus` (`all`, `N`, `"device=0,1"`); with neither, the server's
tensor x pipeline (x data-parallel) GPUs, said in a note. The GPU model is never in a script:
`--gpu`, else judged over the catalog (WARN), as a manifest that names none.

Refused with the reason: a server start inside a `for` / `while` / `until` loop or a function
body (its words come from the loop or the function's arguments at each call, which kvplan
does not follow), or in a branch of a `case` or of an `if` with `elif` / `else` (alternatives:
kvplan does not choose one). Commands inside an `if` without them are read as if they run
(noted). A `cd` / `pushd` earlier in the script moves the directory a relative option file
is resolved against (kvplan.check.manifests.script_files, which also follows a `docker run`'s
mounts), until the `)` of the subshell it runs in, if any (kvplan.check.manifests.shell_lex).
Heredoc bodies
(`cat > x <<EOF ... EOF`) are text another program reads, not commands of this script; a file
one writes is what a server started later in the script outside a container opens at that path
(kvplan.check.manifests.shell_heredoc).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kvplan.check.argv import ExpansionTooLong, server_start
from kvplan.check.manifests.model_hints import model_word_said
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.script_files import ScriptFiles
from kvplan.check.manifests.shell_docker import is_docker_run, read_docker_run
from kvplan.check.manifests.shell_expand import expand_split
from kvplan.check.manifests.shell_lex import Command, Script, read_script
from kvplan.check.manifests.shell_limits import (
    MAX_SCRIPT_BYTES,
    MAX_SERVERS,
    ScriptTooLarge,
    too_long,
    too_many_servers,
)
from kvplan.check.manifests.shell_set import alternative_set
from kvplan.check.manifests.shell_side import UNRESOLVED, model_from_side
from kvplan.check.manifests.shell_side import unresolved as _unresolved
from kvplan.check.target import DOCKER_RUN, SCRIPT, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh")
KIND = "shell command"  # PodSite.kind of a server started by the script itself
RENDER_FIRST_SCRIPT = "set it in the script, or render it first (envsubst)"
UNRENDERED = "is an unrendered template"  # kvplan.check.manifests.workload's words for one
ARITH_FIX = "write the value in the script"
ARITHMETIC = "an arithmetic expansion kvplan does not evaluate"


def is_script(path: Path, text: str) -> bool:
    """Whether a file is read as a shell script: a shell suffix or a `#!`, else any file that
    is not YAML holding a mapping or a list (a manifest with no suffix stays a manifest)."""
    if path.suffix in SHELL_SUFFIXES or text.startswith("#!") or len(text) > MAX_SCRIPT_BYTES:
        return True  # past the size kvplan reads in a script: refused with it, not parsed
    import yaml

    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return True
    except ValueError:  # an int past Python's 4,300 digits: YAML, refused by the YAML reader
        return False
    return not any(isinstance(d, (dict, list)) for d in docs)

def _what(word: str, env: dict[str, str] | None = None) -> str:
    m = UNRESOLVED.search(word)
    ref = m.group(0) if m else word
    if re.match(r"\$\d|\$[@*#]|\$\{\d", ref):
        return f"{word!r}: {ref} is an argument of the script, which kvplan does not know; " \
               "write the value in the script, or render it first"
    if ref == "$(" and word.startswith("$((", m.start() if m else 0):
        from kvplan.check.manifests.shell_arith import why_not

        return (f"{word!r}: {ARITHMETIC}: "
                f"{why_not(word[m.start() if m else 0:], env)}; {ARITH_FIX}")
    if ref in ("$(", "`"):
        named = re.search(r"\$\(([A-Za-z_]\w*)\)", word)
        if named is not None and env is not None and named[1] in env:  # Kubernetes' spelling
            return (f"{word!r}: a command substitution kvplan does not run: `{named[0]}` runs "
                    f"a command named {named[1]} (bash(1), \"Command Substitution\"); the "
                    f"variable {named[1]} the script sets is ${{{named[1]}}} (`$(NAME)` is "
                    "Kubernetes' spelling, expanded only in a container's command and args)")
        return f"{word!r}: a command substitution kvplan does not run; render it first"
    return f"{word!r}: the script does not set {ref.strip('${}')}; {RENDER_FIRST_SCRIPT}"


def _pass_over(engine: str, entry: str, words: list[str], lines: list[int],
               at: int) -> tuple[list[str], list[int], list[str]]:
    """(the words, their lines, notes) with each option whose value the script does not set
    left out when kvplan's plan does not read that option: `--port $port` with `port` set
    outside the script (vllm-project/vllm#33155, outcomes round 3, task h54outcomes3). The
    rule of a `sh -c` script's run-time variables (kvplan.check.manifests.shell_runtime): the
    model, an option kvplan maps (FIELDS) or reads elsewhere keeps its unresolved value, and
    the script is refused for it as before."""
    if _unresolved(words[at:]) is None:
        return words, lines, []
    from kvplan.check.argv import Invocation, Word, parse
    from kvplan.check.manifests.shell_runtime import runtime_only

    inv = Invocation(engine, entry, [Word(w, n) for w, n in zip(words[at:], lines[at:])])
    bad = [w for w in inv.words if _unresolved([w.text])]
    still, _, _ = runtime_only(inv, parse(inv), bad)
    passed = {w.text for w in bad} - {w.text for w in still}
    keep = [True] * len(words)
    notes: list[str] = []
    for i in range(at, len(words)):
        if words[i] not in passed:
            continue
        keep[i] = False
        flag = words[i].partition("=")[0]
        value = words[i].partition("=")[2] if words[i].startswith("-") else words[i]
        if not words[i].startswith("-") and i > at and words[i - 1].startswith("-"):
            keep[i - 1], flag = False, words[i - 1]
        notes.append(f"{flag}: {value!r} is set outside the script (the shell expands it when "
                     f"the script runs); kvplan's plan does not read {flag}, so it is passed over")
    return ([w for w, k in zip(words, keep) if k], [n for n, k in zip(lines, keep) if k], notes)


def _docker_pass_over(run: Any) -> tuple[list[str], list[int], list[str]]:
    """(the container's command, its lines, notes) with `_pass_over` applied to the server the
    `docker run` starts, as to one started outside a container: `--master-addr "$HEAD_IP"` with
    HEAD_IP set outside the script refused the head node's `docker run` of a two-node vLLM
    (vllm-project/recipes#395, outcomes round 8, task h71outcomes) though `--port $port` on
    the same server outside a container is passed over (round 3)."""
    start = server_start(run.command)
    if start is None:
        return run.command, list(run.lines), []
    return _pass_over(start[0], start[1], run.command, list(run.lines), start[2])


def _visible(env: dict[str, str]) -> tuple[Any, str]:
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return "all", ""
    devices = [d for d in value.split(",") if d.strip()]
    if _unresolved([value]) or not devices:
        return "all", ""
    return len(devices), f"CUDA_VISIBLE_DEVICES={value}"


def _site(cmd: Command, k: int, container: dict[str, Any], count: Any, said: str,
          kind: str, problems: list[Problem], notes: list[str], files: ScriptFiles) -> PodSite:
    pod_at: tuple[Any, ...] = ("commands", k)
    c_at = (*pod_at, "containers", 0)
    line = cmd.lines[0]
    lines: dict[tuple[Any, ...], int] = {pod_at: line, c_at: line}
    for i, n in enumerate(container.get("line_of", [])):
        lines[c_at + ("command", i)] = n
    container.pop("line_of", None)
    container["resources"] = {"limits": {container.pop("resource", "nvidia.com/gpu"): count}}
    site = PodSite(kind, {"containers": [container]}, pod_at, [(container, c_at)], 1, pod_at,
                   group=k, lines=lines, problems=problems, notes=notes, line_at=pod_at,
                   gpus_said=said, release_unknown=not container.get("image"), files=files)
    return site


def _refused(path: Path, cmd: Command, message: str, docker: bool) -> Target:
    return Target(file=str(path), kind=DOCKER_RUN if docker else SCRIPT, line=cmd.lines[0],
                  problems=[Problem("", message, cmd.lines[0])])


def sites(path: Path, text: str, given: dict[str, str] | None = None, first_line: int = 1,
          ) -> tuple[list[PodSite], list[Target]]:
    """A pod site for every server start (or `docker run` of an engine image) the script
    holds, and the server starts refused outright (inside a loop or a function body); `given`:
    the variables the script starts with (kvplan.check.manifests.skypilot)."""
    found, refused, _ = _read(path, text, given, first_line)
    return found, refused


def _read(path: Path, text: str, given: dict[str, str] | None, first_line: int = 1,
          ) -> tuple[list[PodSite], list[Target], Script | None]:
    """sites(), with the script as read (None when it is refused for its size), so that its
    `pip install` pins are read from the same reading (task h80shell: targets() read every
    script twice, once here and once for its pins)."""
    try:
        script = read_script(text, given, first_line)
    except ScriptTooLarge as err:  # one ERROR for the file, as a Python script's size is
        return [], [Target(file=str(path), kind=SCRIPT, line=err.line,
                           problems=[Problem("", err.message, err.line)])], None
    found, refused = _sites(path, script)
    starts = sorted([*(s.lines[s.pod_at] for s in found), *(t.line for t in refused)])
    if len(starts) > MAX_SERVERS:  # each is planned: refused as a whole, as a Python script is
        over = too_many_servers(len(starts), starts[MAX_SERVERS])
        return [], [Target(file=str(path), kind=SCRIPT, line=over.line,
                           problems=[Problem("", over.message, over.line)])], None
    return found, refused, script


def _sites(path: Path, script: Script) -> tuple[list[PodSite], list[Target]]:
    out: list[PodSite] = []
    refused: list[Target] = []
    for cmd, env, exported in script.commands:
        try:  # unquoted expansions split into words, as bash does (expand_split)
            expanded = [(x, n) for w, n in zip(cmd.words, cmd.lines) for x in expand_split(w, env)]
        except ExpansionTooLong:
            limit = too_long(cmd.lines[0])
            return [], [Target(file=str(path), kind=SCRIPT, line=limit.line,
                               problems=[Problem("", limit.message, limit.line)])]
        if not expanded:
            continue
        words, cmd.lines = [w for w, _ in expanded], [n for _, n in expanded]
        docker = is_docker_run(words)
        run = read_docker_run(words[docker:], cmd.lines[docker:], env) \
            if docker is not None else None
        start = None if docker is not None else server_start(words)
        if (run is None or not run.engine) and start is None:
            continue
        what = "`docker run`" if run is not None else f"`{start[1] if start else ''}`"
        if cmd.conditional in script.branched:
            cmd.block = (f"the `if` of line {cmd.conditional}, whose branches are alternatives "
                         "(which one runs depends on a value kvplan does not know)")
        alternative = alternative_set(cmd.set_in, script.branched, what)
        if alternative and not cmd.block:  # `"$@"` from a `set --` in a branch (shell_set)
            refused.append(_refused(path, cmd, alternative, run is not None))
            continue
        if cmd.block:
            source = ("its words come from the function's arguments at each call, which "
                      "kvplan does not follow" if "function" in cmd.block else
                      "kvplan does not choose one" if "alternatives" in cmd.block else
                      "its words come from the loop's variables at each pass, which kvplan "
                      "does not follow")
            refused.append(_refused(path, cmd, (
                f"this {what} is inside {cmd.block}: {source}; write one command per server "
                "(or a kvplan/v1 file) to have it checked"), run is not None))
            continue
        notes: list[str] = []
        if cmd.conditional in script.decided:
            said = script.decided[cmd.conditional]
            notes.append(f"inside the `if` of line {cmd.conditional}, "
                         + (said if said.startswith("in its else") else f"which holds: {said}"))
        elif cmd.conditional:
            notes.append(f"inside the `if` of line {cmd.conditional}: read as if it runs")
        if cmd.case:
            notes.append(cmd.case)
        notes.extend(f"after the `case` closed on line {at}: {said}" for at, said in script.cases
                     if at < cmd.lines[0])
        if run is not None:
            command, command_lines, passed = _docker_pass_over(run)
            command, said_model = model_from_side(command, path)
            passed = passed + said_model
            bad = _unresolved([run.image, *command])
            problems = ([Problem("", _what(bad, env) + model_word_said(command, bad),
                                 cmd.lines[0])] if bad else list(run.problems))
            container = {"image": run.image, "command": command, "line_of": command_lines,
                         "env": [{"name": k, "value": v} for k, v in run.env.items()],
                         "resource": run.resource, "implied_entry": run.implied,
                         "entry_image": run.image}
            files = ScriptFiles(path, cmd.cwd, cmd.lines[0], run.mounts, run.workdir)
            out.append(_site(cmd, len(out), container, run.count, run.said, "docker run",
                             problems, notes + run.notes + passed, files))
            continue
        assert start is not None
        server, lines, passed = _pass_over(start[0], start[1], words, list(cmd.lines), start[2])
        notes.extend(passed)
        args, said_model = model_from_side(server[start[2]:], path)
        server = server[:start[2]] + args
        notes.extend(said_model)
        bad = _unresolved(args)
        # a model path behind the variable: what its written-out folder name names
        problems = [Problem("", _what(bad, env) + model_word_said(server[start[2]:], bad),
                            cmd.lines[0])] if bad else []
        count, said = _visible(env)
        if not said:
            said = "no CUDA_VISIBLE_DEVICES in the script: every GPU of the machine is visible"
        container = {"image": "", "command": server, "line_of": lines,
                     "env": [{"name": k, "value": env[k]} for k in sorted(exported) if k in env]}
        notes.append(f"started outside a container: the {start[0]} release is the one "
                     "installed, which the script does not name; options the newest option "
                     "table lacks are noted, not refused")
        wrote = [w for w in script.written if w.line < cmd.lines[0]]
        out.append(_site(cmd, len(out), container, count, said, KIND, problems, notes,
                         ScriptFiles(path, cmd.cwd, written=wrote)))
    return out, refused


def directive_notes(path: Path, text: str, first_line: int = 1) -> list[str]:
    """A calibration log's directive line in a script (shell or Python): a comment there, said,
    not skipped."""
    return [f"line {n}: `{line.strip()[:60]}`: `# kvplan:` lines are read in calibration logs "
            "only (`kvplan calibrate`), not in scripts: this one is not read; write the traffic "
            f"and GPU in the side file {path.stem}.kvplan.yaml, or give --gpu"
            for n, line in enumerate(text.splitlines(), start=first_line)
            if re.match(r"\s*#\s*kvplan:", line)]


def targets(path: Path, text: str, side_cache: dict[Path, Any], default_gpu: str | None,
            given: dict[str, str] | None = None,
            pins: tuple[dict[str, tuple[str, str]], list[str]] | None = None,
            first_line: int = 1) -> list[Target]:
    """Every deployment a script starts, through the manifests' one conversion; `given`: the
    variables the script starts with, `pins`: the engine releases pinned elsewhere (a notebook's
    shell lines, kvplan.check.manifests.notebook_shell), else the script's own; `first_line`:
    the number of the text's first line in its file (a notebook's piece)."""
    from kvplan.check.manifests import site_targets
    from kvplan.check.manifests.launcher_sites import installed

    found, refused, script = _read(path, text, given, first_line)
    doc = Doc(data={}, start_line=1, lines={})
    out: list[Target] = []
    unread = directive_notes(path, text, first_line)
    releases, said = pins if pins is not None else _pins(text, script)
    for site in found:
        # an arithmetic expansion kvplan does not evaluate is said once, by the script's reader,
        # not again as an option's "is not a number"
        arith = [p.message.split(": " + ARITHMETIC, 1)[0] for p in site.problems
                 if ARITHMETIC in p.message]
        if site.kind == KIND:  # started outside a container: the release its pip install pins
            installed(site, "", releases)
            site.notes.extend(said)
        for target in site_targets(doc, path, [site], None, {}, side_cache, default_gpu):
            target.notes.extend(unread)
            if site.kind == KIND:  # a pip install names no vendor (ROCm reads CUDA_VISIBLE_DEVICES)
                target.gpu_vendor = None
            if site.problems:  # said once: not again as the manifests' "unrendered template"
                target.problems = [p for p in target.problems if p in site.problems or (
                    UNRENDERED not in p.message and not any(w in p.message for w in arith))]
            out.append(target)
    out.extend(refused)
    return sorted(out, key=lambda t: t.line)


def _pins(text: str, script: Script | None) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The engine releases the script's own `pip install` lines pin (launcher_sites.pip_pins,
    as SkyPilot's setup, dstack's commands and a notebook's cells are read), each with the
    variables set at its line in the script as read once (`_read`); none when the script was
    refused for its size (sites() said so in one ERROR)."""
    from kvplan.check.manifests.launcher_sites import pip_pins

    if script is None:
        return {}, []
    at = {cmd.lines[0]: env for cmd, env, _ in script.commands if cmd.lines}
    return pip_pins(text, lambda n: f"line {n}", lambda n: at.get(n, {}))


def starts_server(path: Path) -> bool:
    """Whether a file is a script with a server start (or one refused by name) in it."""
    from kvplan.errors import InputError
    from kvplan.inputs.text import read_text

    try:
        text = read_text(path)
    except InputError:
        return False
    if not is_script(path, text):
        return False
    found, refused = sites(path, text)
    return bool(found or refused)


def read_if_script(path: Path, side_cache: dict[Path, Any],
                   default_gpu: str | None) -> list[Target] | None:
    """The deployments of a file that is a shell script; None when it is not one (YAML)."""
    from kvplan.errors import InputError
    from kvplan.inputs.text import read_text

    try:
        text = read_text(path)
    except InputError:
        return None
    if not is_script(path, text):
        return None
    from kvplan.check.manifests.shell_quotes import unclosed_target

    unclosed = unclosed_target(path, text)
    if unclosed is not None:
        return [unclosed]
    return targets(path, text, side_cache, default_gpu)
