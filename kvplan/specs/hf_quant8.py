"""Dense 8-bit checkpoints read into `weight_quant` (task h59fp8): compressed-tensors W8A8 (FP8
`float-quantized`, INT8 `int-quantized`) and fbgemm_fp8.

Read as vLLM 0.29.0 reads them: CompressedTensorsConfig picks CompressedTensorsW8A8Fp8 /
CompressedTensorsW8A8Int8 for 8-bit symmetric channel or tensor weights with 8-bit activations
(compressed_tensors/compressed_tensors.py, schemes/compressed_tensors_w8a8_fp8.py and
_w8a8_int8.py); FBGEMMFp8Config.from_config reads `modules_to_not_convert` and
`activation_scale_ub` and quantizes every LinearBase it does not skip (fbgemm_fp8.py,
is_layer_skipped in utils/quant_utils.py, exact names). What they store is priced by
kvplan.capacity.linear_quant; every other layout is refused with the field that says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import block, field_path
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.hf_quant import LINEAR_QUANT_TYPES, quant_method
from kvplan.specs.schema import WeightQuant
from kvplan.units import DType

METHODS = ("compressed-tensors", "fbgemm_fp8")
# format -> the weights' type and the dtype stored (compressed-tensors CompressionFormat)
_FORMATS = {"float-quantized": ("float", DType.fp8), "int-quantized": ("int", DType.int8)}
# weight-scheme keys whose value must be as written (absent keys read as these defaults)
_WEIGHTS = {"num_bits": 8, "symmetric": True, "dynamic": False, "group_size": None,
            "block_structure": None, "actorder": None}
_DECODER_LAYER = re.compile(r"^model\.layers\.\d+\.")
_NOT_CHARGED = ("not charged (kernel rework after loading, vLLM 0.29.0): ")


def _refuse(what: str) -> ImportRefused:
    return ImportRefused(f"{what}; kvplan prices dense 8-bit checkpoints whose every decoder "
                         "linear layer is quantized (one config group of channel or tensor "
                         "8-bit weights on Linear targets, lm_head ignored)")


def dense_8bit(cfg: Mapping[str, Any], model_type: str, tied: bool,
               notes: list[str]) -> WeightQuant | None:
    """The WeightQuant of a compressed-tensors W8A8 or fbgemm_fp8 quantization_config, None for
    any other method; ImportRefused for a layout kvplan does not price."""
    quant = block(cfg, "quantization_config")
    if quant is None or quant_method(quant) not in METHODS:
        return None
    method = quant_method(quant)
    if model_type not in LINEAR_QUANT_TYPES:
        raise _refuse(f"{field_path(quant, 'quant_method')} {method!r} on model_type "
                      f"{model_type!r}: kvplan lays out only attention + gated MLP decoders "
                      f"({', '.join(LINEAR_QUANT_TYPES)})")
    if method == "fbgemm_fp8":
        return _fbgemm(quant, notes)
    return _compressed(quant, tied, notes)


def _fbgemm(quant: Mapping[str, Any], notes: list[str]) -> WeightQuant:
    skipped = quant.get("modules_to_not_convert")
    skipped = [] if skipped is None else skipped
    where = field_path(quant, "modules_to_not_convert")
    if not isinstance(skipped, list) or not all(isinstance(m, str) for m in skipped):
        raise _refuse(f"{where} {skipped!r} is not a list of module names")
    hit = next((m for m in skipped if _DECODER_LAYER.match(m)), None)
    if hit is not None:
        raise _refuse(f"{where} {hit!r} leaves a decoder linear layer unquantized")
    ub = quant.get("activation_scale_ub")
    if not isinstance(ub, (int, float)) or isinstance(ub, bool):
        raise _refuse(f"{field_path(quant, 'activation_scale_ub')} {ub!r} is not a number "
                      "(FBGEMMFp8Config.from_config requires it)")
    notes.append(
        "every decoder linear layer published in fbgemm_fp8 (fp8 weights, a byte each, one fp32 "
        "weight_scale per output row, one fp32 input_scale_ub a layer, as vLLM 0.29.0's "
        "fbgemm_fp8.py create_weights registers them); embeddings, LM head and norms "
        f"unquantized ({len(skipped)} module(s) in modules_to_not_convert, none a decoder "
        "linear layer)")
    return WeightQuant(method="fbgemm_fp8", weight_dtype=DType.fp8, scale_dtype=DType.fp32,
                       strategy="channel")


def _compressed(quant: Mapping[str, Any], tied: bool, notes: list[str]) -> WeightQuant:
    fmt = quant.get("format")
    if fmt not in _FORMATS:
        raise _refuse(f"{field_path(quant, 'format')} {fmt!r} is not float-quantized or "
                      "int-quantized")
    kind, dtype = _FORMATS[fmt]
    groups = quant.get("config_groups")
    if not isinstance(groups, Mapping) or len(groups) != 1:
        raise _refuse(f"{field_path(quant, 'config_groups')} must hold exactly one group "
                      "(mixed groups are not modelled)")
    name = next(iter(groups))
    where = f"{field_path(quant, 'config_groups')}.{name}"
    group = groups[name]
    if not isinstance(group, Mapping) or group.get("targets") != ["Linear"]:
        raise _refuse(f"{where}.targets are not ['Linear']")
    if group.get("format", fmt) != fmt:
        raise _refuse(f"{where}.format {group.get('format')!r} differs from {fmt!r}")
    weights = group.get("weights")
    if not isinstance(weights, Mapping):
        raise _refuse(f"{where} has no weights scheme")
    for key, want in {**_WEIGHTS, "type": kind}.items():
        if weights.get(key) != want:
            raise _refuse(f"{where}.weights.{key} is {weights.get(key)!r}, not {want!r}")
    strategy = weights.get("strategy")
    if strategy not in ("channel", "tensor"):
        raise _refuse(f"{where}.weights.strategy {strategy!r} is not channel or tensor")
    if group.get("output_activations") is not None:
        raise _refuse(f"{where}.output_activations are quantized")
    scale = _input_scale(group.get("input_activations"), kind, f"{where}.input_activations")
    _ignore_checks(quant, tied)
    for key in ("kv_cache_scheme", "sparsity_config", "transform_config"):
        if quant.get(key) is not None:
            raise _refuse(f"{field_path(quant, key)} is set")
    per = "output row" if strategy == "channel" else "fused shard"
    inputs = {"none": "dynamic per-token activations: no input scale stored",
              "static": "static activations: fp32 input_scale "
                        + ("per fused shard" if dtype is DType.fp8 else "a layer"),
              "static_zero_point": "static asymmetric activations: an fp32 input_scale and an "
                                   "int8 input_zero_point a layer"}[scale]
    after = ["per-tensor fp8 scales requantized to one per layer (a few bytes fewer)"
             if dtype is DType.fp8 and strategy == "tensor" else "",
             "CUTLASS widens the fused layers' per-tensor int8 scales to one fp32 per output row"
             if dtype is DType.int8 and strategy == "tensor" else "",
             "CUTLASS adds an int32 azp_adj per output column"
             if scale == "static_zero_point" else ""]
    after_note = "; ".join(a for a in after if a)
    notes.append(
        f"every decoder linear layer published in compressed-tensors {fmt} {dtype.value} "
        f"(one fp32 weight_scale per {per}; {inputs}), priced as vLLM "
        f"0.29.0's compressed_tensors_w8a8_{'fp8' if dtype is DType.fp8 else 'int8'}.py "
        "create_weights registers them: a byte a weight; embeddings, LM head and norms "
        "unquantized (ignore: lm_head)" + (f"; {_NOT_CHARGED}{after_note}" if after_note else ""))
    return WeightQuant(method="compressed-tensors", weight_dtype=dtype, scale_dtype=DType.fp32,
                       strategy=strategy, input_scale=scale)


def _input_scale(acts: Any, kind: str, where: str) -> str:
    """The static input scales the activation scheme stores: none (dynamic per token), static
    or static_zero_point."""
    if acts is None:
        raise _refuse(f"{where} is null (weight-only 8-bit, vLLM's W8A16 schemes, is not "
                      "modelled)")
    if not isinstance(acts, Mapping) or acts.get("num_bits") != 8 or acts.get("type") != kind:
        raise _refuse(f"{where} are not 8-bit {kind} activations")
    dynamic, strategy, symmetric = (acts.get("dynamic"), acts.get("strategy"),
                                    acts.get("symmetric"))
    if dynamic is True and strategy == "token" and symmetric is True:
        return "none"
    if dynamic is False and strategy == "tensor":
        if symmetric is True:
            return "static"
        if symmetric is False and kind == "int":
            return "static_zero_point"
    raise _refuse(f"{where}: dynamic {dynamic!r}, strategy {strategy!r}, symmetric "
                  f"{symmetric!r} is not dynamic per-token or static per-tensor")


def _ignore_checks(quant: Mapping[str, Any], tied: bool) -> None:
    """`ignore` must leave exactly the LM head unquantized (any name or 're:' pattern that could
    hit another module is refused rather than resolved)."""
    ignore = quant.get("ignore")
    ignore = [] if ignore is None else ignore
    where = field_path(quant, "ignore")
    if not isinstance(ignore, list) or not all(isinstance(i, str) for i in ignore):
        raise _refuse(f"{where} {ignore!r} is not a list of module names")
    other = next((i for i in ignore if i != "lm_head"), None)
    if other is not None:
        raise _refuse(f"{where} {other!r}: only lm_head is resolved")
    if "lm_head" not in ignore and not tied:
        raise _refuse(f"{where} {ignore!r} does not name lm_head: the LM head would be "
                      "quantized too")


def fp8_block_size(cfg: Mapping[str, Any]) -> list[int] | None:
    """A block-quantized fp8 checkpoint's [block_n, block_k]: quantization_config
    .weight_block_size under quant_method fp8, as vLLM's Fp8Config.from_config and SGLang's read
    it (vLLM 0.19.1 model_executor/layers/quantization/fp8.py; SGLang 0.4.6.post1
    srt/layers/quantization/fp8.py Fp8Config.from_config), which refuse any but two sizes;
    None for per-tensor fp8 (no key) and every other method. ImportRefused where it is not two
    positive integers."""
    quant = block(cfg, "quantization_config")
    if quant is None or quant_method(quant) != "fp8" or quant.get("weight_block_size") is None:
        return None
    size = quant.get("weight_block_size")
    if not isinstance(size, list) or len(size) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        raise ImportRefused(f"{field_path(quant, 'weight_block_size')} {size!r} is not two "
                            "positive integers ([block_n, block_k])")
    return [int(size[0]), int(size[1])]
