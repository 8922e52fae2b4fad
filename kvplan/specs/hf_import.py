"""Turn a Hugging Face config.json (file, snapshot folder or hub id) into a kvplan ModelSpec.

Every convention the importer knows is written out (here, in hf_config for the config's keys,
hf_layers/hf_mamba for layer kinds, hf_quant for quantization); anything else is refused (fail
closed) rather than guessed. Where the config comes from is hf_source. The output YAML is
deterministic: same input, same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from kvplan.errors import InputError, SpecError
from kvplan.specs.hf_config import (
    LLAMA4_KEYS,
    REFUSED_KEYS,
    SUPPORTED,
    attention_block,
    text_config,
    weight_dtype,
)
from kvplan.specs.hf_layers import ImportRefused, layer_kinds, moe_block, phi_note, positive_int
from kvplan.specs.hf_mamba import MODEL_TYPE as GRANITE_HYBRID
from kvplan.specs.hf_mamba import granite_layer_kinds, granite_moe
from kvplan.specs.hf_nvfp4 import from_quant_file, nvfp4_quant
from kvplan.specs.hf_quant import (
    checkpoint_kv_quant,
    linear_quant,
    trtllm_checkpoint_refusal,
    with_compression_config,
    with_expert_quant,
    with_modelopt_file,
)
from kvplan.specs.hf_quant8 import dense_8bit, fp8_block_size
from kvplan.specs.hf_rope import rope_fields
from kvplan.specs.hf_source import read_source
from kvplan.specs.mm_tokens import mm_tokens_per_item, vision_tower_fields
from kvplan.specs.params import UnsupportedArchitecture, count_params
from kvplan.specs.params_base import _int_or
from kvplan.specs.schema import ModelSpec
from kvplan.specs.unmodelled import unmodelled_reason
from kvplan.units import DType

__all__ = ["import_model", "read_source", "spec_from_config", "spec_yaml", "text_config"]


def spec_from_config(
    config: Mapping[str, Any],
    *,
    name: str,
    hf_id: str,
    origin: str,
    weight: DType | None = None,
    param_count: int | None = None,
    param_source: str | None = None,
    extra_notes: list[str] | None = None,
) -> ModelSpec:
    """The ModelSpec a config describes. Raises ImportRefused for what kvplan cannot size."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise ImportRefused(trtllm_checkpoint_refusal(config) or
                            "config.json has no model_type; is this a Hugging Face config?")
    if model_type not in SUPPORTED:
        reason = unmodelled_reason(model_type)
        raise ImportRefused(
            f"model_type {model_type!r} is not supported"
            + (f" ({reason})" if reason else "")
            + f" (kvplan knows: {', '.join(SUPPORTED)}); "
            "write a spec YAML by hand from its config and modeling code"
        )
    cfg, notes = text_config(config)
    with_compression_config(cfg, notes)
    for key, what in REFUSED_KEYS.items():
        if model_type == "llama4" and key in LLAMA4_KEYS:
            continue
        if cfg.get(key) not in (None, [], 0):
            raise ImportRefused(f"{key} is set: {what} is not modelled")
    hybrid = model_type == GRANITE_HYBRID
    kinds = granite_layer_kinds(cfg, notes) if hybrid else layer_kinds(cfg, model_type, notes)
    attention = attention_block(cfg, model_type, kinds, notes)
    moe = granite_moe(cfg, notes) if hybrid else moe_block(cfg, model_type, notes)
    dtype = weight if weight is not None else weight_dtype(cfg, notes)
    quant = None
    if weight is None:  # a stated --weight-dtype prices the whole model in it
        moe = with_expert_quant(cfg, moe, dtype, notes)
        quant = linear_quant(cfg, model_type, positive_int(cfg, "num_hidden_layers"), notes)
        if quant is None and moe is None:  # compressed-tensors W8A8, fbgemm_fp8
            quant = dense_8bit(cfg, model_type, cfg.get("tie_word_embeddings") is True, notes)
    counted = count_params(cfg, model_type, config)
    nvfp4 = None if weight is not None else nvfp4_quant(cfg, model_type, moe,
                                                         counted.encoder is not None, notes)
    item_tokens, item_how = mm_tokens_per_item(model_type, config)
    if counted.encoder is not None:
        notes.append(
            f"the checkpoint holds a vision tower of {counted.encoder:,} parameters "
            "(params_encoder), loaded with the language model and counted in params_total"
        )
        if item_how:
            notes.append(f"mm_tokens_per_item: {item_how}")
    if param_count is not None:
        total, estimated = param_count, False
        how = param_source or "counted from the checkpoint"
        active = counted.active
        if active is not None:
            active += param_count - counted.total  # anything the estimate missed is shared
    else:
        total, active, estimated = counted.total, counted.active, True
        how = "estimated from the config shapes by kvplan.specs.params (an estimate)"
    inter = _int_or(cfg, "intermediate_size", 0, least=1) or None
    if model_type == "falcon" and inter is None:
        inter = cfg.get("ffn_hidden_size") or 4 * positive_int(cfg, "hidden_size")
        notes.append(f"intermediate_size absent: Falcon's MLP is 4 x hidden_size = {inter}")
    if hybrid:  # the MLP every layer has (the routed experts, if any, are `moe`)
        inter = positive_int(cfg, "shared_intermediate_size")
    if model_type == "phi":
        notes.append(phi_note(cfg))
    if model_type == "opt":
        inter = positive_int(cfg, "ffn_dim")
        notes.append(f"OPT's MLP width is ffn_dim {inter}; learned positions, "
                     f"max_position_embeddings {cfg.get('max_position_embeddings')}")
    fields = ", ".join(
        f"{k} {cfg[k]}"
        for k in ("num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim")
        if cfg.get(k) is not None
    )
    source = f"imported by `kvplan import` from {origin} ({fields}); parameters: {how}"
    return ModelSpec(
        name=name,
        hf_id=hf_id,
        source=source,
        model_type=model_type,
        params_total=total,
        params_active=active,
        params_estimated=estimated,
        params_encoder=counted.encoder,
        mm_tokens_per_item=item_tokens if counted.encoder is not None else None,
        **(vision_tower_fields(model_type, config) if counted.encoder is not None else {}),
        num_layers=positive_int(cfg, "num_hidden_layers"),
        hidden_size=positive_int(cfg, "hidden_size"),
        num_attention_heads=positive_int(cfg, "num_attention_heads"),
        intermediate_size=inter,
        vocab_size=positive_int(cfg, "vocab_size"),
        max_context_tokens=positive_int(cfg, "max_position_embeddings"),
        **rope_fields(cfg, model_type),
        weight_dtype=dtype,
        attention=attention,
        moe=moe,
        weight_quant=quant,
        nvfp4=nvfp4,
        weight_block_size=fp8_block_size(cfg) if weight is None else None,
        notes="; ".join([*notes, *(extra_notes or [])]) or None,
    )


def import_model(
    source: str, name: str | None = None, hf_id: str | None = None, weight: DType | None = None
) -> ModelSpec:
    """Read SOURCE (config.json, snapshot folder or hub id) and build its spec."""
    loaded = read_source(source)
    spec_name = name or loaded.default_name
    config = loaded.config
    try:
        nvfp4 = from_quant_file(loaded.quant_file) if (
            loaded.quant_file is not None and weight is None) else None
        if nvfp4 is not None and "quantization_config" not in config:
            config = {**config, "quantization_config": nvfp4}  # as vLLM's from_config reads it
            loaded.notes.append("hf_quant_config.json states ModelOpt NVFP4: read as the "
                                "quantization_config")
        else:
            with_modelopt_file(loaded.quant_file, weight, loaded.notes)
        kv_quant = checkpoint_kv_quant(config, loaded.quant_file)
        if kv_quant is not None:
            loaded.notes.append(f"the checkpoint quantizes its KV cache: kv_cache_quant_algo "
                                f"{kv_quant} (TensorRT-LLM's cache dtype auto takes it)")
        spec = spec_from_config(
            config,
            name=spec_name,
            hf_id=hf_id or loaded.hf_id or f"local/{spec_name}",
            origin=loaded.origin,
            weight=weight,
            param_count=loaded.param_count,
            param_source=loaded.param_source,
            extra_notes=loaded.notes,
        )
        return spec.model_copy(update={"kv_cache_quant_algo": kv_quant}) if kv_quant else spec
    except UnsupportedArchitecture as err:
        raise InputError(f"{source}: cannot import: {err}") from None
    except ValidationError as err:  # a shape the schema refuses (KV heads above heads, ...)
        from kvplan.specs.loader import format_validation

        raise SpecError(source, format_validation(err)) from None


def spec_yaml(spec: ModelSpec) -> str:
    """The spec as YAML, fields in schema order, unset optional fields left out."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        """Short lists of plain values (layer patterns) on one line."""

    def _list(dumper: yaml.SafeDumper, items: list[Any]) -> yaml.Node:
        flow = all(isinstance(i, (str, int)) for i in items)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)

    _Dumper.add_representer(list, _list)
    data = spec.model_dump(mode="json", exclude_none=True)
    if not data.get("aliases"):
        data.pop("aliases", None)
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=100, allow_unicode=True)
