"""A cache dtype an engine's option set names that kvplan cannot read (`kv_cache_dtype=5` in a
Python launcher, `--kv-cache-dtype abc`): the fix names the values that engine's release takes,
not kvplan's own precision names (task h90hostile: "unknown precision '5'; use one of fp32,
fp16, bf16, fp8, int8, int4", none of which vLLM's --kv-cache-dtype takes but fp8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.deploy import Problem
from kvplan.engine_traits import traits

if TYPE_CHECKING:
    from kvplan.check.target import Target

FIELD = "engine.kv_cache_dtype"
_KVPLAN_WORDS = "unknown precision "


def engine_words(target: Target, p: Problem) -> str:
    """p's message, with kvplan's precision names replaced by the engine's values when the
    target's own words (an option or keyword, not a kvplan/v1 field) set the cache dtype."""
    dep = target.deployment
    if p.field != FIELD or not p.message.startswith(_KVPLAN_WORDS) or dep is None or \
            target.field_name(FIELD) == FIELD:
        return p.message
    value = p.message[len(_KVPLAN_WORDS):].split("; use one of", 1)[0]
    found = values(dep.engine.name, dep.engine.version)
    if found is None:
        return p.message
    release, taken, where, own = found
    name = traits(dep.engine.name).said
    said = (f"{name} {release}" + (", the release kvplan plans with," if dep.engine.version
                                    is None else "")
            if own or dep.engine.version is None else
            f"{name} {dep.engine.version}'s values were not read; {name} {release}, the newest "
            "read,")
    if value.strip("'\"") in taken:  # the engine takes it: kvplan does not model that cache
        planned = ", ".join(v for v in taken if _modelled(v))
        return (f"{value}: {said} takes it ({where}), but kvplan does not model a cache of "
                f"that kind; of {name}'s values kvplan plans {planned}")
    return (f"{value} is not a cache dtype {name} takes: {said} takes {', '.join(taken)} "
            f"({where}); give one of them")


def _modelled(value: str) -> bool:
    """Whether kvplan plans a cache of this engine value: auto, or a precision it reads (fp8,
    fp8_e4m3 and fp8_e5m2 as fp8; since task kvspell no other fp8 variant: fp8_inc,
    fp8_ds_mla and fp8_per_token_head were read as a plain fp8 cache before)."""
    from kvplan.units import parse_dtype

    if value == "auto":
        return True
    try:
        parse_dtype(value)
    except ValueError:
        return False
    return True


def values(engine: str, version: str | None) -> tuple[str, tuple[str, ...], str, bool] | None:
    """(release named, its --kv-cache-dtype values, where read, whether they are `version`'s
    own): SGLang's from its option history (the placed release, else the newest read), another
    engine's from its trait (EngineTraits.kv_dtype_values); None where none were read."""
    from kvplan.check.manifests.release_options import history

    read = history(engine)
    if read is not None:
        placed = read.place(version) if version is not None else None
        own = placed is not None and placed.kind == "read" and placed.below is not None
        release = placed.below if own and placed is not None and placed.below else \
            read.releases[-1]
        taken = read.choices(release, "--kv-cache-dtype")
        if taken is None:
            return None
        return (str(version) if own else release, taken, read.source(release),
                own or version is None)
    hook = traits(engine).hook("kv_dtype_values")
    if hook is None:
        return None
    found: tuple[str, tuple[str, ...], str, bool] = hook(version)
    return found
