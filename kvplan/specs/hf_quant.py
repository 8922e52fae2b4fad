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
from kvplan.specs.config_paths import Located, block, field_path, wrong
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.schema import ExpertQuant, MoE, WeightQuant
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
        raise _refuse(f"{field_path(quant, 'format')} {quant.get('format')!r}")
    groups = quant.get("config_groups")
    if not isinstance(groups, Mapping) or len(groups) != 1:
        raise _refuse(f"{field_path(quant, 'config_groups')} must hold exactly one group")
    name = next(iter(groups))
    where = f"{field_path(quant, 'config_groups')}.{name}"
    group = groups[name]
    if not isinstance(group, Mapping) or group.get("targets") != ["Linear"]:
        raise _refuse(f"{where}.targets are not ['Linear']")
    if group.get("input_activations") is not None or group.get("output_activations") is not None:
        raise _refuse(f"{where}: activations are quantized too")
    weights = group.get("weights")
    if not isinstance(weights, Mapping):
        raise _refuse(f"{where} has no weights scheme")
    for key, want in _SCHEME.items():
        if weights.get(key) != want:
            raise _refuse(f"{where}.weights.{key} is {weights.get(key)!r}, not {want!r}")
    size = weights.get("group_size")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise _refuse(f"{where}.weights.group_size {size!r} is not a positive integer")
    ignore = quant.get("ignore")
    if not isinstance(ignore, list) or frozenset(map(str, ignore)) != ROUTED_ONLY_IGNORE:
        raise _refuse(f"{field_path(quant, 'ignore')} {ignore!r} does not leave exactly the "
                      "routed experts quantized")
    if quant.get("kv_cache_scheme") is not None:
        raise _refuse(f"{field_path(quant, 'kv_cache_scheme')} is set")
    notes.append(
        f"routed experts published in int4 (compressed-tensors pack-quantized, groups of {size}, "
        f"one {base.value} scale per group, symmetric: no zero points); attention, shared "
        f"experts, dense layers, embeddings and LM head in {base.value} (the ignore list)"
    )
    return ExpertQuant(weight_dtype=DType.int4, group_size=size, scale_dtype=base)


def with_expert_quant(cfg: Mapping[str, Any], moe: MoE | None, base: DType,
                      notes: list[str]) -> MoE | None:
    """`moe` with the experts' storage a compressed-tensors quantization_config states."""
    quant = block(cfg, "quantization_config")
    if quant is None or quant_method(quant) != "compressed-tensors":
        return moe
    if moe is None:  # a dense model: kvplan.specs.hf_quant8 reads (or refuses) it
        return moe
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
    where = field_path(cfg, "compression_config") + ("" if flat else ".quantization_config")
    if not isinstance(scheme, Mapping):
        raise ImportRefused(f"{where}: the quantization scheme is "
                            f"{type(scheme).__name__}, not an object")
    cfg["quantization_config"] = scheme
    if isinstance(cfg, Located):  # its refusals name the block it was read from
        cfg.paths["quantization_config"] = where
    notes.append("quantization read from compression_config (compressed-tensors' older key)")


def checkpoint_kv_quant(config: Mapping[str, Any],
                        quant_file: Mapping[str, Any] | None) -> str | None:
    """The checkpoint's own KV-cache quantization as TensorRT-LLM reads it (the spec's
    `kv_cache_quant_algo`): hf_quant_config.json's quantization.kv_cache_quant_algo
    (ModelConfig.load_modelopt_quant_config, tensorrt_llm/_torch/model_config.py), else FP8 for
    config.json's quantization_config.kv_cache_scheme of 8-bit floats
    (update_quant_config_from_compressed_tensors: `num_bits == 8 and type == "float"`, any other
    scheme raises ValueError there, and ImportRefused here); None where neither states one."""
    quant = quant_file.get("quantization") if isinstance(quant_file, Mapping) else None
    algo = quant.get("kv_cache_quant_algo") if isinstance(quant, Mapping) else None
    if algo is not None:
        if algo not in ("FP8", "NVFP4", "INT8"):
            raise ImportRefused(f"hf_quant_config.json: kv_cache_quant_algo {algo!r} is not one "
                                "of FP8, NVFP4, INT8")
        return str(algo)
    qc = block(config, "quantization_config")
    scheme = qc.get("kv_cache_scheme") if qc is not None else None
    if scheme is None or qc is None:
        return None
    if isinstance(scheme, Mapping) and scheme.get("num_bits") == 8 and \
            scheme.get("type") == "float":
        return "FP8"
    raise ImportRefused(f"{field_path(qc, 'kv_cache_scheme')} {scheme!r}: only 8-bit floats "
                        "(FP8) are read, as TensorRT-LLM reads them")


def trtllm_checkpoint_refusal(config: Mapping[str, Any]) -> str | None:
    """Why a TensorRT-LLM checkpoint's config.json (convert_checkpoint.py's output: `architecture`
    and `dtype`, the quantization under a top-level `quantization`, no model_type;
    TensorRT-LLM docs/source/architecture/checkpoint.md) is not imported, naming its KV
    quantization and how to plan it; None for any other file."""
    if not isinstance(config.get("architecture"), str) or "model_type" in config:
        return None
    quant = config.get("quantization")
    algo = quant.get("kv_cache_quant_algo") if isinstance(quant, Mapping) else None
    kv = {"INT8": "; its kv_cache_quant_algo INT8 is a TensorRT engine's INT8 cache: plan "
                  "--engine trtllm --trtllm-backend tensorrt --kv-dtype int8",
          "FP8": "; its kv_cache_quant_algo FP8: plan --kv-dtype fp8"}.get(str(algo), "")
    return (f"config.json is a TensorRT-LLM checkpoint's (convert_checkpoint.py output: "
            f"architecture {config['architecture']}, no model_type), not a Hugging Face config: "
            f"import the Hugging Face checkpoint it was converted from{kv}")


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


def name_field(quant: Mapping[str, Any], key: str) -> str:
    """A quantization_config name (quant_method, quant_algo): "" where absent or null; another
    type there is named with its dotted path."""
    value = quant.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise wrong(quant, key, value, "it must be a string (a name)", ImportRefused)
    return value


def quant_method(quant: Mapping[str, Any]) -> str:
    """quantization_config's quant_method, lower-cased ("" where absent)."""
    return name_field(quant, "quant_method").lower()


def dtype_key(cfg: Mapping[str, Any]) -> str | None:
    """The key stating the checkpoint dtype (torch_dtype, or `dtype` in newer configs), None
    where neither is set; a value that is not a string is named with its dotted path."""
    key = next((k for k in ("torch_dtype", "dtype") if cfg.get(k)), None)
    if key is not None and not isinstance(cfg[key], str):
        raise wrong(cfg, key, cfg[key], "it must be a dtype name (bfloat16, float16, ...)",
                    ImportRefused)
    return key


def checkpoint_dtype(cfg: Mapping[str, Any]) -> DType:
    """The dtype of the unquantized tensors (torch_dtype, or `dtype` in newer configs)."""
    key = dtype_key(cfg)
    if key is None:
        raise _refuse("no torch_dtype/dtype says what the unquantized tensors are")
    try:
        return parse_dtype(cfg[key])
    except (InputError, ValueError):
        raise _refuse(f"{field_path(cfg, key)} {cfg[key]!r} is not a known dtype") from None


# ------------------------------------------------ GPTQ and AWQ: every decoder linear layer

# Dense model types whose decoder layers are attention (q/k/v/o) + a gated MLP (gate/up/down),
# the layout kvplan.capacity.linear_quant prices; vLLM names the fused layers below.
LINEAR_QUANT_TYPES = ("gemma", "gemma2", "gemma3_text", "granite", "internlm2", "llama",
                      "mistral", "phi3", "qwen2", "qwen3")
_VLLM_PREFIXES = ("self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate_up_proj", "mlp.down_proj")
LINEAR_METHODS = ("gptq", "awq")


def _linear_refuse(method: str, what: str) -> ImportRefused:
    """`what` names the field by its dotted path (quantization_config.bits), or the block's."""
    return ImportRefused(f"{method} {what}; kvplan prices {method} "
                         "checkpoints whose every decoder linear layer is quantized (int4"
                         f"{' or int8' if method == 'gptq' else ''}, groups of a positive size)")


def _key(quant: Mapping[str, Any], *names: str) -> Any:
    """The first key present, as vLLM's `get_from_keys` reads them."""
    return next((quant[name] for name in names if name in quant), None)


def _block(quant: Mapping[str, Any]) -> str:
    """The quantization block's own dotted path."""
    return quant.prefix if isinstance(quant, Located) else "quantization_config"


def _path(quant: Mapping[str, Any], *names: str) -> str:
    """The dotted path of the key `_key` reads (the first name where none is present)."""
    return field_path(quant, next((name for name in names if name in quant), names[0]))


def linear_base_dtype(cfg: Mapping[str, Any], notes: list[str]) -> DType:
    """The dtype GPTQ/AWQ checkpoints' unquantized tensors are loaded in: vLLM's gptq and awq
    methods run in half (`get_supported_act_dtypes`: [torch.half]); a float32 torch_dtype is
    downcast, so it is priced at 16 bits too."""
    base = checkpoint_dtype(cfg)
    if base.bits > 16:
        notes.append(f"torch_dtype {base.value}: vLLM loads GPTQ/AWQ checkpoints in half, so the "
                     "unquantized tensors are priced as fp16")
        return DType.fp16
    if base.bits < 16:
        raise ImportRefused(f"torch_dtype {base.value} is not a dtype GPTQ/AWQ checkpoints keep "
                            "their unquantized tensors in")
    return base


def linear_quant(cfg: Mapping[str, Any], model_type: str, num_layers: int,
                 notes: list[str]) -> WeightQuant | None:
    """The WeightQuant a gptq or awq quantization_config states (vLLM 0.11.0's GPTQConfig and
    AWQConfig `from_config` keys), or None for any other config; ImportRefused for a layout
    kvplan does not price."""
    quant = block(cfg, "quantization_config")
    if quant is None:
        return None
    method = quant_method(quant)
    if method not in LINEAR_METHODS:
        return None
    if model_type not in LINEAR_QUANT_TYPES:
        raise _linear_refuse(method, f"{_block(quant)}: model_type {model_type!r} is not one "
                             "kvplan lays out as "
                             f"attention + gated MLP ({', '.join(LINEAR_QUANT_TYPES)})")
    bits = _key(quant, "bits", "w_bit")
    if bits not in ((4, 8) if method == "gptq" else (4,)) or isinstance(bits, bool):
        raise _linear_refuse(method, f"{_path(quant, 'bits', 'w_bit')} {bits!r}")
    group = _key(quant, "group_size", "q_group_size")
    if not isinstance(group, int) or isinstance(group, bool) or group <= 0:
        raise _linear_refuse(method, f"{_path(quant, 'group_size', 'q_group_size')} {group!r} "
                             "(-1, one group per row, is not modelled)")
    act_order = False
    if method == "gptq":
        act_order = _gptq_checks(quant)
        zeros = f"sym {quant.get('sym')!r}; qzeros registered either way"
    else:
        _awq_checks(quant, num_layers)
        zeros = "zero_point true"
    dtype = DType.int4 if bits == 4 else DType.int8
    notes.append(
        f"every decoder linear layer published in {method} {dtype.value} (quantization_config: "
        f"groups of {group}{', desc_act' if act_order else ''}, {zeros}); priced as vLLM's "
        f"{method}.py create_weights registers them: packed qweight and qzeros, fp16 scales"
        f"{', an int32 g_idx per input row' if method == 'gptq' else ''}; embeddings, LM head "
        "and norms unquantized")
    return WeightQuant(method=method, weight_dtype=dtype, group_size=group,
                       scale_dtype=DType.fp16, act_order=act_order)


def _gptq_checks(quant: Mapping[str, Any]) -> bool:
    """Refuse GPTQ variants stored otherwise; return desc_act."""
    if quant.get("lm_head") not in (None, False):
        raise _linear_refuse("gptq", f"{field_path(quant, 'lm_head')}: the LM head is quantized "
                             "too")
    if quant.get("dynamic") not in (None, {}):
        raise _linear_refuse("gptq", f"{field_path(quant, 'dynamic')}: per-module overrides are "
                             "set")
    if quant.get("is_marlin_format") not in (None, False):
        raise _linear_refuse("gptq", f"{field_path(quant, 'is_marlin_format')} is set "
                             "(Marlin-packed tensors)")
    if quant.get("checkpoint_format") not in (None, "gptq"):
        raise _linear_refuse("gptq", f"{field_path(quant, 'checkpoint_format')} "
                             f"{quant.get('checkpoint_format')!r}")
    if quant.get("modules_in_block_to_quantize") is not None:
        raise _linear_refuse("gptq", f"{field_path(quant, 'modules_in_block_to_quantize')} leaves "
                             "some layers unquantized")
    desc_act = quant.get("desc_act", False)
    if not isinstance(desc_act, bool):
        raise _linear_refuse("gptq", f"{field_path(quant, 'desc_act')} {desc_act!r} is not true "
                             "or false")
    return desc_act


def _awq_checks(quant: Mapping[str, Any], num_layers: int) -> None:
    """Refuse AWQ variants stored otherwise (vLLM's awq method reads GEMM packing)."""
    if quant.get("zero_point") is not True:
        raise _linear_refuse("awq", f"{field_path(quant, 'zero_point')} "
                             f"{quant.get('zero_point')!r}")
    version = name_field(quant, "version").lower() or "gemm"
    if version != "gemm":
        raise _linear_refuse("awq", f"{field_path(quant, 'version')} {version!r} (only GEMM "
                             "packing is modelled)")
    skipped = quant.get("modules_to_not_convert")
    skipped = [] if skipped is None else skipped
    if not isinstance(skipped, list) or not all(isinstance(m, str) for m in skipped):
        raise _linear_refuse("awq", f"{field_path(quant, 'modules_to_not_convert')} {skipped!r} "
                             "is not a list of names")
    # vLLM's is_layer_skipped_awq: a module is left unquantized when a listed name is a
    # substring of its prefix; names that hit no decoder linear layer (lm_head, visual) change
    # nothing priced here
    prefixes = [f"model.layers.{i}.{name}" for i in range(num_layers) for name in _VLLM_PREFIXES]
    for name in skipped:
        hit = next((p for p in prefixes if name in p), None)
        if hit is not None:
            raise _linear_refuse("awq", f"{field_path(quant, 'modules_to_not_convert')} {name!r} "
                                 f"leaves {hit} unquantized")
