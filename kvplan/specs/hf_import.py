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
from kvplan.specs.params import (
    UnsupportedArchitecture,
    count_params,
    gated_delta_net_conv_dim,
    head_dim,
)
from kvplan.specs.schema import MLA, Attention, LayerKind, LinearState, ModelSpec, MoE
from kvplan.units import DType, parse_dtype

# Model types whose KV layout and parameter layout are written out in this module and params.py.
SUPPORTED = (
    "deepseek_v2",
    "deepseek_v3",
    "falcon",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "gpt_oss",
    "kimi_k2",
    "llama",
    "mistral",
    "mixtral",
    "phi3",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
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

# Keys that change the cache layout in ways kvplan does not model: refuse rather than guess.
REFUSED_KEYS = {
    "attention_chunk_size": "chunked local attention (Llama 4)",
    "no_rope_layers": "NoPE layer interleaving (Llama 4)",
    "kv_lora_rank_per_layer": "per-layer latent ranks",
    "cross_attention_layers": "cross-attention layers (Llama 3.2 Vision)",
}

_LAYER_TYPES = {
    "full_attention": LayerKind.full,
    "sliding_attention": LayerKind.sliding,
    "linear_attention": LayerKind.linear,
}

_FLOAT_DTYPES = {"F64", "F32", "F16", "BF16"}
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class ImportRefused(UnsupportedArchitecture):
    """A config kvplan cannot account for exactly."""


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
    elif path.is_file():
        cfg = _read_json(path)
        stem = path.stem if path.stem != "config" else path.resolve().parent.name
        loaded = Loaded(cfg, source, default_name=_slug(stem))
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


def _read_hub(repo_id: str) -> Loaded:
    """Download config.json (and read the safetensors headers) with huggingface_hub."""
    try:
        import huggingface_hub  # heavy and optional: only hub ids need it
    except ImportError:
        raise InputError(
            f"{repo_id}: reading a hub id needs huggingface_hub; install it with "
            "pip install 'kvplan[hub]', or download config.json and pass its path"
        ) from None
    try:
        cfg_file = huggingface_hub.hf_hub_download(repo_id, "config.json")
    except Exception as err:  # noqa: BLE001 - offline, gated, missing: all one message
        kind = type(err).__name__
        raise InputError(
            f"{repo_id}: cannot download config.json from the Hugging Face hub ({kind}: "
            f"{str(err).splitlines()[0] if str(err) else 'no detail'}). Without network access, "
            "download the file elsewhere and pass its path"
        ) from None
    loaded = Loaded(
        _read_json(Path(cfg_file)),
        repo_id,
        hf_id=repo_id,
        default_name=_slug(repo_id.split("/")[1]),
    )
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
    for key, value in CLASS_DEFAULTS.get(str(model_type), {}).items():
        if merged.get(key) is None:
            merged[key] = value
            notes.append(f"{key} absent from config.json: the config class default {value} applies")
    return merged, notes


def _req(cfg: Mapping[str, Any], key: str) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        shown = "missing" if value is None else f"{value!r}"
        raise ImportRefused(f"config field {key!r} is {shown}; a positive whole number is needed")
    from kvplan.inputs import limits as lim  # the bounds ModelSpec enforces, docs/limits.md

    cap = {"num_hidden_layers": lim.MAX_LAYERS, "num_attention_heads": lim.MAX_HEADS,
           "num_key_value_heads": lim.MAX_HEADS, "head_dim": lim.MAX_HEAD_DIM,
           "vocab_size": lim.MAX_VOCAB}.get(key, lim.MAX_CONTEXT_TOKENS)
    if value > cap:
        raise ImportRefused(f"config field {key!r} is {value:,}, above kvplan's limit of {cap:,} "
                            "(docs/limits.md); is the config right?")
    return value


def _kv_heads(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> int:
    heads = _req(cfg, "num_attention_heads")
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
    return _req(cfg, "num_key_value_heads")


def compress_pattern(kinds: list[LayerKind]) -> list[LayerKind]:
    """The shortest prefix that, repeated cyclically, gives every layer's kind."""
    n = len(kinds)
    for period in range(1, n + 1):
        if all(kinds[i] == kinds[i % period] for i in range(n)):
            return kinds[:period]
    return kinds  # pragma: no cover - period n always matches


def _window(cfg: Mapping[str, Any]) -> int:
    window = cfg.get("sliding_window")
    if window is None:
        window = cfg.get("sliding_window_size")
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ImportRefused(f"sliding layers need a positive sliding_window, got {window!r}")
    return window


def _describe(kinds: list[LayerKind], notes: list[str], rule: str) -> None:
    """A note saying how many layers of each kind a rule gives."""
    counts = {k: kinds.count(k) for k in LayerKind if kinds.count(k)}
    if len(counts) > 1:
        parts = ", ".join(f"{n} {k.value}" for k, n in counts.items())
        notes.append(f"{rule}: {parts} of {len(kinds)} layers")


def layer_kinds(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> list[LayerKind]:
    """Every layer's kind, by the model type's own convention."""
    layers = _req(cfg, "num_hidden_layers")
    types = cfg.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != layers:
            raise ImportRefused(
                f"layer_types must list one entry per layer ({layers}), got "
                f"{len(types) if isinstance(types, list) else type(types).__name__}"
            )
        unknown = sorted({t for t in types if t not in _LAYER_TYPES})
        if unknown:
            raise ImportRefused(f"layer_types has kinds kvplan cannot size: {', '.join(unknown)}")
        kinds = [_LAYER_TYPES[t] for t in types]
        _describe(kinds, notes, "layer_types")
        return kinds
    window = cfg.get("sliding_window")
    if model_type in ("qwen2", "qwen3", "qwen3_moe", "qwen3_next"):
        if model_type == "qwen3_next":
            interval = _req(cfg, "full_attention_interval")
            kinds = [
                LayerKind.full if (i + 1) % interval == 0 else LayerKind.linear
                for i in range(layers)
            ]
            _describe(kinds, notes, f"full_attention_interval {interval}")
            return kinds
        if not cfg.get("use_sliding_window", False):
            if window is not None:
                notes.append(
                    f"sliding_window {window} is switched off by use_sliding_window false: "
                    "every layer is full attention"
                )
            return [LayerKind.full] * layers
        first = cfg.get("max_window_layers", layers)
        return [LayerKind.sliding if i >= first else LayerKind.full for i in range(layers)]
    if model_type in ("mistral", "mixtral", "phi3"):
        if window is None:
            return [LayerKind.full] * layers
        notes.append(f"sliding_window {window} applies to every layer")
        return [LayerKind.sliding] * layers
    if model_type == "gemma2":
        # Gemma2: even layers (0, 2, ...) are local sliding-window layers, odd layers global
        kinds = [LayerKind.sliding if (i + 1) % 2 else LayerKind.full for i in range(layers)]
        _describe(kinds, notes, "Gemma 2 alternation")
        return kinds
    if model_type in ("gemma3", "gemma3_text"):
        every = _req(cfg, "sliding_window_pattern")
        kinds = [LayerKind.sliding if (i + 1) % every else LayerKind.full for i in range(layers)]
        _describe(kinds, notes, f"sliding_window_pattern {every}")
        return kinds
    if window is not None:
        raise ImportRefused(
            f"sliding_window {window} is set, but kvplan does not know which layers of a "
            f"{model_type} model use it"
        )
    return [LayerKind.full] * layers


def weight_dtype(cfg: Mapping[str, Any], notes: list[str]) -> DType:
    quant = cfg.get("quantization_config")
    if isinstance(quant, Mapping):
        method = str(quant.get("quant_method", "")).lower()
        if method == "fp8":
            notes.append("weights published in fp8 (quantization_config fp8)")
            return DType.fp8
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


def _moe(cfg: Mapping[str, Any], model_type: str) -> MoE | None:
    if model_type in ("mixtral", "gpt_oss"):
        return MoE(
            num_experts=_req(cfg, "num_local_experts"),
            experts_per_token=_req(cfg, "num_experts_per_tok"),
            moe_intermediate_size=_req(cfg, "intermediate_size"),
        )
    if model_type in ("qwen3_moe", "qwen3_next"):
        dense = sorted(set(cfg.get("mlp_only_layers") or []))
        if dense != list(range(len(dense))) or (cfg.get("decoder_sparse_step") or 1) != 1:
            raise ImportRefused("mlp_only_layers / decoder_sparse_step other than leading layers")
        shared = cfg.get("shared_expert_intermediate_size") or 0
        return MoE(
            num_experts=_req(cfg, "num_experts"),
            experts_per_token=_req(cfg, "num_experts_per_tok"),
            moe_intermediate_size=_req(cfg, "moe_intermediate_size"),
            num_shared_experts=1 if shared else 0,
            first_dense_layers=len(dense),
        )
    if model_type in ("deepseek_v2", "deepseek_v3", "kimi_k2"):
        if (cfg.get("moe_layer_freq") or 1) != 1:
            raise ImportRefused("moe_layer_freq other than 1 is not handled")
        return MoE(
            num_experts=_req(cfg, "n_routed_experts"),
            experts_per_token=_req(cfg, "num_experts_per_tok"),
            moe_intermediate_size=_req(cfg, "moe_intermediate_size"),
            num_shared_experts=cfg.get("n_shared_experts") or 0,
            first_dense_layers=cfg.get("first_k_dense_replace") or 0,
        )
    return None


LINEAR_FORMULA = (
    "Gated DeltaNet state, as vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape: "
    "conv state (linear_conv_kernel_dim - 1) x conv_dim, conv_dim = 2 x linear_num_key_heads x "
    "linear_key_head_dim + linear_num_value_heads x linear_value_head_dim; plus recurrent state "
    "linear_num_value_heads x linear_key_head_dim x linear_value_head_dim"
)


def _attention(
    cfg: Mapping[str, Any], model_type: str, kinds: list[LayerKind], notes: list[str]
) -> Attention:
    hidden, heads = _req(cfg, "hidden_size"), _req(cfg, "num_attention_heads")
    pattern = compress_pattern(kinds)
    window = _window(cfg) if LayerKind.sliding in kinds else None
    linear = None
    if LayerKind.linear in kinds:
        conv_dim = gated_delta_net_conv_dim(cfg)
        elements = conv_dim * (_req(cfg, "linear_conv_kernel_dim") - 1) + _req(
            cfg, "linear_num_value_heads"
        ) * _req(cfg, "linear_key_head_dim") * _req(cfg, "linear_value_head_dim")
        linear = LinearState(state_elements_per_layer=elements, formula=LINEAR_FORMULA)
    if cfg.get("kv_lora_rank") is not None:
        rope, nope = _req(cfg, "qk_rope_head_dim"), _req(cfg, "qk_nope_head_dim")
        mla = MLA(
            kv_lora_rank=_req(cfg, "kv_lora_rank"),
            qk_rope_head_dim=rope,
            qk_nope_head_dim=nope,
            v_head_dim=_req(cfg, "v_head_dim"),
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
    for key, what in REFUSED_KEYS.items():
        if cfg.get(key) not in (None, [], 0):
            raise ImportRefused(f"{key} is set: {what} is not modelled")
    kinds = layer_kinds(cfg, model_type, notes)
    attention = _attention(cfg, model_type, kinds, notes)
    dtype = weight if weight is not None else weight_dtype(cfg, notes)
    counted = count_params(cfg, model_type, config)
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
        inter = cfg.get("ffn_hidden_size") or 4 * _req(cfg, "hidden_size")
        notes.append(f"intermediate_size absent: Falcon's MLP is 4 x hidden_size = {inter}")
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
        num_layers=_req(cfg, "num_hidden_layers"),
        hidden_size=_req(cfg, "hidden_size"),
        num_attention_heads=_req(cfg, "num_attention_heads"),
        intermediate_size=inter,
        vocab_size=_req(cfg, "vocab_size"),
        max_context_tokens=_req(cfg, "max_position_embeddings"),
        weight_dtype=dtype,
        attention=attention,
        moe=_moe(cfg, model_type),
        notes="; ".join([*notes, *(extra_notes or [])]) or None,
    )


def import_model(
    source: str, name: str | None = None, hf_id: str | None = None, weight: DType | None = None
) -> ModelSpec:
    """Read SOURCE (config.json, snapshot folder or hub id) and build its spec."""
    loaded = read_source(source)
    spec_name = name or loaded.default_name
    try:
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
