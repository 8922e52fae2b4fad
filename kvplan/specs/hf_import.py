"""Turn a Hugging Face config.json (file, snapshot folder or hub id) into a kvplan ModelSpec.

Every convention the importer knows is written out below; anything else is refused (fail
closed) rather than guessed. The output YAML is deterministic: same input, same bytes.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kvplan.errors import InputError, SpecError
from kvplan.specs.hf_layers import (
    ImportRefused,
    compress_pattern,
    layer_kinds,
    moe_block,
    phi_note,
    positive_int,
    window_tokens,
)
from kvplan.specs.hf_mamba import MODEL_TYPE as GRANITE_HYBRID
from kvplan.specs.hf_mamba import granite_layer_kinds, granite_moe, mamba2_state
from kvplan.specs.hf_quant import (
    checkpoint_dtype,
    with_compression_config,
    with_expert_quant,
    with_modelopt_file,
)
from kvplan.specs.mm_tokens import mm_tokens_per_item
from kvplan.specs.params import (
    UnsupportedArchitecture,
    count_params,
    gated_delta_net_conv_dim,
    head_dim,
)
from kvplan.specs.params_remote import REMOTE_TYPES, remote_config
from kvplan.specs.schema import MLA, Attention, LayerKind, LinearState, ModelSpec
from kvplan.units import DType, parse_dtype

# Model types whose KV layout and parameter layout are written out in this module and params.py.
SUPPORTED = (
    "chatglm",
    "deepseek_v2",
    "deepseek_v3",
    "falcon",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "glm4_moe",
    "gpt_oss",
    "granite",
    "granitemoe",
    "granitemoehybrid",
    "internlm2",
    "kimi_k2",
    "kimi_k25",
    "llama",
    "llama4",
    "mistral",
    "mixtral",
    "opt",
    "phi",
    "phi3",
    "qwen2",
    "qwen2_5_vl",
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
    "qwen3_vl",
    "qwen3_vl_moe",
)

# Values transformers' config classes supply when a config.json leaves a key out (the class
# defaults, read in transformers' configuration_<model>.py). Only keys kvplan needs.
CLASS_DEFAULTS: dict[str, dict[str, Any]] = {
    # Gemma3TextConfig: the official gemma-3 text_config omits these
    "gemma3": {
        "vocab_size": 262208,
        "max_position_embeddings": 131072,
        "sliding_window_pattern": 6,
        "tie_word_embeddings": True,
    },
    "gemma3_text": {
        "vocab_size": 262208,
        "max_position_embeddings": 131072,
        "sliding_window_pattern": 6,
        "tie_word_embeddings": True,
    },
    "gemma2": {"tie_word_embeddings": True},
    # FalconConfig: max_position_embeddings 2048, multi_query true, embeddings tied
    "falcon": {"max_position_embeddings": 2048, "multi_query": True, "tie_word_embeddings": True},
}

# Keys that change the cache layout in ways kvplan does not model: refuse rather than guess
# (llama4 reads the first two itself, see layer_kinds).
REFUSED_KEYS = {
    "attention_chunk_size": "chunked local attention (Llama 4)",
    "no_rope_layers": "NoPE layer interleaving (Llama 4)",
    "kv_lora_rank_per_layer": "per-layer latent ranks",
    "cross_attention_layers": "cross-attention layers (Llama 3.2 Vision)",
}

LLAMA4_KEYS = ("attention_chunk_size", "no_rope_layers")
_FLOAT_DTYPES = {"F64", "F32", "F16", "BF16"}
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class Loaded:
    """A config read from somewhere, with what else the source offered."""

    config: dict[str, Any]
    origin: str  # the path or hub id, as given
    hf_id: str | None = None
    default_name: str = "imported-model"
    param_count: int | None = None  # counted from the checkpoint, when the source had one
    param_source: str | None = None
    notes: list[str] = field(default_factory=list)
    quant_file: dict[str, Any] | None = None  # ModelOpt's hf_quant_config.json, when beside it


# ---------------------------------------------------------------- reading sources


def _read_json(path: Path) -> dict[str, Any]:
    from kvplan.inputs import load_json  # size, encoding, duplicate keys, finite numbers

    data = load_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "imported-model"


def safetensors_param_count(files: list[Path]) -> tuple[int, set[str]] | None:
    """Sum of tensor sizes from the safetensors headers (8-byte length, then JSON), and dtypes."""
    total, dtypes = 0, set()
    for path in files:
        try:
            with path.open("rb") as fh:
                (length,) = struct.unpack("<Q", fh.read(8))
                if length > 100_000_000:
                    return None
                header = json.loads(fh.read(length))
        except (OSError, struct.error, json.JSONDecodeError, UnicodeDecodeError):
            return None
        for key, info in header.items():
            if key == "__metadata__":
                continue
            n = 1
            for dim in info["shape"]:
                n *= int(dim)
            total += n
            dtypes.add(str(info["dtype"]))
    return total, dtypes


def _folder_params(folder: Path, cfg: Mapping[str, Any]) -> tuple[int, str] | None:
    """An exact count from a snapshot's weights: headers first, then the index's total_size."""
    files = sorted(folder.glob("*.safetensors"))
    if files:
        counted = safetensors_param_count(files)
        if counted is not None:
            total, dtypes = counted
            if dtypes <= _FLOAT_DTYPES:
                return total, f"sum of tensor sizes in the {len(files)} safetensors file header(s)"
    index = folder / "model.safetensors.index.json"
    if index.is_file() and "quantization_config" not in cfg:
        size = (_read_json(index).get("metadata") or {}).get("total_size")
        dtype = cfg.get("torch_dtype") or cfg.get("dtype")
        if isinstance(size, int) and size > 0 and isinstance(dtype, str):
            width = {"float32": 4, "float16": 2, "bfloat16": 2}.get(dtype)
            if width and size % width == 0:
                return size // width, (
                    f"model.safetensors.index.json total_size {size:,} bytes / {width} "
                    f"({dtype}; assumes every tensor is stored in it)"
                )
    return None


def read_source(source: str) -> Loaded:
    """A config.json file, a snapshot folder holding one, or a hub id (needs network)."""
    path = Path(source).expanduser()
    if path.is_dir():
        cfg_path = path / "config.json"
        if not cfg_path.is_file():
            raise InputError(f"{source}: folder has no config.json")
        cfg = _read_json(cfg_path)
        folder = path.resolve()
        # a hub cache snapshot: models--org--name/snapshots/<commit>
        cached = folder.parent.parent.name if folder.parent.name == "snapshots" else ""
        label = cached.split("--")[-1] if cached.startswith("models--") else folder.name
        loaded = Loaded(cfg, source, default_name=_slug(label))
        if cached.startswith("models--") and cached.count("--") >= 2:
            loaded.hf_id = "/".join(cached.split("--")[1:3])
        found = _folder_params(path, cfg)
        if found is not None:
            loaded.param_count, loaded.param_source = found
        loaded.quant_file = _quant_file(path)
    elif path.is_file():
        cfg = _read_json(path)
        stem = path.stem if path.stem != "config" else path.resolve().parent.name
        loaded = Loaded(cfg, source, default_name=_slug(stem))
        if path.name == "config.json":  # a snapshot's own file: its quantization file beside it
            loaded.quant_file = _quant_file(path.parent)
    elif _HUB_ID.match(source) and not source.endswith((".json", ".yaml", ".yml")):
        loaded = _read_hub(source)
    else:
        raise InputError(
            f"{source}: no such file or folder, and not a hub id of the form org/name"
        )
    name_or_path = loaded.config.get("_name_or_path")
    if loaded.hf_id is None and isinstance(name_or_path, str) and _HUB_ID.match(name_or_path):
        loaded.hf_id = name_or_path
    return loaded


def _quant_file(folder: Path) -> dict[str, Any] | None:
    from kvplan.specs.hub import QUANT_FILE  # a name only: imports no huggingface_hub

    path = folder / QUANT_FILE
    return _read_json(path) if path.is_file() else None


def _read_hub(repo_id: str) -> Loaded:
    """config.json through the hub cache (kvplan.specs.hub), and the safetensors headers."""
    from kvplan.specs import hub

    cfg_file = hub.config_path(repo_id)
    import huggingface_hub  # present: config_path needs it

    loaded = Loaded(
        _read_json(Path(cfg_file)),
        repo_id,
        hf_id=repo_id,
        default_name=_slug(repo_id.split("/")[1]),
    )
    quant_path, quant_note = hub.quant_file_path(repo_id)
    if quant_path is not None:
        loaded.quant_file = _read_json(quant_path)
    if quant_note is not None:
        loaded.notes.append(quant_note)
    if hub.offline():
        loaded.notes.append("HF_HUB_OFFLINE: safetensors headers not read; parameters estimated")
        return loaded
    try:
        meta = huggingface_hub.get_safetensors_metadata(repo_id)
        counts = dict(meta.parameter_count)
        if counts and set(counts) <= _FLOAT_DTYPES:
            loaded.param_count = sum(counts.values())
            loaded.param_source = "sum of tensor sizes in the hub's safetensors headers"
    except Exception:  # noqa: BLE001 - no safetensors: the count is estimated instead
        loaded.notes.append("safetensors headers unavailable on the hub; parameters estimated")
    return loaded


# ---------------------------------------------------------------- interpreting configs


def text_config(cfg: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The language model's config (nested `text_config` merged over the top level), defaults
    filled in from the config class, and notes saying which defaults were used."""
    model_type = cfg.get("model_type")
    notes: list[str] = []
    inner = cfg.get("text_config")
    if isinstance(inner, Mapping):
        merged = {k: v for k, v in cfg.items() if k not in ("text_config", "vision_config")}
        merged.update(inner)
        merged["model_type"] = model_type
        notes.append("shapes read from the nested text_config")
    else:
        merged = dict(cfg)
    if model_type in REMOTE_TYPES:
        merged = remote_config(merged, str(model_type), notes)
    for key, value in CLASS_DEFAULTS.get(str(model_type), {}).items():
        if merged.get(key) is None:
            merged[key] = value
            notes.append(f"{key} absent from config.json: the config class default {value} applies")
    return merged, notes


def _kv_heads(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> int:
    heads = positive_int(cfg, "num_attention_heads")
    if model_type == "falcon":
        if cfg.get("new_decoder_architecture"):
            raise ImportRefused("Falcon new_decoder_architecture (40B/180B) is not handled")
        if cfg.get("multi_query"):
            if cfg.get("num_kv_heads") not in (None, 1):
                notes.append(
                    "multi_query true: one KV head, although num_kv_heads says "
                    f"{cfg['num_kv_heads']}"
                )
            return 1
        return heads
    kv = cfg.get("num_key_value_heads")
    if kv is None:
        notes.append("num_key_value_heads absent: multi-head attention (a KV head per query head)")
        return heads
    return positive_int(cfg, "num_key_value_heads")


def weight_dtype(cfg: Mapping[str, Any], notes: list[str]) -> DType:
    quant = cfg.get("quantization_config")
    if isinstance(quant, Mapping):
        method = str(quant.get("quant_method", "")).lower()
        if method == "fp8":
            notes.append("weights published in fp8 (quantization_config fp8)")
            return DType.fp8
        if method == "compressed-tensors":  # routed experts only: kvplan.specs.hf_quant
            return checkpoint_dtype(cfg)
        if method == "mxfp4":
            notes.append(
                "weights published in mxfp4 (quantization_config): charged as 4-bit; the bf16 "
                "attention, router and embeddings and the block scales are not counted, so "
                "weight memory is an underestimate (use --weight-dtype bf16 for an upper bound)"
            )
            return DType.int4
        raise ImportRefused(f"quantization_config quant_method {method!r} is not handled")
    dtype = cfg.get("torch_dtype") or cfg.get("dtype")
    if not isinstance(dtype, str):
        raise ImportRefused(
            "config.json has no torch_dtype and no quantization_config; "
            "pass --weight-dtype to say what the weights are stored in"
        )
    try:
        return parse_dtype(dtype)
    except (InputError, ValueError):
        raise ImportRefused(f"torch_dtype {dtype!r} is not a known dtype") from None


LINEAR_FORMULA = (
    "Gated DeltaNet state, as vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape: "
    "conv state (linear_conv_kernel_dim - 1) x conv_dim, conv_dim = 2 x linear_num_key_heads x "
    "linear_key_head_dim + linear_num_value_heads x linear_value_head_dim; plus recurrent state "
    "linear_num_value_heads x linear_key_head_dim x linear_value_head_dim"
)


def _attention(
    cfg: Mapping[str, Any], model_type: str, kinds: list[LayerKind], notes: list[str]
) -> Attention:
    hidden, heads = positive_int(cfg, "hidden_size"), positive_int(cfg, "num_attention_heads")
    pattern = compress_pattern(kinds)
    window = window_tokens(cfg, model_type) if LayerKind.sliding in kinds else None
    linear = None
    if LayerKind.linear in kinds and model_type == GRANITE_HYBRID:
        linear = mamba2_state(cfg)
    elif LayerKind.linear in kinds:
        conv_dim = gated_delta_net_conv_dim(cfg)
        elements = conv_dim * (positive_int(cfg, "linear_conv_kernel_dim") - 1) + positive_int(
            cfg, "linear_num_value_heads"
        ) * positive_int(cfg, "linear_key_head_dim") * positive_int(cfg, "linear_value_head_dim")
        linear = LinearState(state_elements_per_layer=elements, formula=LINEAR_FORMULA)
    if cfg.get("kv_lora_rank") is not None:
        rope, nope = positive_int(cfg, "qk_rope_head_dim"), positive_int(cfg, "qk_nope_head_dim")
        mla = MLA(
            kv_lora_rank=positive_int(cfg, "kv_lora_rank"),
            qk_rope_head_dim=rope,
            qk_nope_head_dim=nope,
            v_head_dim=positive_int(cfg, "v_head_dim"),
            q_lora_rank=cfg.get("q_lora_rank") or None,
        )
        notes.append(
            f"MLA: the cache holds one latent of kv_lora_rank {mla.kv_lora_rank} + "
            f"qk_rope_head_dim {rope} values per layer, whatever num_key_value_heads says"
        )
        return Attention(
            num_kv_heads=_kv_heads(cfg, model_type, notes),
            head_dim=nope + rope,
            v_head_dim=mla.v_head_dim,
            sliding_window_tokens=window,
            layer_pattern=pattern,
            mla=mla,
            linear=linear,
        )
    hd = head_dim(cfg)
    if cfg.get("head_dim") is not None and hd * heads != hidden:
        notes.append(
            f"head_dim {hd} is set explicitly (hidden_size / num_attention_heads would give "
            f"{hidden / heads:g})"
        )
    return Attention(
        num_kv_heads=_kv_heads(cfg, model_type, notes),
        head_dim=hd,
        sliding_window_tokens=window,
        layer_pattern=pattern,
        linear=linear,
    )


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
        raise ImportRefused("config.json has no model_type; is this a Hugging Face config?")
    if model_type not in SUPPORTED:
        raise ImportRefused(
            f"model_type {model_type!r} is not supported (kvplan knows: {', '.join(SUPPORTED)}); "
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
    attention = _attention(cfg, model_type, kinds, notes)
    moe = granite_moe(cfg, notes) if hybrid else moe_block(cfg, model_type, notes)
    dtype = weight if weight is not None else weight_dtype(cfg, notes)
    if weight is None:  # a stated --weight-dtype prices the whole model in it
        moe = with_expert_quant(cfg, moe, dtype, notes)
    counted = count_params(cfg, model_type, config)
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
    inter = cfg.get("intermediate_size")
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
        num_layers=positive_int(cfg, "num_hidden_layers"),
        hidden_size=positive_int(cfg, "hidden_size"),
        num_attention_heads=positive_int(cfg, "num_attention_heads"),
        intermediate_size=inter,
        vocab_size=positive_int(cfg, "vocab_size"),
        max_context_tokens=positive_int(cfg, "max_position_embeddings"),
        weight_dtype=dtype,
        attention=attention,
        moe=moe,
        notes="; ".join([*notes, *(extra_notes or [])]) or None,
    )


def import_model(
    source: str, name: str | None = None, hf_id: str | None = None, weight: DType | None = None
) -> ModelSpec:
    """Read SOURCE (config.json, snapshot folder or hub id) and build its spec."""
    loaded = read_source(source)
    spec_name = name or loaded.default_name
    try:
        with_modelopt_file(loaded.quant_file, weight, loaded.notes)
        return spec_from_config(
            loaded.config,
            name=spec_name,
            hf_id=hf_id or loaded.hf_id or f"local/{spec_name}",
            origin=loaded.origin,
            weight=weight,
            param_count=loaded.param_count,
            param_source=loaded.param_source,
            extra_notes=loaded.notes,
        )
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
