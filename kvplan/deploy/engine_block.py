"""The engine block's references resolved before planning: a TensorRT-LLM config file's limits
and settings (its cache dtype, parallel layout and backend) and a speculative-decoding draft
model. Both are read here, once, for every command."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic_core import ValidationError

from kvplan.deploy.engine_keys import reads
from kvplan.deploy.schema import Deployment
from kvplan.errors import InputError

if TYPE_CHECKING:
    from kvplan.specs.schema import ModelSpec


def _path(ref: str, base_dir: Path | None) -> Path:
    path = Path(ref).expanduser()
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    return path


def resolve_engine_block(dep: Deployment, base_dir: Path | None,
                         fail: Callable[[str, str], None]) -> tuple[Deployment, list[str]]:
    """The deployment with `engine.trtllm_config`'s limits and settings merged in (engine and
    parallel fields) and relative paths made
    absolute (so every later reader finds the same files), and a note per value the file set;
    problems go to `fail`."""
    notes: list[str] = []
    e = dep.engine
    update: dict[str, object] = {}
    layout: dict[str, object] = {}
    if e.trtllm_config is not None and reads(e.name, "trtllm_config"):
        path = _path(e.trtllm_config, base_dir)
        notes += _trtllm_file(dep, path, update, layout, fail)
        update["trtllm_config"] = str(path.resolve())
    if e.speculative_model is not None and reads(e.name, "speculative_model"):
        ref = e.speculative_model
        if _path(ref, base_dir).is_file():
            ref = update["speculative_model"] = str(_path(ref, base_dir).resolve())
        try:
            draft_spec(ref)
        except InputError as err:
            fail("engine.speculative_model", f"{err}; the draft's weights and KV cache come "
                 "from its spec (`kvplan import` one)")
        if reads(e.name, "num_speculative_tokens") and e.num_speculative_tokens is None:
            fail("engine.num_speculative_tokens", "vLLM needs num_speculative_tokens with a "
                 "draft model (--speculative-config '{\"model\": ..., "
                 "\"num_speculative_tokens\": N}')")
        if reads(e.name, "speculative_algorithm") and e.speculative_algorithm is None:
            fail("engine.speculative_model", "SGLang loads a draft model only with "
                 "--speculative-algorithm (EAGLE, EAGLE3, NEXTN or STANDALONE); give it, or "
                 "drop the draft")
    elif e.num_speculative_tokens is not None and reads(e.name, "num_speculative_tokens"):
        fail("engine.num_speculative_tokens", "kvplan models a draft model only: give "
             "speculative_model (--speculative-model) with it, or drop it")
    if not update and not layout:
        return dep, notes
    engine = e.model_copy(update=update)
    parallel = dep.parallel.model_copy(update=layout)
    # a config file's values within the same bounds as the record's own (docs/limits.md)
    for block, section in ((engine, "engine"), (parallel, "parallel")):
        try:
            type(block).model_validate(block.model_dump(exclude_unset=True))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            fail(f"{section}.{where}", f"{first['msg']} (from {Path(str(e.trtllm_config)).name})")
            return dep, notes
    return dep.model_copy(update={"engine": engine, "parallel": parallel}), notes


def _trtllm_file(dep: Deployment, path: Path, update: dict[str, object],
                 layout: dict[str, object], fail: Callable[[str, str], None]) -> list[str]:
    """`engine.trtllm_config`'s limits and settings into `update` (engine fields) and `layout`
    (parallel fields), a note for each; a value the record states otherwise is refused."""
    from kvplan.engines.trtllm_config import file_name, read_all

    e = dep.engine
    try:
        limits, settings, notes, other = read_all(path)
    except InputError as err:  # its message already names the field
        fail("engine.trtllm_config", str(err).removeprefix("engine.trtllm_config: "))
        return []
    engine_file = path.suffix == ".json"
    applied: list[tuple[str, object, str]] = [
        (f"engine.{f}", v, file_name(f, engine_file)) for f, v in limits.items()]
    applied += [(s.path, s.value, s.key) for s in settings]
    out: list[str] = []
    for where, value, key in applied:
        section, _, field = where.partition(".")
        block = e if section == "engine" else dep.parallel
        stated = getattr(block, field) if field in block.model_fields_set else None
        if _disagree(field, stated, value):
            fail(where, f"{stated} disagrees with {path.name}'s {key} {value}; state one")
        (update if section == "engine" else layout)[field] = value
        out.append(f"{where} {value} from {path.name} ({key})")
    from kvplan.engines.trtllm_settings import backend_refusal

    refused = backend_refusal(path.name, settings, e.version,
                              update.get("trtllm_backend", e.trtllm_backend))
    if refused is not None:
        fail("engine.trtllm_config", refused)
    return out + notes + ([other] if other else [])


def _disagree(field: str, stated: object, value: object) -> bool:
    """Whether a value the record states differs from the file's (a kv dtype by its precision:
    fp8_e4m3 is fp8; "auto" leaves the cache to the file)."""
    if stated is None:
        return False
    if field == "kv_cache_dtype":
        from kvplan.units import parse_dtype

        try:
            return stated != "auto" and parse_dtype(str(stated)) != parse_dtype(str(value))
        except ValueError:
            return False  # kvplan.deploy names a dtype it cannot parse
    return stated != value


def kv_dtype_unstated(dep: Deployment) -> Deployment:
    """The deployment with its kv dtype kept but no longer stated: a record built from flags
    carries the flags' default (fp16, kvplan.plan.targets.FLAG_DEFAULTS) without --kv-dtype, which
    must not disagree with a TensorRT-LLM options file's cache dtype."""
    e = dep.engine
    stated = set(e.model_fields_set) - {"kv_cache_dtype"}
    engine = type(e).model_construct(_fields_set=stated, **e.model_dump())
    return dep.model_copy(update={"engine": engine})


@lru_cache(maxsize=64)
def draft_spec(ref: str) -> ModelSpec:
    """The draft model's spec, through the shared resolver (no hub: plans stay offline)."""
    from kvplan.specs.resolve import resolve_model

    return resolve_model(ref, allow_hub=False).spec
