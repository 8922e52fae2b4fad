"""Records: a kvplan/v1 `Deployment` built from a file, from flags, or a file with flags over it.

`build_records` is the only place that knows where a value came from; it returns validated
records whose `origins` say it (for `explain` and for messages), and nothing downstream reads
them to decide anything.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvplan.deploy import ENGINE_KEYS, UNUSED_BY, parse_deployment, unused_reason
from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.deploy.schema import Deployment
from kvplan.errors import InputError
from kvplan.plan.dotted import _leaves, drop_field, get_field, set_field  # imported from here too
from kvplan.plan.fields import FLAGS, FlagField
from kvplan.plan.targets import (  # what a record starts from; imported from here too
    COMMAND_LINE,
    FLAG_DEFAULTS,
    _read_base,
    is_deployment_target,
)
from kvplan.units import parse_tokens

if TYPE_CHECKING:
    from kvplan.deploy.yamldoc import Doc  # the YAML reader loads only where a file is read

__all__ = [
    "COMMAND_LINE",
    "FLAG_DEFAULTS",
    "Record",
    "build_records",
    "drop_field",
    "get_field",
    "is_deployment_target",
    "record_fields",
    "set_field",
    "with_fields",
]


@dataclass(frozen=True)
class Record:
    """One validated deployment and where each of its stated values came from."""

    deployment: Deployment
    source: str  # the file, or "command line"
    base_dir: Path | None = None  # relative paths in the record resolve from here
    doc: Doc | None = None  # line numbers of the file's fields
    origins: dict[str, str] = field(default_factory=dict)  # dotted field -> "--gpu", "file", ...
    notes: tuple[str, ...] = ()  # each override of a file's field, named
    # what a manifest's target carries beside its deployment, planned as `kvplan check` plans it
    # (plan_deployment): SGLang's data-parallel attention size, a launcher machine's GPUs
    attention_dp: int = 1
    node_gpus: int | None = None

    def origin(self, dotted: str) -> str:
        return self.origins.get(dotted, "default")

    def named(self, problems: list[Problem]) -> list[Problem]:
        """Problems with the flag named beside each field a flag set."""
        from kvplan.plan.fields import HINTS, flag_for
        from kvplan.plan.moot import on_flag_field

        out = []
        for p in problems:
            p = on_flag_field(self, p)
            flag = self.origins.get(p.field, "")
            flag = flag if flag.startswith("--") else ""
            if not flag and self.source == COMMAND_LINE:  # say which flag would set it
                hint = HINTS.get(p.field) or flag_for(p.field)
                flag = f"set with {hint}" if hint else ""
            label = f"{p.field} ({flag})" if flag else p.field
            out.append(Problem(label, p.message, None if flag else p.line))
        return out


def _stated(field: str, origins: dict[str, str], stated: frozenset[str]) -> bool:
    """Whether the file states `field`: a kvplan/v1 file's own field, or one a manifest, script
    or notebook names (kvplan.check.target.Target.names: `engine.max_model_len` as
    `--max-model-len`, `traffic` as its side file or annotations)."""
    return origins.get(field) == "file" or any(
        field == k or field.startswith(k + ".") for k in stated)


def _apply(
    data: dict[str, Any], origins: dict[str, str], flag: FlagField, value: Any, from_file: bool,
    stated: frozenset[str] = frozenset(),
) -> list[str]:
    """Set one flag's field (and what goes with it); say what it overrides in a file."""
    if flag.json_keys:  # one JSON object sets several fields, each as its own flag would
        from dataclasses import replace as dc_replace

        notes: list[str] = []
        for fld, item in _json_fields(flag, value).items():
            notes += _apply(data, origins, dc_replace(flag, field=fld, json_keys=()), item,
                            from_file, stated)
        return notes
    notes = []
    old = get_field(data, flag.field)
    new = flag.value(value)
    if flag.field.endswith(".sample"):  # a flag's path is relative to where kvplan runs
        new = _stdin_sample() if new == "-" else str(Path(new).expanduser().resolve())
    if flag.field == "engine.trtllm_config":
        new = str(Path(new).expanduser().resolve())
    if flag.field == "engine.speculative_model" and Path(new).expanduser().is_file():
        new = str(Path(new).expanduser().resolve())
    if from_file and old is not None and _stated(flag.field, origins, stated):
        if flag.field == "hardware.gpu":  # the catalog name, as the plans print it
            old = _gpu_name(str(old))
        notes.append(f"{flag.spelled(new)} overrides {flag.field} (was {old})")
    elif from_file:
        notes.append(f"{flag.spelled(new)} sets {flag.field} (the file does not state it)")
    set_field(data, flag.field, new)
    origins[flag.field] = flag.flag
    for key, extra in flag.also:
        if new:
            set_field(data, key, extra)
            origins[key] = flag.flag
    for key in flag.clears:  # the other of two alternatives the file stated
        if get_field(data, key) is not None and not origins.get(key, "").startswith("--"):
            if from_file:
                notes.append(f"{flag.flag} replaces {key} (was {get_field(data, key)})")
            drop_field(data, key)
            origins.pop(key, None)
    return notes


def _json_fields(flag: FlagField, raw: Any) -> dict[str, Any]:
    """A JSON flag's object as {field: value}; a key kvplan does not model is refused."""
    from kvplan.inputs.jsonsafe import loads_json

    data = loads_json(str(raw), flag.flag)
    if not isinstance(data, dict):
        raise InputError(f"{flag.flag}: expected a JSON object, got {raw!r}")
    keys = dict(flag.json_keys)
    method = data.pop("method", "draft_model")
    if method != "draft_model":
        raise InputError(f"{flag.flag}: method {method!r} is not modelled (its weights and KV "
                         "cache are unknown); kvplan models a draft model: {\"model\": ..., "
                         "\"num_speculative_tokens\": N}")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise InputError(f"{flag.flag}: {', '.join(unknown)} not modelled; kvplan reads "
                         f"{', '.join(keys)}")
    return {keys[k]: v for k, v in data.items()}


def build_records(
    target: str,
    values: dict[str, Any],
    adjust: Callable[[dict[str, Any], dict[str, str]], list[str]] | None = None,
) -> list[Record]:
    """Validated records for a target (model or file) and the flags given (parameter -> value).

    Comma lists expand into one record per combination, in the order of FLAGS (GPU first).
    `adjust` may set derived fields (the price of each record's GPU) before validation, and
    returns the notes that says (a price table with no row for the record's GPU).
    """
    base, source, base_dir, doc, origins0 = _read_base(target)
    read_notes = base.pop("x-notes", [])  # what reading a manifest assumed
    stated = frozenset(base.pop("x-stated", ()))  # the fields a manifest or script names
    planned_as = {"attention_dp": base.pop("x-attention-dp", 1),
                  "node_gpus": base.pop("x-node-gpus", None)}
    from_file = source != COMMAND_LINE
    given = {k: v for k, v in values.items() if v is not None}
    unnamed = base.pop("x-gpu-unnamed", None)  # (the file, how to name one), from targets
    # a manifest whose GPU check's reader named has had its GPU's dtype rule applied there
    dtype_done = base.pop("x-gpu-dtype-applied", False)
    no_load = base.pop("x-no-traffic", None)  # a manifest's: said unless a load is given
    if no_load and not {"peak_users", "arrival_rate", "mean_duration_s"} & set(given):
        read_notes.append(no_load)
    if unnamed and "gpu" not in given:  # --gpu names one
        read_notes.append(f"{unnamed[0]} names no GPU; planned on {base['hardware']['gpu']} "
                          f"({unnamed[1]})")
    unknown = sorted(set(given) - set(FLAGS))
    if unknown:  # a programming error in a command: every option is a field or an output flag
        raise InputError(f"options with no field of the record: {', '.join(unknown)}")
    by_field: dict[str, list[str]] = {}
    for name in given:
        for fld in [FLAGS[name].field, *(f for _, f in FLAGS[name].json_keys)]:
            if FLAGS[name].flag not in by_field.get(fld, []):
                by_field.setdefault(fld, []).append(FLAGS[name].flag)
    for fld, names in by_field.items():
        if len(names) > 1:
            raise InputError(f"give {' or '.join(names)}, not both (they set the same {fld})")
    choices: list[list[tuple[str, Any]]] = []
    for name, flag in FLAGS.items():
        if name not in given:
            continue
        raw = given[name]
        if flag.comma_list and isinstance(raw, str):
            items = [t.strip() for t in raw.split(",") if t.strip()]
            if not items:
                raise InputError(f"{flag.flag}: no value given")
            choices.append([(name, _typed(flag, item)) for item in items])
        else:
            choices.append([(name, raw)])
    records = []
    for combo in itertools.product(*choices):
        data, origins = _copy_tree(base), dict(origins0)
        notes: list[str] = list(read_notes)
        for name, value in combo:
            notes += _apply(data, origins, FLAGS[name], value, from_file, stated)
        if adjust is not None:
            notes += adjust(data, origins)
        try:
            dep = parse_deployment(data, source, doc)
        except DeploymentError as err:
            rec = Record(Deployment.model_construct(), source, base_dir, doc, origins)
            raise DeploymentError(source, rec.named(err.items)) from None
        if not dtype_done or "gpu" in given:  # the engine's compute dtype on this GPU
            from kvplan.plan.gpu_dtype import record_dtype_on_gpu

            dep, said = record_dtype_on_gpu(dep, base_dir, origins)
            notes += said
        from kvplan.plan.block_fp8 import record_block_fp8

        notes += record_block_fp8(dep, base_dir, int(planned_as["attention_dp"] or 1))
        rec = Record(dep, source, base_dir, doc, origins, tuple(notes), **planned_as)
        _refuse_unused(rec)
        records.append(rec)
    return records


def _copy_tree(data: Any) -> Any:
    """A copy of parsed YAML/JSON data: new dicts and lists, the same (immutable) scalars; a
    tenth of copy.deepcopy's cost, paid once per record of a sweep."""
    if type(data) is dict:
        return {k: _copy_tree(v) for k, v in data.items()}
    if type(data) is list:
        return [_copy_tree(v) for v in data]
    return data


def _typed(flag: FlagField, item: str) -> Any:
    """One item of a comma list, as its field expects (whole numbers for lengths and TP)."""
    if flag.field in ("engine.max_model_len", "parallel.tensor"):
        try:
            value = (parse_tokens(item) if flag.field == "engine.max_model_len"
                     else int(item.replace("_", "")))
        except ValueError:
            hint = (" (vLLM's spellings are taken too: 32k = 32,000, 32K = 32,768)"
                    if flag.field == "engine.max_model_len" else "")
            raise InputError(f"{flag.flag}: {item!r} is not a whole number{hint}") from None
        if value <= 0:
            raise InputError(f"{flag.flag}: must be positive, got {value}")
        return value
    if flag.field == "engine.allocation":
        return item.lower()
    return item


def with_fields(record: Record, values: dict[str, Any]) -> Record:
    """The record with some fields set (None: left as is), validated again."""
    data = record.deployment.model_dump(mode="json", exclude_unset=True)
    origins = dict(record.origins)
    for key, value in values.items():
        if value is not None:
            set_field(data, key, value)
            origins[key] = "planned"
    return replace(record, deployment=parse_deployment(data, record.source), origins=origins)


def record_fields(record: Record, planned: Deployment | None = None) -> list[tuple[str, Any, str]]:
    """Every field of the record (defaults included), its value and where it came from.

    `planned`: the deployment as planned (kvplan.deploy.engine_block): a field a TensorRT-LLM
    config file set (an engine or parallel field) is listed with that file as its origin."""
    data = record.deployment.model_dump(mode="json")
    leaves = _leaves(data)
    planned_leaves = _leaves(planned.model_dump(mode="json")) if planned is not None else leaves
    cfg = planned.engine.trtllm_config if planned is not None else None
    out = []
    for k, v in planned_leaves.items():
        if v is None and k not in record.origins:
            continue
        src = record.origin(k)
        if cfg is not None and k.startswith(("engine.", "parallel.")) \
                and k != "engine.trtllm_config" \
                and v != leaves.get(k):
            src = Path(cfg).name
        out.append((k, v, src))
    return out


def _gpu_name(ref: str) -> str:
    from kvplan.specs import load_hardware

    try:
        return load_hardware(ref).name
    except InputError:
        return ref


def _refuse_unused(rec: Record) -> None:
    """A flag that sets what the record's engine never reads is refused, with the reason; so is
    an engine's own spelling (--page-size, --max-batch-size, ...) given for another engine."""
    from kvplan.plan.fields import by_flag

    name = rec.deployment.engine.name
    problems: list[Problem] = []
    for key in UNUSED_BY.get(name, ()):
        flag = rec.origins.get(f"engine.{key}", "")
        spec = by_flag(flag)
        if spec is not None and spec.engines and name not in spec.engines:
            continue  # another engine's spelling: said once, below
        if flag.startswith("--"):
            if name == "ideal":
                hint = (f"; add --engine {ENGINE_KEYS[key][0]}" if key in ENGINE_KEYS
                        else "; add --engine")
            else:
                hint = "; drop the option"
            problems.append(Problem(f"engine.name {name} ({flag})",
                                    unused_reason(name, key) + hint))
    for flag in sorted({v for v in rec.origins.values() if v.startswith("--")}):
        spec = by_flag(flag)
        if spec is not None and spec.engines and name not in spec.engines:
            problems.append(Problem(
                f"engine.name {name} ({flag})",
                f"{flag} is {' and '.join(spec.engines)}'s name for {spec.field}; "
                + (f"for {name} give {spec.generic}" if spec.generic and name != "ideal"
                   else f"give --engine {spec.engines[0]} or drop the option")))
    if problems:  # one flag setting two fields (--speculative-config) is named once
        unique = {(p.field, p.message): p for p in problems}
        raise DeploymentError(rec.source, list(unique.values()))


def _stdin_sample() -> str:
    """`--context-sample -`: standard input kept in a file (JSONL when its lines are JSON)."""
    import tempfile

    raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    # the bytes as given: kvplan.inputs judges their encoding when the sample is read
    first = next((line.strip() for line in raw.splitlines() if line.strip()), b"")
    suffix = ".jsonl" if first.startswith(b"{") or first.isdigit() else ".csv"
    with tempfile.NamedTemporaryFile("wb", suffix=suffix, prefix="kvplan-sample-",
                                     delete=False) as fh:
        fh.write(raw)
    return fh.name
