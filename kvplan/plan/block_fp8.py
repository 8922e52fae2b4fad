"""A block-fp8 checkpoint at a tensor-parallel size its engine refuses, for `size`, `explain`
and `fleet` (task h91fp8block): said in a note and planned as if it started, as a compute dtype
the engine refuses is (kvplan.plan.gpu_dtype); `kvplan check` FAILs it, and `fleet --search`
rejects that TP. The rule is the engines' (kvplan.engines.fp8_blocks)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kvplan.deploy import Deployment

if TYPE_CHECKING:
    from kvplan.specs.schema import ModelSpec

PLANNED_AS = "planned as if it started (`kvplan check` FAILs such a deployment)"


def block_reason(engine: str, version: str | None, model: ModelSpec, tp: int,
                 ep: int | None, attention_dp: int = 1, block: object = None) -> str | None:
    """Why the engine refuses `model` at `tp` (kvplan.engines.fp8_blocks), or None; SGLang's
    shards from its data-parallel attention `attention_dp` and the engine `block`'s keys
    (--moe-dense-tp-size, --moe-a2a-backend: kvplan.engines.sglang_dp). kvplan.engines is
    imported only for a block-fp8 model: `size` starts light."""
    if model.weight_block_size is None:
        return None
    from kvplan.engines.fp8_blocks import block_fp8_reason, engine_ep, engine_split

    ep = engine_ep(engine, model, tp, ep, block)
    return block_fp8_reason(engine, version, model, tp, ep,
                            engine_split(engine, model, tp, ep, attention_dp, block))


def block_note(engine: str, version: str | None, model: ModelSpec, tp: int,
               ep: int | None, attention_dp: int = 1, block: object = None) -> str | None:
    """The refusal with how it is planned, or None (no rule, or every shard is whole blocks)."""
    why = block_reason(engine, version, model, tp, ep, attention_dp, block)
    return f"{why}; {PLANNED_AS}" if why else None


def record_block_fp8(dep: Deployment, base_dir: Path | None, attention_dp: int = 1) -> list[str]:
    """The note for one record's deployment; none where its model cannot be read (the plan's
    own error says so)."""
    from kvplan.deploy import resolve_model

    try:
        model = resolve_model(dep.model, base_dir)
    except Exception:  # noqa: BLE001 - a bad model is the plan's own error
        return []
    note = block_note(dep.engine.name, dep.engine.version, model, dep.parallel.tensor,
                      dep.parallel.expert, attention_dp, dep.engine)
    return [note] if note else []
