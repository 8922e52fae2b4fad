"""The config's rotary-embedding fields a spec keeps (vLLM's rotary cos/sin cache is sized by them).

Read from the (text) config as Hugging Face writes it: `rope_scaling` (or, in transformers 5's
spelling, `rope_parameters`) with its `rope_type` (older configs: `type`), `factor` and
`original_max_position_embeddings`, and the top-level `partial_rotary_factor`. A config without
`rope_scaling` gives rope_type "default" (transformers' own name for plain RoPE). Models with
learned positions (OPT) get none of these fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import Located, block, field_path
from kvplan.specs.hf_layers import ImportRefused

NO_ROPE = frozenset({"opt"})  # learned position embeddings (OPTLearnedPositionalEmbedding)


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ImportRefused(f"{where} {value!r} must be a positive number")
    return float(value)


def rope_fields(cfg: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    """The spec's rope_* fields and partial_rotary_factor from a (text) config; a wrong type is
    named with its dotted path (kvplan.specs.config_paths)."""
    if model_type in NO_ROPE:
        return {}
    key = next((k for k in ("rope_scaling", "rope_parameters") if cfg.get(k) not in (None, {})),
               "rope_scaling")
    scaling = block(cfg, key) or Located({})
    kind_key = next((k for k in ("rope_type", "type") if scaling.get(k) is not None), "type")
    kind = scaling.get(kind_key, "default")
    if not isinstance(kind, str):
        raise ImportRefused(f"{field_path(scaling, kind_key)} {kind!r} must be a string")
    out: dict[str, Any] = {"rope_type": kind}
    if kind != "default" and scaling.get("factor") is not None:
        out["rope_factor"] = _number(scaling["factor"], field_path(scaling, "factor"))
    original = scaling.get("original_max_position_embeddings")
    if kind != "default" and original is not None:
        if isinstance(original, bool) or not isinstance(original, int) or original <= 0:
            raise ImportRefused(
                f"{field_path(scaling, 'original_max_position_embeddings')} {original!r} must be "
                "a positive integer")
        out["rope_original_positions"] = original
    partial = cfg.get("partial_rotary_factor")
    if partial is not None:
        factor = _number(partial, field_path(cfg, "partial_rotary_factor"))
        if factor > 1:
            raise ImportRefused(f"{field_path(cfg, 'partial_rotary_factor')} {partial!r} must "
                                "be in (0, 1]")
        out["partial_rotary_factor"] = factor
    return out
