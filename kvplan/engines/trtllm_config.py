"""TensorRT-LLM limits read from a file: an LLM-API YAML or a built engine's config.json.

Two files state TensorRT-LLM's pool limits, and `engine.trtllm_config` (`--trtllm-config`) names
either:
- the YAML `trtllm-serve --extra_llm_api_options` / `--config` takes (the LLM API's arguments):
  top-level `max_batch_size`, `max_num_tokens`, `max_seq_len`, and `kv_cache_config`'s
  `tokens_per_block`, `free_gpu_memory_fraction` and `max_tokens` (a file that states none of
  these nor a setting below is refused as not TensorRT-LLM's, unless it holds a `kv_cache_config`
  mapping or a key of `MOVES_MEMORY`: then its keys are named as not read);
- the `config.json` `trtllm-build` writes beside a TensorRT engine: `build_config`'s
  `max_batch_size`, `max_num_tokens`, `max_seq_len`, and `build_config.plugin_config`'s
  `tokens_per_block` (the engine is built for these limits; the runtime cannot exceed them),
  and `pretrained_config.quantization.kv_cache_quant_algo`, the engine's cache dtype
  (kvplan.engines.trtllm_settings.engine_kv_setting).

Each value becomes the kvplan/v1 field that holds it (max_batch_size -> max_num_seqs,
max_num_tokens -> max_num_batched_tokens, max_seq_len -> max_model_len, tokens_per_block ->
block_size, free_gpu_memory_fraction -> gpu_memory_utilization, max_tokens ->
max_tokens_in_paged_kv_cache). A key the file does not state stays as the record has it; a
record that states the same setting with another value is refused (the two would disagree).

The YAML's cache dtype and parallel layout are applied the same way (`settings_from`,
kvplan.engines.trtllm_settings): `kv_cache_config.dtype` (or the older top-level
`kv_cache_dtype`) -> engine.kv_cache_dtype, `tensor_parallel_size` / `pipeline_parallel_size` /
`moe_expert_parallel_size` -> parallel.tensor / .pipeline / .expert, `backend` ->
engine.trtllm_backend. Any other key of the YAML is not read; `unread` names each one, so that
callers say so instead of dropping it silently, with what it does to memory where TensorRT-LLM's
source says (`MOVES_MEMORY`: the MoE backend's workspaces, speculative decoding, CUDA-graph
pools, attention data parallelism). A built engine's config.json holds many build keys besides
the limits (the model's own configuration): those are not listed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.engines.trtllm_settings import SETTING_KEYS, Setting, get_path, settings_from
from kvplan.errors import InputError

# (where in the file, kvplan/v1 engine field, kind)
_YAML_KEYS = (
    (("max_batch_size",), "max_num_seqs", "int"),
    (("max_num_tokens",), "max_num_batched_tokens", "int"),
    (("max_seq_len",), "max_model_len", "int"),
    (("kv_cache_config", "tokens_per_block"), "block_size", "int"),
    (("kv_cache_config", "free_gpu_memory_fraction"), "gpu_memory_utilization", "share"),
    (("kv_cache_config", "max_tokens"), "max_tokens_in_paged_kv_cache", "int"),
)
_ENGINE_KEYS = (
    (("build_config", "max_batch_size"), "max_num_seqs", "int"),
    (("build_config", "max_num_tokens"), "max_num_batched_tokens", "int"),
    (("build_config", "max_seq_len"), "max_model_len", "int"),
    (("build_config", "plugin_config", "tokens_per_block"), "block_size", "int"),
)


# YAML keys kvplan does not read that change what the engine allocates, and how (docs/engines.md,
# "TensorRT-LLM"): a note names each one a file states.
MOVES_MEMORY = {
    "moe_config": "the MoE backend's workspaces (DEEPGEMM keeps 42.11 GiB a GPU for DeepSeek-R1 "
                  "at 8,192 tokens, DeepGemmFusedMoE.get_workspace; the pool is sized without "
                  "them)",
    "speculative_config": "a draft model or MTP layers (not modelled for TensorRT-LLM)",
    "cuda_graph_config": "CUDA-graph pools outside torch (inside the non-torch interval only)",
    "use_cuda_graph": "CUDA-graph pools outside torch (inside the non-torch interval only)",
    "cuda_graph_batch_sizes": "CUDA-graph pools outside torch (inside the non-torch interval only)",
    "enable_attention_dp": "attention data parallelism (not modelled)",
}


def unread(data: Any) -> list[str]:
    """The keys of an options YAML that kvplan neither reads as limits nor applies as settings
    (`SETTING_KEYS`), as dotted paths (the kv_cache_config keys one by one; a mapping's value
    named where it is a scalar `backend`)."""
    if not isinstance(data, dict) or "build_config" in data:
        return []
    read = {".".join(where) for where, _, _ in (*_YAML_KEYS, *SETTING_KEYS)}
    out: list[str] = []
    for key, value in data.items():
        if key == "kv_cache_config" and isinstance(value, dict):
            out += [f"kv_cache_config.{k}" for k in value if f"kv_cache_config.{k}" not in read]
        elif str(key) not in read:
            backend = value.get("backend") if isinstance(value, dict) else None
            out.append(f"{key} (backend {backend})" if isinstance(backend, str) else str(key))
    return out


def unread_note(data: Any, name: str) -> str | None:
    """One line naming the keys `unread` finds, those that move memory first, or None."""
    keys = unread(data)
    if not keys:
        return None
    moving = [k for k in keys if k.split(" ")[0] in MOVES_MEMORY]
    rest = [k for k in keys if k not in moving]
    parts = [f"{k}: {MOVES_MEMORY[k.split(' ')[0]]}" for k in moving]
    if rest:
        parts.append(f"{', '.join(rest)}: not read")
    return f"{name}: keys not read by kvplan: " + "; ".join(parts)


def _value(raw: Any, kind: str, where: str) -> int | float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise InputError(f"{where}: expected a number, got {raw!r}")
    if kind == "int":
        if raw != int(raw) or raw <= 0:
            raise InputError(f"{where}: expected a positive whole number, got {raw!r}")
        return int(raw)
    if not 0 < raw <= 1:
        raise InputError(f"{where}: expected a share in (0, 1], got {raw!r}")
    return float(raw)


def read_all(path: Path) -> tuple[dict[str, int | float], list[Setting], list[str], str | None]:
    """From one read of the file: its limits (`limits_from`), its settings and their notes
    (`settings_from`: the cache dtype, the parallel layout, the backend) and the note naming the
    keys not read (`unread_note`; None for an engine's config.json)."""
    from kvplan.inputs import load_json, load_yaml

    if not path.exists():
        raise InputError(f"engine.trtllm_config: {path}: no such file")
    data = load_json(path) if path.suffix == ".json" else load_yaml(path)
    settings, notes = settings_from(data, path.name)
    return limits_from(data, path.name), settings, notes, unread_note(data, path.name)


def states_a_read_key(options: dict[str, Any]) -> bool:
    """Whether LLM API options (an --extra_llm_api_options YAML, or the keywords of a script's
    LLM(...)) state a limit or setting kvplan reads, or a key it knows as TensorRT-LLM's. A
    `kv_cache_config` mapping (the LLM API's KvCacheConfig) counts even when it states no key
    kvplan reads (`enable_block_reuse: false` alone, as NVIDIA/TensorRT-LLM#5872's file), and so
    does a `MOVES_MEMORY` key (`cuda_graph_config`, `moe_config`, `enable_attention_dp`, ...:
    NVIDIA's own gpt-oss guide writes a `low_latency.yaml` of these keys alone, outcome 102);
    `unread_note` names their keys."""
    return isinstance(options.get("kv_cache_config"), dict) or any(
        key in options for key in MOVES_MEMORY) or any(
        get_path(options, where) is not None for where, _, _ in (*_YAML_KEYS, *SETTING_KEYS))


def limits_from(data: Any, name: str) -> dict[str, int | float]:
    """The limits of a parsed options YAML or engine config.json (`name` for messages)."""
    if not isinstance(data, dict):
        raise InputError(f"engine.trtllm_config: {name}: expected a mapping of TensorRT-LLM "
                         "options")
    table = _ENGINE_KEYS if "build_config" in data else _YAML_KEYS
    out: dict[str, int | float] = {}
    for where, field, kind in table:
        raw = get_path(data, where)
        if raw is None:
            continue
        out[field] = _value(raw, kind, f"{name}: {'.'.join(where)}")
    engine_file = table is _ENGINE_KEYS
    if not out and (engine_file or not states_a_read_key(data)):
        keys = ", ".join(".".join(w) for w, _, _ in (table if engine_file else
                                                       (*table, *SETTING_KEYS)))
        raise InputError(f"engine.trtllm_config: {name} states none of {keys}; name the "
                         "--extra_llm_api_options YAML or the engine's config.json")
    return out


def file_name(field: str, from_engine: bool) -> str:
    """What the file calls a kvplan/v1 field (for messages)."""
    for where, f, _ in _ENGINE_KEYS if from_engine else _YAML_KEYS:
        if f == field:
            return ".".join(where)
    return field
