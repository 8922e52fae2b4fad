"""Quantization configs that quantize only the routed experts, read into `moe.expert_quant`.

One layout is read: compressed-tensors `pack-quantized` with a single config group of
symmetric int4 `group` weights on `Linear` targets, and an `ignore` list that keeps everything
but the routed experts in the checkpoint dtype (Kimi-K2.5's quantization_config: ignore
`lm_head`, `re:.*self_attn.*`, `re:.*shared_experts.*`, and the dense layers'
`re:.*mlp\\.(gate|up|gate_up|down)_proj.*`; a routed expert's projection is
`mlp.experts.N.gate_proj`, which none of them matches). The stored tensors are then
`weight_packed` (eight 4-bit values to an int32) and `weight_scale` (one per group, in the
checkpoint dtype); symmetric schemes store no zero point (vLLM compressed_tensors
CompressedTensorsWNA16 and its MoE method; SGLang's port). Any other compressed-tensors layout is refused with
one line rather than guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.errors import InputError
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.schema import ExpertQuant, MoE
from kvplan.units import DType, parse_dtype

# The ignore list that leaves exactly the routed experts quantized (a DeepSeek-V3-style stack).
ROUTED_ONLY_IGNORE = frozenset({
    "lm_head",
    "re:.*self_attn.*",
    "re:.*shared_experts.*",
    "re:.*mlp\\.(gate|up|gate_up|down)_proj.*",
})
# the weight-scheme keys and the values this layout requires (group_size is read)
_SCHEME = {"num_bits": 4, "type": "int", "strategy": "group", "symmetric": True,
           "dynamic": False, "actorder": None, "block_structure": None}


def _refuse(what: str) -> ImportRefused:
    return ImportRefused(f"compressed-tensors quantization_config: {what}; only int4 routed experts "
                        "(pack-quantized, symmetric groups, the rest ignored) are modelled")


def routed_expert_quant(quant: Mapping[str, Any], base: DType, notes: list[str]) -> ExpertQuant:
    """The expert storage a compressed-tensors config states, or ImportRefused."""
    if quant.get("format") != "pack-quantized":
        raise _refuse(f"format {quant.get('format')!r}")
    groups = quant.get("config_groups")
    if not isinstance(groups, Mapping) or len(groups) != 1:
        raise _refuse("config_groups must hold exactly one group")
    group = next(iter(groups.values()))
    if not isinstance(group, Mapping) or group.get("targets") != ["Linear"]:
        raise _refuse("the group's targets are not ['Linear']")
    if group.get("input_activations") is not None or group.get("output_activations") is not None:
        raise _refuse("activations are quantized too")
    weights = group.get("weights")
    if not isinstance(weights, Mapping):
        raise _refuse("the group has no weights scheme")
    for key, want in _SCHEME.items():
        if weights.get(key) != want:
            raise _refuse(f"weights.{key} is {weights.get(key)!r}, not {want!r}")
    size = weights.get("group_size")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise _refuse(f"weights.group_size {size!r} is not a positive integer")
    ignore = quant.get("ignore")
    if not isinstance(ignore, list) or frozenset(map(str, ignore)) != ROUTED_ONLY_IGNORE:
        raise _refuse(f"ignore {ignore!r} does not leave exactly the routed experts quantized")
    if quant.get("kv_cache_scheme") is not None:
        raise _refuse("kv_cache_scheme is set")
    notes.append(
        f"routed experts published in int4 (compressed-tensors pack-quantized, groups of {size}, "
        f"one {base.value} scale per group, symmetric: no zero points); attention, shared "
        f"experts, dense layers, embeddings and LM head in {base.value} (the ignore list)"
    )
    return ExpertQuant(weight_dtype=DType.int4, group_size=size, scale_dtype=base)


def with_expert_quant(cfg: Mapping[str, Any], moe: MoE | None, base: DType,
                      notes: list[str]) -> MoE | None:
    """`moe` with the experts' storage a compressed-tensors quantization_config states."""
    quant = cfg.get("quantization_config")
    if not isinstance(quant, Mapping) or quant.get("quant_method") != "compressed-tensors":
        return moe
    if moe is None:
        raise _refuse("set on a model without routed experts")
    return moe.model_copy(update={"expert_quant": routed_expert_quant(quant, base, notes)})


def with_compression_config(cfg: dict[str, Any], notes: list[str]) -> None:
    """Read `compression_config`, compressed-tensors' older key, as the quantization_config
    when the config has none, as vLLM's `get_quant_config` does
    (vllm/model_executor/model_loader/weight_utils.py): the scheme under it (flat, as public
    FP8 exports of 2024 print it, or nested under its own `quantization_config`, the older
    vLLM reading) is then priced or refused like any other, never ignored."""
    block = cfg.get("compression_config")
    if cfg.get("quantization_config") is not None or block is None:
        return
    flat = not isinstance(block, Mapping) or "quant_method" in block or (
        "quantization_config" not in block)
    scheme = block if flat else block["quantization_config"]
    if not isinstance(scheme, Mapping):
        raise ImportRefused(f"compression_config: the quantization scheme is "
                            f"{type(scheme).__name__}, not an object")
    cfg["quantization_config"] = scheme
    notes.append("quantization read from compression_config (compressed-tensors' older key)")


def with_modelopt_file(quant_file: Mapping[str, Any] | None, weight: DType | None,
                       notes: list[str]) -> None:
    """ModelOpt exports (nvidia/*-FP8) leave config.json's torch_dtype at the unquantized dtype,
    with no quantization_config, and state the quantization in hf_quant_config.json beside it,
    the file vLLM's and SGLang's ModelOpt configs read (`get_config_filenames`; `from_config`
    reads `quantization.quant_algo`). Refused unless --weight-dtype prices the whole model in
    one dtype; never priced as torch_dtype."""
    if quant_file is None:
        return
    quant = quant_file.get("quantization")
    quant = quant if isinstance(quant, Mapping) else {}
    producer = quant_file.get("producer")
    made_by = (f"{producer.get('name')} {producer.get('version')}"
               if isinstance(producer, Mapping) else "no producer named")
    excluded = quant.get("exclude_modules")
    what = (f"hf_quant_config.json ({made_by}; quant_algo {quant.get('quant_algo')!r}, "
            f"kv_cache_quant_algo {quant.get('kv_cache_quant_algo')!r}, "
            f"{len(excluded) if isinstance(excluded, list) else 0} module pattern(s) excluded)")
    if weight is None:
        raise ImportRefused(f"{what} quantizes the weights that config.json's torch_dtype "
                            "describes; kvplan does not price ModelOpt checkpoints exactly: pass "
                            "--weight-dtype to price the whole model in one dtype")
    notes.append(f"{what}: weights priced in the stated {weight.value}")


def checkpoint_dtype(cfg: Mapping[str, Any]) -> DType:
    """The dtype of the unquantized tensors (torch_dtype, or `dtype` in newer configs)."""
    value = cfg.get("torch_dtype") or cfg.get("dtype")
    if not isinstance(value, str):
        raise _refuse("no torch_dtype/dtype says what the unquantized tensors are")
    try:
        return parse_dtype(value)
    except (InputError, ValueError):
        raise _refuse(f"torch_dtype {value!r} is not a known dtype") from None
