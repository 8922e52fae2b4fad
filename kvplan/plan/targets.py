"""What a record starts from: a kvplan/v1 file (or `-`, standard input), a Kubernetes/Helm/...
manifest `kvplan check` reads, or a model name with the flag defaults.

Split from kvplan.plan.record (which applies the flags over this base and re-exports these names).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.deploy.schema import API_VERSION
from kvplan.errors import InputError
from kvplan.plan.dotted import _leaves, set_field

if TYPE_CHECKING:
    from kvplan.deploy.yamldoc import Doc  # the YAML reader loads only where a file is read

COMMAND_LINE = "command line"
# what a record built from flags alone starts from (the commands' long-standing defaults)
FLAG_DEFAULTS: dict[str, Any] = {"hardware.gpu": "h100", "engine.kv_cache_dtype": "fp16"}
# a kvplan/v1 deployment's sections besides `model`: a file with `model` and one of these but
# no apiVersion is a deployment missing its first line, not a model spec
_RECORD_SECTIONS = {"hardware", "parallel", "engine", "traffic", "requirement"}


def is_deployment_target(target: str) -> bool:
    """A kvplan/v1 file (or `-`, a deployment on standard input), or a manifest `kvplan check`
    reads: a Kubernetes-style document (apiVersion) or a kind-less one (docker-compose, Helm
    values)."""
    if target == "-":
        return True
    path = Path(target)
    if path.suffix not in (".yaml", ".yml") and path.is_file():
        if path.suffix in _SCRIPT_SUFFIXES or (path.suffix != ".json" and _shell_line(path)):
            return True  # read as check reads it; one that starts nothing is refused with why
        from kvplan.check.manifests.shell import starts_server  # a launch script, read as check

        return starts_server(path)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    from kvplan.deploy.yamldoc import read_docs

    docs = read_docs(path)  # a malformed file is named here, not taken for a model name
    if not docs or not isinstance(docs[0].data, dict):
        return False
    data = docs[0].data
    if "apiVersion" in data:
        return True
    if "num_layers" in data or "model_type" in data:  # a model spec
        return False
    # a kind-less manifest `kvplan check` reads (docker-compose, Helm values), or a kvplan/v1
    # file missing its apiVersion line (refused by _read_base with what to add)
    return _manifest(data) or _record_like(data)


# the files `kvplan check` reads as scripts whatever they hold (kvplan.check.outcome.PY_SUFFIXES
# and kvplan.check.manifests.shell.SHELL_SUFFIXES, repeated here so that a plan of a model name
# imports neither; tests/check/test_explain_takes_what_check_takes.py holds them equal): never a
# model spec, so one that starts no engine is refused with check's reason, not looked up as a model
_SCRIPT_SUFFIXES = (".py", ".ipynb", ".sh", ".bash", ".zsh", ".ksh")


def _shell_line(path: Path) -> bool:
    from kvplan.check.manifests.side import has_shell_line

    return has_shell_line(path)


def _manifest(data: dict[str, Any]) -> bool:
    from kvplan.check.manifests import FORMATS

    return any(f.detect is not None and f.detect(data) for f in FORMATS)


def _record_like(data: dict[str, Any]) -> bool:
    return "apiVersion" not in data and "model" in data and bool(_RECORD_SECTIONS & set(data))


def missing_api_version(data: dict[str, Any]) -> bool:
    """A kvplan/v1 deployment without its apiVersion line: `model` and another of its sections,
    and no manifest format `kvplan check` reads claims it."""
    return _record_like(data) and not _manifest(data)


def _read_base(target: str) -> tuple[dict[str, Any], str, Path | None, Doc | None, dict[str, str]]:
    """The record a target starts from: a file's fields, or a model with the flag defaults."""
    if is_deployment_target(target):
        from kvplan.deploy.yamldoc import iter_docs, read_docs

        if target != "-" and Path(target).suffix not in (".yaml", ".yml"):
            return _from_manifest(Path(target))  # a launch script (kvplan.check.manifests.shell)

        if target == "-":
            docs = list(iter_docs(sys.stdin.read(), "<stdin>"))
            source, base_dir = "<stdin>", Path.cwd()
        else:
            docs = read_docs(Path(target))
            source, base_dir = target, Path(target).parent
        if not docs or not isinstance(docs[0].data, dict):
            raise DeploymentError(source, [Problem("", "expected one kvplan/v1 document")])
        head = docs[0].data
        if missing_api_version(head):
            raise DeploymentError(source, [Problem("apiVersion", (
                "missing: a kvplan/v1 deployment starts with `apiVersion: kvplan/v1` (this "
                "file has its sections: " + ", ".join(sorted(_RECORD_SECTIONS & set(head)))
                + "); add that line"), docs[0].start_line)])
        if not str(head.get("apiVersion", "")).startswith("kvplan"):
            return _from_manifest(Path(target))
        if len(docs) > 1:  # never the first silently: each document is a deployment of its own
            raise DeploymentError(source, [Problem("", (
                f"{len(docs)} documents; a plan reads one kvplan/v1 deployment: give one per "
                "file (`kvplan check` judges each document of a file)"), docs[1].start_line)])
        data = copy.deepcopy(docs[0].data)
        return data, source, base_dir, docs[0], {k: "file" for k in _leaves(data)}
    _refuse_missing_file(target)
    _refuse_unversioned_deployment(target)
    name = Path(target).stem if target.endswith((".yaml", ".yml", ".json")) else target
    data = {"apiVersion": API_VERSION, "name": name, "model": target, "hardware": {},
            "traffic": {}}
    for key, value in FLAG_DEFAULTS.items():
        set_field(data, key, value)
    origins = {"apiVersion": "default", "name": "argument", "model": "argument"}
    return data, COMMAND_LINE, None, None, origins


def _refuse_missing_file(target: str) -> None:
    """A target named as a path (kvplan.specs.resolve.looks_like_path: a .yaml, .json or script
    suffix, a leading / ./ ~) that is not there is refused with the resolver's words alone.
    Before task freshuser it went on as a model name, and the refusal added the traffic a
    deployment file would have given: `kvplan fleet examples/support-chatbot.yaml` outside a
    checkout said "...: no such file; command line: traffic (...): give peak_concurrent_users"."""
    from kvplan.specs.resolve import looks_like_path, resolve_model

    if not looks_like_path(target) or Path(target).expanduser().exists():
        return
    try:
        resolve_model(target)  # a path's refusal, with its hints; reads no network
    except InputError as err:
        raise DeploymentError(COMMAND_LINE, [Problem("model", str(err))]) from None


def guessed_deployment(data: object) -> str | None:
    """What to say of a YAML document with a top-level `model` key, no apiVersion and none of
    a model spec's num_layers or model_type (is_deployment_target's test): a deployment written
    by guess (`model: llama-3-8b`, `gpu: h100`, `peak_users: 100`), since no model spec has a
    `model` key (ModelSpec forbids unknown keys); None for anything else. Before task freshuser
    size, fleet and explain validated it as a model spec and refused it with a line of 20
    "required field is missing", and check said only that it held no deployment."""
    if (not isinstance(data, dict) or "model" not in data or "apiVersion" in data
            or "num_layers" in data or "model_type" in data):  # a spec with a stray key: a spec
        return None
    keys = ", ".join(sorted(str(k) for k in data)[:8])
    return (f"missing: this file ({keys}) is no model spec, which has no `model` key; a "
            "kvplan/v1 deployment starts with `apiVersion: kvplan/v1` and `name:`, and puts the "
            "GPU under hardware.gpu and the users under traffic.peak_concurrent_users "
            "(docs/record.md); `kvplan fleet MODEL --peak-users N --save FILE` writes one to "
            "start from")


def _refuse_unversioned_deployment(target: str) -> None:
    """A YAML target that is a guessed deployment (guessed_deployment) is refused as one."""
    path = Path(target)
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return
    from kvplan.deploy.yamldoc import read_docs

    docs = read_docs(path)
    said = guessed_deployment(docs[0].data) if docs else None
    if said is not None:
        raise DeploymentError(target, [Problem("apiVersion", said, docs[0].start_line)])


def _from_manifest(
    path: Path,
) -> tuple[dict[str, Any], str, Path | None, Doc | None, dict[str, str]]:
    """A Kubernetes/Helm/KServe/... manifest's first server, as `kvplan check` reads it: the
    same launch record converted to a kvplan/v1 Deployment (kvplan.check.manifests.launch)."""
    from kvplan.check import read_targets

    targets = read_targets(path, {})
    found = [t for t in targets if t.deployment is not None]
    if not found:
        problems = [p for t in targets for p in t.problems] or [_nothing_read(path)]
        raise DeploymentError(str(path), problems)
    t = found[0]
    from kvplan.check.compute_dtype import keep_quantized_weights

    keep_quantized_weights(t)  # as check plans it: --dtype is not a quantized checkpoint's weights
    from kvplan.check.gpu_dtype import apply_gpu_dtype

    apply_gpu_dtype(t)  # and the dtype the engine refuses or runs on this GPU's capability
    if t.problems:  # the compute dtype the engine refuses: check's ERROR, never planned over
        raise DeploymentError(str(path), t.problems)
    assert t.deployment is not None
    from kvplan.deploy import dtype_problems

    unread = dtype_problems(t.deployment.engine)
    if unread:  # `--kv-cache-dtype fp7`: the engine's values, in check's words (kv_dtype_fix);
        # before, size and explain listed kvplan's precision names (task h100readers)
        raise DeploymentError(str(path), t.renamed([Problem(f, why, t.line_of(f))
                                                    for f, why in unread]))
    data = t.deployment.model_dump(mode="json", exclude_none=True, exclude_unset=True)
    origins = {k: "manifest" for k in _leaves(data)}
    if "engine.topk_topp_sampler" in origins:  # from the image or an environment variable: say which
        origins["engine.topk_topp_sampler"] = \
            f"manifest: {t.names.get('engine.topk_topp_sampler', 'engine.topk_topp_sampler')}"
    notes = list(t.notes)
    for r in t.refusals:  # check's FAIL before any arithmetic: said, never planned over in silence
        where = f"line {r.line}: " if r.line else ""
        what = f"{r.field}: " if r.field and r.field not in r.message else ""
        notes.append(f"{where}{what}{r.message}; planned as if it started (`kvplan check` "
                     "FAILs it)")
    if len(found) > 1:  # in the file's words: a script or notebook is no manifest
        from kvplan.check.manifests.wording import gpu_unnamed

        notes.append(f"{gpu_unnamed(t.kind, path)[0]} runs {len(found)} servers; planning the "
                     f"first ({t.name or f'line {t.line}'})")  # a script's server has no name
    for other in targets:  # a refused server is named, never dropped from the plan silently
        if other.deployment is None and other.problems:
            p = other.problems[0]
            where = f"line {p.line}: " if p.line else ""
            notes.append(f"not planned: {other.name or f'the server on line {other.line}'} "
                         f"({where}{p.text()}; "
                         "`kvplan check` lists every problem)")
    if t.no_traffic:  # check's placeholder load of one user: give --peak-users for a fleet
        data["traffic"] = {k: v for k, v in data.get("traffic", {}).items()
                           if k != "peak_concurrent_users"}
        from kvplan.check.manifests.wording import no_traffic

        # a script has a side file, not annotations; build_records says it unless a load is
        # given (task h90review: it told a user who gave --peak-users to give --peak-users)
        data["x-no-traffic"] = no_traffic(t.kind, path)
    if not t.gpu_named:
        from kvplan.check.manifests.wording import gpu_unnamed

        # build_records notes the default unless --gpu names one, in the file's own words
        data["x-gpu-unnamed"] = gpu_unnamed(t.kind, path)
    data["x-notes"] = notes
    data["x-gpu-dtype-applied"] = t.gpu_named  # apply_gpu_dtype ran on the GPU it names
    data["x-stated"] = sorted(t.names)  # a flag over one of these overrides the file (record)
    data["x-attention-dp"], data["x-node-gpus"] = t.attention_dp, t.node_gpus  # as check plans
    return data, str(path), path.parent, t.doc, origins


def _nothing_read(path: Path) -> Problem:
    """Why a file holds no server kvplan reads, in `kvplan check`'s words (a script that
    mentions an engine but starts none, a compose service it cannot read, ...)."""
    from kvplan.check.nothing_read import nothing_read as why

    text, line = why(path)
    return Problem("", text, line)
