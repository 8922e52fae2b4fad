"""A TensorRT-LLM options YAML's cache dtype, parallel layout and backend, applied as kvplan/v1
fields (kvplan.engines.trtllm_config reads the file's pool limits; this reads the rest it
applies). Sources (TensorRT-LLM, read in the code index):

- `kv_cache_config.dtype`: the LLM API's KvCacheConfig.dtype (tensorrt_llm/llmapi/llm_args.py,
  1.x: "a pure python field ... only for the Pytorch backend", default "auto"). The PyTorch
  backend's `validate_and_set_kv_cache_quant` (tensorrt_llm/_torch/pyexecutor/model_loader.py
  in 1.x, model_engine.py before) accepts `_VALID_KV_CACHE_DTYPES` = ("fp8", "nvfp4", "auto")
  ("fp8", "auto" in the 0.19/0.20-era model_engine.py) and raises ValueError on anything else;
  "auto" keeps the checkpoint's KV quantization (hf_quant_config.json's kv_cache_quant_algo),
  and without one the cache is the model's dtype; "fp8"/"nvfp4" force it, over the checkpoint's.
- top-level `kv_cache_dtype`: the older spelling, a TorchLlmArgs field in the 0.20/0.21-era
  llm_args.py (next to enable_trtllm_sampler; index id 292162234); PR #5752 ([BREAKING
  CHANGE] unify KvCacheConfig, reverted once by #6208) moved it into KvCacheConfig.dtype, and
  the current BaseLlmArgs (extra="forbid", index id 7019226376) has no such field (PR #18899:
  "kv_cache_dtype: at YAML top level is rejected"). Which release first rejects it was not
  pinned: kvplan applies it, with a note.
- `dtype`: the LLM API's compute dtype ("auto" by default: the checkpoint's torch_dtype; below
  compute capability 8.0 auto becomes float16 and bfloat16 is refused, kvplan.engines.dtype_trtllm),
  applied as engine.weight_dtype (task h90dtype; before, the key was not read). kvplan reads
  auto, float16, bfloat16 and float32 (`COMPUTE_DTYPES`) and refuses another value with that.
- `tensor_parallel_size`, `pipeline_parallel_size`, `moe_expert_parallel_size`: BaseLlmArgs
  fields (llm_args.py); `backend`: trtllm-serve's --backend, also an LLM-API key.
- The file wins over trtllm-serve's flags: `update_llm_args_with_extra_dict` ends with
  `llm_args = llm_args | llm_args_dict` (llm_args.py, 1.x; index id 1520735490).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kvplan.errors import InputError

# (where in the YAML, kvplan/v1 path, kind)
SETTING_KEYS = (
    (("kv_cache_config", "dtype"), "engine.kv_cache_dtype", "kv"),
    (("kv_cache_dtype",), "engine.kv_cache_dtype", "kv"),
    (("tensor_parallel_size",), "parallel.tensor", "ways"),
    (("pipeline_parallel_size",), "parallel.pipeline", "ways"),
    (("moe_expert_parallel_size",), "parallel.expert", "ways"),
    (("backend",), "engine.trtllm_backend", "backend"),
    (("dtype",), "engine.weight_dtype", "dtype"),
)
# the LLM API's dtype values kvplan plans (auto: the record's own, the model's dtype)
COMPUTE_DTYPES = ("auto", "float16", "bfloat16", "float32")
DTYPE_AUTO_NOTE = ("the LLM API's default, the checkpoint's torch_dtype (float16 below compute "
                   "capability 8.0): planned as the record's weight dtype")
# what TensorRT-LLM accepts (model_loader.py _VALID_KV_CACHE_DTYPES, 1.x) -> kvplan's kv dtype;
# "auto" is kept apart, "nvfp4" is refused (NVFP4_REFUSAL)
KV_DTYPES = {"fp8": "fp8"}
ACCEPTED_KV = ("auto", "fp8", "nvfp4")
NVFP4_REFUSAL = ("kvplan has no NVFP4 cache (4-bit floats with one fp8 scale per 16 values; its "
                 "int4 cache keeps one 16-bit scale per kv_group_size values): set fp8 to plan "
                 "an 8-bit cache, or drop the key and state --kv-dtype")
AUTO_NOTE = ("TensorRT-LLM keeps the checkpoint's KV quantization (validate_and_set_kv_cache_quant "
             "returns on auto, tensorrt_llm/_torch/pyexecutor/model_loader.py: hf_quant_config."
             "json's kv_cache_quant_algo, or config.json's quantization_config.kv_cache_scheme), "
             "else the model's dtype; kvplan plans the model spec's kv_cache_quant_algo where it "
             "records one, else the record's kv dtype (--kv-dtype; unstated: the weights' dtype, "
             "16 bits for quantized weights): state --kv-dtype fp8 for a checkpoint whose "
             "hf_quant_config.json says kv_cache_quant_algo FP8 if its spec does not")


def checkpoint_kv(model: object, version: str | None = None,
                  backend: str | None = None) -> tuple[str | None, str]:
    """TensorRT-LLM's cache dtype auto for a model spec that records the checkpoint's KV
    quantization (`kv_cache_quant_algo`), under release `version` (None: kvplan's default) and
    `backend` (None: the release's default): (kvplan's kv dtype, the note saying so), or (None,
    why kvplan cannot plan it). Sources: validate_and_set_kv_cache_quant (auto returns and keeps
    the checkpoint's quant_config.kv_cache_quant_algo), ModelConfig.load_modelopt_quant_config
    (hf_quant_config.json), update_quant_config_from_compressed_tensors (kv_cache_scheme); INT8
    by backend in kvplan.engines.trtllm_kv_int.checkpoint_int8."""
    algo = getattr(model, "kv_cache_quant_algo", None)
    name = getattr(model, "name", "the model")
    said = (f"TensorRT-LLM's cache dtype auto (its default) keeps the checkpoint's KV "
            f"quantization: {name}'s kv_cache_quant_algo {algo} (its spec, from the checkpoint "
            "the spec's source cites)")
    if algo == "FP8":
        return "fp8", f"{said}: an fp8 cache; state --kv-dtype to plan another"
    if algo == "NVFP4":
        return None, f"{said}: {NVFP4_REFUSAL}"
    if algo == "INT8":
        from kvplan.engines.interface import parse_version
        from kvplan.engines.trtllm import DEFAULT_VERSION
        from kvplan.engines.trtllm_kv_int import checkpoint_int8
        from kvplan.engines.trtllm_pytorch import uses_pytorch

        release = parse_version(str(version or DEFAULT_VERSION)) or ()
        return checkpoint_int8(said, uses_pytorch(release, backend))
    return None, (f"{said}: not one of FP8, NVFP4, INT8 (the values kvplan import records); "
                  "state --kv-dtype")


TOP_LEVEL_NOTE = ("an older spelling (TorchLlmArgs.kv_cache_dtype in the 0.20/0.21-era "
                  "llm_args.py); current releases read kv_cache_config.dtype and reject the "
                  "top-level key (TensorRT-LLM PR #18899)")
BACKENDS = ("pytorch", "tensorrt")
# a built engine's config.json: the checkpoint's KV quantization, which the engine was built with
ENGINE_KV = ("pretrained_config", "quantization", "kv_cache_quant_algo")
ENGINE_KV_DTYPES = {"FP8": "fp8", "INT8": "int8"}


@dataclass(frozen=True)
class Setting:
    """One value the file sets: the kvplan/v1 path, the value, the file's key."""

    path: str
    value: int | str
    key: str


def get_path(data: Any, path: tuple[str, ...]) -> Any:
    """The value at a key path of a parsed options file, or None where any step is missing."""
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def settings_from(data: Any, name: str) -> tuple[list[Setting], list[str]]:
    """The settings a parsed options YAML states (none for an engine's config.json) and a note
    for each value that leaves the record as it is ("auto"). A value kvplan cannot plan, or one
    TensorRT-LLM refuses, raises InputError naming the file, the key and the value."""
    if isinstance(data, dict) and "build_config" in data:
        return engine_kv_setting(data, name), []
    if not isinstance(data, dict):
        return [], []
    new, old = get_path(data, ("kv_cache_config", "dtype")), data.get("kv_cache_dtype")
    if new is not None and old is not None and new != old:
        raise InputError(f"{name}: kv_cache_config.dtype {new} and kv_cache_dtype {old} "
                         "disagree; state one")
    out: list[Setting] = []
    notes: list[str] = []
    for where, path, kind in SETTING_KEYS:
        raw = get_path(data, where)
        key = ".".join(where)
        if raw is None:
            continue
        value: int | str
        if kind == "kv":
            kv = _kv(raw, name, key)
            if kv is None:
                notes.append(f"{name}: {key} auto: {AUTO_NOTE}")
                continue
            value = kv
        elif kind == "backend":
            value = _backend(raw, name)
        elif kind == "dtype":
            if raw not in COMPUTE_DTYPES:
                raise InputError(f"{name}: dtype {raw!r}: kvplan plans TensorRT-LLM's compute "
                                 f"dtype {', '.join(COMPUTE_DTYPES)}; state one of them (a "
                                 "quantized checkpoint is named by the model, the cache's "
                                 "precision by kv_cache_config.dtype)")
            if raw == "auto":
                notes.append(f"{name}: dtype auto: {DTYPE_AUTO_NOTE}")
                continue
            value = str(raw)
        else:
            if raw == -1 and key == "moe_expert_parallel_size":  # older releases' "derive it"
                notes.append(f"{name}: {key} -1: TensorRT-LLM derives it (not stated)")
                continue
            if isinstance(raw, bool) or not isinstance(raw, int) or raw <= 0:
                raise InputError(f"{name}: {key}: expected a positive whole number, got {raw!r}")
            value = raw
        out.append(Setting(path, value, key))
        if key == "kv_cache_dtype":
            notes.append(f"{name}: kv_cache_dtype: {TOP_LEVEL_NOTE}")
    both = [s for s in out if s.path == "engine.kv_cache_dtype"]
    if len(both) == 2:  # the same value twice (they disagree above): applied once
        out.remove(both[1])
    if both and get_path(data, ("backend",)) == "tensorrt":
        raise InputError(tensorrt_refusal(name, both[0].key, str(both[0].value)))
    return out, notes


def engine_kv_setting(data: dict[str, Any], name: str) -> list[Setting]:
    """The cache dtype a built engine's config.json states (task trtleft; it was not read, so an
    INT8 or FP8 engine was planned in the record's dtype): trtllm-build writes the checkpoint's
    `quantization` under `pretrained_config`, and the engine's pool element type follows its
    kv_cache_quant_algo (ModelConfig::getKvDataType: kFP8, kINT8, kFP4, else the model's dtype;
    kvplan.engines.trtllm_kv_int). null states none."""
    raw = get_path(data, ENGINE_KV)
    if raw is None:
        return []
    key = ".".join(ENGINE_KV)
    if raw == "NVFP4":
        raise InputError(f"{name}: {key} NVFP4: the engine's cache is NVFP4, and kvplan has no "
                         "NVFP4 cache (4-bit floats with one fp8 scale per 16 values)")
    if not isinstance(raw, str) or raw not in ENGINE_KV_DTYPES:
        raise InputError(f"{name}: {key} {raw!r}: expected FP8, INT8, NVFP4 or null (QuantAlgo's "
                         "KV cache values, tensorrt_llm/quantization/mode.py); name the "
                         "config.json trtllm-build wrote")
    return [Setting("engine.kv_cache_dtype", ENGINE_KV_DTYPES[raw], key)]


def _kv(raw: Any, name: str, key: str) -> str | None:
    """kvplan's kv dtype for the file's value; None for "auto"."""
    if raw == "auto":
        return None
    if raw == "nvfp4":
        raise InputError(f"{name}: {key} nvfp4: {NVFP4_REFUSAL}")
    if isinstance(raw, str) and raw in KV_DTYPES:
        return KV_DTYPES[raw]
    raise InputError(f"{name}: {key} {raw!r}: TensorRT-LLM accepts {', '.join(ACCEPTED_KV)} "
                     "(_VALID_KV_CACHE_DTYPES, tensorrt_llm/_torch/pyexecutor/model_loader.py) "
                     "and stops at start-up on another; use one of them")


def _backend(raw: Any, name: str) -> str:
    if raw in BACKENDS:
        return str(raw)
    if raw == "_autodeploy":
        raise InputError(f"{name}: backend _autodeploy: AutoDeploy's memory is not modelled "
                         "(kvplan sizes the pytorch and tensorrt backends); set one of them")
    raise InputError(f"{name}: backend {raw!r}: expected one of pytorch, tensorrt, _autodeploy "
                     "(trtllm-serve --backend)")


def tensorrt_refusal(name: str, key: str, value: str) -> str:
    """Why a file's cache dtype does not apply on the TensorRT backend."""
    return (f"{name}: {key} {value}: only TensorRT-LLM's PyTorch backend reads it (llm_args.py "
            "KvCacheConfig.dtype); a TensorRT engine's cache dtype is fixed when it is built "
            "(its kv_cache_quant_algo): drop the key and state --kv-dtype, or run the pytorch "
            "backend")


def backend_refusal(name: str, settings: list[Setting], version: object,
                    backend: object) -> str | None:
    """Why the file's cache dtype does not apply to the backend that runs (`backend` stated, or
    the release's default: pytorch from 1.0, kvplan.engines.trtllm_pytorch.uses_pytorch), or
    None: the TensorRT backend never reads it."""
    kv = next((s for s in settings if s.path == "engine.kv_cache_dtype"), None)
    if kv is None or kv.key == ".".join(ENGINE_KV):  # an engine's own: its backend is TensorRT
        return None
    from kvplan.engines.interface import parse_version
    from kvplan.engines.trtllm import DEFAULT_VERSION
    from kvplan.engines.trtllm_pytorch import uses_pytorch

    release = parse_version(str(version or DEFAULT_VERSION)) or ()
    if uses_pytorch(release, backend if isinstance(backend, str) else None):
        return None
    return tensorrt_refusal(name, kv.key, str(kv.value))


def block_refusals(e: Any) -> list[tuple[str, str]]:
    """(field, why) for each TensorRT-LLM setting of the engine block its release refuses: the
    activation bytes (kvplan.engines.trtllm.activation_refusal) and the backend
    (kvplan.engines.trtllm_pytorch.backend_refusal), in that order. kvplan.deploy calls it
    through kvplan.engine_traits (it was a `name == "trtllm"` branch there until task
    h49engines)."""
    from kvplan.engines.interface import parse_version
    from kvplan.engines.trtllm import DEFAULT_VERSION, activation_refusal
    from kvplan.engines.trtllm_pytorch import backend_refusal

    out: list[tuple[str, str]] = []
    refused = activation_refusal(e.version, e.trt_activation_bytes, e.trtllm_backend)
    if refused is not None:
        out.append(("engine.trt_activation_bytes", refused))
    bad = backend_refusal(parse_version(e.version or DEFAULT_VERSION) or (), e.trtllm_backend)
    if bad is not None:
        out.append(("engine.trtllm_backend", bad))
    return out
