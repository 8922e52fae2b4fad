"""Reading a Hugging Face config: the language model's keys (nested text_config, class
defaults), KV heads, the weights' dtype and the attention block a spec states.

Split from hf_import (which assembles the ModelSpec); every convention is written out here or in
hf_layers/hf_mamba/hf_quant, and anything else is refused (fail closed) rather than guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.errors import InputError
from kvplan.specs.config_paths import Located, block, field_path
from kvplan.specs.hf_layers import ImportRefused, compress_pattern, positive_int, window_tokens
from kvplan.specs.hf_mamba import MODEL_TYPE as GRANITE_HYBRID
from kvplan.specs.hf_mamba import mamba2_state
from kvplan.specs.hf_nvfp4 import check_algo
from kvplan.specs.hf_quant import (
    LINEAR_METHODS,
    checkpoint_dtype,
    dtype_key,
    linear_base_dtype,
    quant_method,
)
from kvplan.specs.params import gated_delta_net_conv_dim, head_dim
from kvplan.specs.params_base import _flag, _int_or
from kvplan.specs.params_remote import REMOTE_TYPES, remote_config
from kvplan.specs.schema import MLA, Attention, LayerKind, LinearState
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
    "mistral3",
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

# Composite configs whose language model is only the nested text_config, with the model types
# transformers builds it as. Mistral3Config (transformers models/mistral3/
# configuration_mistral3.py, sub_configs_defaults): text_config is an AutoConfig of model_type
# "mistral" where the dict names none; other text types under "mistral3" (ministral3, mistral4)
# are other architectures, refused.
NESTED_TEXT = {"mistral3": ("mistral",)}


def _nested_text_type(cfg: Mapping[str, Any], model_type: object, inner: Located | None) -> None:
    allowed = NESTED_TEXT.get(str(model_type))
    if allowed is None:
        return
    if inner is None:
        raise ImportRefused(
            f"model_type {model_type!r} without a text_config: transformers would build its "
            "default language model; kvplan reads only the text_config a config.json states")
    kind = inner.get("model_type", allowed[0])
    if kind not in allowed:
        raise ImportRefused(
            f"{field_path(inner, 'model_type')} {kind!r} under model_type {model_type!r} is not "
            f"handled (kvplan reads a {' or '.join(allowed)} text_config there)")


def text_config(cfg: Mapping[str, Any]) -> tuple[Located, list[str]]:
    """The language model's config (nested `text_config` merged over the top level), defaults
    filled in from the config class, and notes saying which defaults were used; each key knows
    its dotted path in config.json (kvplan.specs.config_paths)."""
    model_type = cfg.get("model_type")
    notes: list[str] = []
    inner = block(cfg, "text_config")  # a text_config of another type is named
    _nested_text_type(cfg, model_type, inner)
    if inner is not None:
        merged = Located({k: v for k, v in cfg.items() if k not in ("text_config",
                                                                   "vision_config")},
                         paths={k: f"text_config.{k}" for k in inner if k != "model_type"})
        merged.update(inner)
        merged["model_type"] = model_type
        notes.append("shapes read from the nested text_config")
    else:
        merged = Located(cfg)
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
        if _flag(cfg, "new_decoder_architecture", False):
            raise ImportRefused("Falcon new_decoder_architecture (40B/180B) is not handled")
        if _flag(cfg, "multi_query", False):
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
    quant = block(cfg, "quantization_config")
    if quant is not None:
        method = quant_method(quant)
        if method == "fp8":
            notes.append("weights published in fp8 (quantization_config fp8)")
            return DType.fp8
        if method in ("compressed-tensors", "fbgemm_fp8"):  # routed int4 experts
            return checkpoint_dtype(cfg)  # (hf_quant) or dense 8-bit linear layers (hf_quant8)
        if method == "modelopt":  # NVFP4: kvplan.specs.hf_nvfp4 reads which layers
            check_algo(quant)
            return checkpoint_dtype(cfg)
        if method in LINEAR_METHODS:  # the linear layers: kvplan.specs.hf_quant.linear_quant
            return linear_base_dtype(cfg, notes)
        if method == "mxfp4":
            notes.append(
                "weights published in mxfp4 (quantization_config): charged as 4-bit; the bf16 "
                "attention, router and embeddings and the block scales are not counted, so "
                "weight memory is an underestimate (use --weight-dtype bf16 for an upper bound)"
            )
            return DType.int4
        raise ImportRefused(f"{field_path(quant, 'quant_method')} {method!r} is not handled")
    key = dtype_key(cfg)
    if key is None:
        raise ImportRefused(
            "config.json has no torch_dtype and no quantization_config; "
            "pass --weight-dtype to say what the weights are stored in"
        )
    try:
        return parse_dtype(cfg[key])
    except (InputError, ValueError):
        raise ImportRefused(f"{field_path(cfg, key)} {cfg[key]!r} is not a known dtype") from None


LINEAR_FORMULA = (
    "Gated DeltaNet state, as vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape: "
    "conv state (linear_conv_kernel_dim - 1) x conv_dim, conv_dim = 2 x linear_num_key_heads x "
    "linear_key_head_dim + linear_num_value_heads x linear_value_head_dim; plus recurrent state "
    "linear_num_value_heads x linear_key_head_dim x linear_value_head_dim"
)


def attention_block(
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
            q_lora_rank=_int_or(cfg, "q_lora_rank", 0, least=0) or None,
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
