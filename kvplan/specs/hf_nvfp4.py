"""ModelOpt NVFP4 checkpoints read into a spec's `nvfp4` (kvplan.capacity.nvfp4 prices them).

Two places state the scheme, and vLLM's ModelOptNvFp4Config.from_config reads both
(vllm-project/vllm vllm/model_executor/layers/quantization/modelopt.py@c9a5990): config.json's
`quantization_config` with quant_method "modelopt" (nvidia/Kimi-K2.5-NVFP4: quant_algo NVFP4,
config_groups weights num_bits 4, type float, group_size 16, and an `ignore` list), or
hf_quant_config.json's `quantization` (quant_algo NVFP4, group_size 16, `exclude_modules`;
nvidia/DeepSeek-V3-0324-NVFP4, ModelOpt 0.27). The patterns are shell wildcards on the
checkpoint's module names (`language_model.model.layers.0.self_attn*`, `lm_head`).

Which groups are quantized is decided by naming every linear module of each group as the
checkpoint does (DeepSeek/Kimi and Llama-style names; Kimi-K2.5 under `language_model.`) and
matching them all: a group whose modules all match stays unquantized, one none match is NVFP4,
one split between the two is refused (per-layer exclusions are not modelled). Only a vision
tower kvplan can name (Kimi-K2.5's `vision_tower` and `mm_projector`) may sit beside the text
stack, and only excluded.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping
from typing import Any

from kvplan.specs.config_paths import block, field_path
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.hf_quant import name_field, quant_method
from kvplan.specs.schema import MoE, NVFP4Quant

GROUP_SIZE = 16  # the NVFP4 format's block (ModelOpt NVFP4 config)
_PREFIX = {"kimi_k25": "language_model."}  # text stack under the multimodal wrapper
_TOWER = {"kimi_k25": ("vision_tower", "mm_projector")}  # module roots (modeling_kimi_k25.py)
_MLA_TYPES = ("deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25")


def _refuse(what: str) -> ImportRefused:
    return ImportRefused(f"ModelOpt NVFP4 checkpoint: {what}; kvplan prices NVFP4 where whole "
                         "groups of linear layers (attention, dense MLP, shared experts, routed "
                         "experts, LM head) are quantized or excluded")


def scheme(cfg: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """config.json's quantization_config when it is ModelOpt NVFP4, else None."""
    quant = block(cfg, "quantization_config")
    if quant is None or quant_method(quant) != "modelopt":
        return None
    return quant


def check_algo(quant: Mapping[str, Any]) -> None:
    """Refuse a ModelOpt quantization_config whose quant_algo is not NVFP4, naming the field."""
    algo = name_field(quant, "quant_algo")
    if algo.upper() != "NVFP4":
        raise ImportRefused(f"ModelOpt {field_path(quant, 'quant_algo')} {algo!r} is not handled "
                            "(NVFP4 is); pass --weight-dtype to price the whole model in one "
                            "dtype")


def from_quant_file(quant_file: Mapping[str, Any]) -> dict[str, Any] | None:
    """hf_quant_config.json's NVFP4 block as a config.json quantization_config, or None when it
    states another algorithm (FP8 stays refused unless --weight-dtype prices it)."""
    quant = quant_file.get("quantization")
    if not isinstance(quant, Mapping) or str(quant.get("quant_algo", "")).upper() != "NVFP4":
        return None
    return {"quant_method": "modelopt", "quant_algo": "NVFP4",
            "group_size": quant.get("group_size"), "ignore": quant.get("exclude_modules") or []}


def _group_size(quant: Mapping[str, Any]) -> object:
    groups = quant.get("config_groups")
    if isinstance(groups, Mapping) and groups:
        sizes = set()
        for group in groups.values():
            weights = group.get("weights") if isinstance(group, Mapping) else None
            if not isinstance(weights, Mapping) or weights.get("num_bits") != 4 or (
                    weights.get("type") != "float"):
                raise _refuse(f"{field_path(quant, 'config_groups')}: a group's weights are not "
                              "4-bit float")
            sizes.add(weights.get("group_size"))
        return sizes.pop() if len(sizes) == 1 else sizes
    return quant.get("group_size")


def _names(cfg: Mapping[str, Any], model_type: str, moe: MoE | None,
           ) -> Iterator[tuple[str, str]]:
    """(group, module name) of every linear module the text stack has."""
    pre = _PREFIX.get(model_type, "")
    layers = int(cfg["num_hidden_layers"])
    dense = moe.first_dense_layers if moe is not None else layers
    mla = model_type in _MLA_TYPES
    q = ("q_a_proj", "q_b_proj") if cfg.get("q_lora_rank") else ("q_proj",)
    attn = (*q, "kv_a_proj_with_mqa", "kv_b_proj", "o_proj") if mla else (
        "q_proj", "k_proj", "v_proj", "o_proj")
    mlp = ("gate_proj", "up_proj", "down_proj")
    yield "lm_head", f"{pre}lm_head"
    for i in range(layers):
        layer = f"{pre}model.layers.{i}"
        for proj in attn:
            yield "attention", f"{layer}.self_attn.{proj}"
        if i < dense:
            for proj in mlp:
                yield "dense_mlp", f"{layer}.mlp.{proj}"
            continue
        assert moe is not None
        if moe.num_shared_experts:
            for proj in mlp:
                yield "shared_experts", f"{layer}.mlp.shared_experts.{proj}"
        for e in range(moe.num_experts):
            for proj in mlp:
                yield "routed_experts", f"{layer}.mlp.experts.{e}.{proj}"


def nvfp4_quant(cfg: Mapping[str, Any], model_type: str, moe: MoE | None, has_tower: bool,
                notes: list[str]) -> NVFP4Quant | None:
    """The NVFP4Quant a ModelOpt quantization_config states, None for another scheme."""
    quant = scheme(cfg)
    if quant is None:
        return None
    check_algo(quant)
    size = _group_size(quant)
    if size != GROUP_SIZE:
        where = (f"{field_path(quant, 'config_groups')}: group_size" if quant.get("config_groups")
                 else field_path(quant, "group_size"))
        raise _refuse(f"{where} {size!r}, not the format's {GROUP_SIZE}")
    if moe is not None and moe.num_shared_experts and model_type not in _MLA_TYPES:
        raise _refuse(f"the shared experts of model_type {model_type!r} are not named here")
    key = "ignore" if "ignore" in quant else "exclude_modules"
    patterns = quant.get(key)
    patterns = [] if patterns is None else patterns
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise _refuse(f"{field_path(quant, key)} {patterns!r} is not a list of names")
    if any(p.startswith("re:") for p in patterns):
        raise _refuse("a regular-expression ignore entry (compressed-tensors' 're:') in a "
                      "ModelOpt config")
    excluded = re.compile("|".join(fnmatch.translate(p) for p in patterns) or "(?!)")
    hits: dict[str, set[bool]] = {}
    for name, module in _names(cfg, model_type, moe):
        hits.setdefault(name, set()).add(bool(excluded.match(module)))
    partial = sorted(name for name, seen in hits.items() if len(seen) == 2)
    if partial:
        raise _refuse(f"the exclusions leave part of {', '.join(partial)} quantized")
    if has_tower:
        tower = _TOWER.get(model_type)
        if tower is None or not all(excluded.match(m) for m in tower):
            raise _refuse("the vision tower is not excluded by name, or its modules are not "
                          f"named for model_type {model_type!r}")
    quantized = [name for name in ("attention", "dense_mlp", "shared_experts", "routed_experts",
                                   "lm_head") if hits.get(name) == {False}]
    if not quantized:
        raise _refuse("every linear layer is excluded")
    notes.append(f"ModelOpt NVFP4 (quant_algo NVFP4, groups of {GROUP_SIZE}): "
                 f"{', '.join(quantized)} quantized, the rest as the checkpoint dtype "
                 f"({len(patterns)} ignore pattern(s))")
    return NVFP4Quant(group_size=GROUP_SIZE, quantized=quantized,
                      source=f"quantization_config ignore / exclude_modules: {len(patterns)} "
                      "pattern(s), matched against every linear module's name")
