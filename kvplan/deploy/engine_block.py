"""The engine block's references resolved before planning: a TensorRT-LLM config file's limits
and a speculative-decoding draft model. Both are read here, once, for every command."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic_core import ValidationError

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
    """The deployment with `engine.trtllm_config`'s limits merged in and relative paths made
    absolute (so every later reader finds the same files), and a note per value the file set;
    problems go to `fail`."""
    notes: list[str] = []
    e = dep.engine
    update: dict[str, object] = {}
    if e.trtllm_config is not None and e.name == "trtllm":
        from kvplan.engines.trtllm_config import file_name, read_options

        path = _path(e.trtllm_config, base_dir)
        try:
            limits, other = read_options(path)
        except InputError as err:  # its message already names the field
            fail("engine.trtllm_config", str(err).removeprefix("engine.trtllm_config: "))
            limits, other = {}, None
        engine_file = path.suffix == ".json"
        for field, value in limits.items():
            stated = getattr(e, field) if field in e.model_fields_set else None
            if stated is not None and stated != value:
                fail(f"engine.{field}", f"{stated} disagrees with {path.name}'s "
                     f"{file_name(field, engine_file)} {value}; state one")
            update[field] = value
            notes.append(f"engine.{field} {value} from {path.name} "
                         f"({file_name(field, engine_file)})")
        if other:
            notes.append(other)
        update["trtllm_config"] = str(path.resolve())
    if e.speculative_model is not None and e.name == "vllm":
        ref = e.speculative_model
        if _path(ref, base_dir).is_file():
            ref = update["speculative_model"] = str(_path(ref, base_dir).resolve())
        try:
            draft_spec(ref)
        except InputError as err:
            fail("engine.speculative_model", f"{err}; the draft's weights and KV cache come "
                 "from its spec (`kvplan import` one)")
        if e.num_speculative_tokens is None:
            fail("engine.num_speculative_tokens", "vLLM needs num_speculative_tokens with a "
                 "draft model (--speculative-config '{\"model\": ..., "
                 "\"num_speculative_tokens\": N}')")
    elif e.num_speculative_tokens is not None and e.name == "vllm":
        fail("engine.num_speculative_tokens", "kvplan models a draft model only: give "
             "speculative_model (--speculative-model) with it, or drop it")
    if not update:
        return dep, notes
    engine = e.model_copy(update=update)
    try:  # a config file's values within the same bounds as the record's own (docs/limits.md)
        type(e).model_validate(engine.model_dump(exclude_unset=True))
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        fail(f"engine.{where}", f"{first['msg']} (from {Path(str(e.trtllm_config)).name})")
        return dep, notes
    return dep.model_copy(update={"engine": engine}), notes


@lru_cache(maxsize=64)
def draft_spec(ref: str) -> ModelSpec:
    """The draft model's spec, through the shared resolver (no hub: plans stay offline)."""
    from kvplan.specs.resolve import resolve_model

    return resolve_model(ref, allow_hub=False).spec
