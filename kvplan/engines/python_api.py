"""Each serving engine's Python API: the classes a script constructs to run it in-process, and
how their keywords relate to the engine's command line (read by
kvplan.check.manifests.python_script).

- vLLM (0.29.0 wheel): `vllm.LLM(model, **kwargs)` passes its keywords to `EngineArgs(...)`
  (entrypoints/llm.py:298-338), a dataclass, so a keyword that is no EngineArgs field raises
  TypeError (unexpected keyword argument); it starts the engine with
  usage_context=UsageContext.LLM_CLASS (llm.py:343-344): the offline entrypoint
  (kvplan.engines.vllm_entrypoint). `LLMEngine.from_engine_args(engine_args)` and
  `AsyncLLMEngine.from_engine_args(...)` (v1/engine/llm_engine.py:161-164,
  v1/engine/async_llm.py:242-246) default to UsageContext.ENGINE_CONTEXT, which neither batch
  table of get_batch_defaults names (arg_utils.py:2893-2902: `.get(usage_context, default)`), so
  the batch falls back to SchedulerConfig's DEFAULT_MAX_NUM_BATCHED_TOKENS 2,048 and
  DEFAULT_MAX_NUM_SEQS 128 (config/scheduler.py:42 and :44). EngineArgs' fields are `vllm
  serve`'s options (`--field-name`).
- SGLang (0.5.23 wheel): `sglang.Engine(**kwargs)` builds `ServerArgs(**kwargs)` unless given
  `server_args=` (srt/entrypoints/engine.py:289-297), a dataclass: an unknown keyword raises
  TypeError. ServerArgs' fields are `python -m sglang.launch_server`'s options (`--field-name`,
  kvplan.check.engine_flags.sglang).
- TensorRT-LLM: `tensorrt_llm.LLM(model, **kwargs)` takes the LLM API's arguments, the same keys
  trtllm-serve's `--extra_llm_api_options` / `--config` YAML holds (kvplan.engines.trtllm_config),
  `kv_cache_config=KvCacheConfig(...)` and `build_config=BuildConfig(...)` among them.
"""

from __future__ import annotations

from dataclasses import dataclass

# config/scheduler.py:42 and :44 of the vllm 0.29.0 wheel: the batch of UsageContext.ENGINE_CONTEXT
ENGINE_CONTEXT_BATCH = (2048, 128)
ENGINE_CONTEXT_SOURCE = ("vllm 0.29.0 v1/engine/llm_engine.py:164 and v1/engine/async_llm.py:246 "
                         "(usage_context=UsageContext.ENGINE_CONTEXT), which get_batch_defaults "
                         "has no entry for (engine/arg_utils.py:2893-2902): SchedulerConfig's "
                         "2,048 batched tokens and 128 sequences (config/scheduler.py:42, :44)")
# vllm 0.29.0 entrypoints/llm.py:179-224: LLM.__init__'s named parameters (the rest go to EngineArgs)
VLLM_LLM_PARAMETERS = frozenset({
    "model", "runner", "convert", "tokenizer", "tokenizer_mode", "skip_tokenizer_init",
    "trust_remote_code", "allowed_local_media_path", "allowed_media_domains",
    "tensor_parallel_size", "dtype", "quantization", "revision", "tokenizer_revision",
    "chat_template", "seed", "gpu_memory_utilization", "cpu_offload_gb", "offload_group_size",
    "offload_num_in_group", "offload_prefetch_step", "offload_params", "enforce_eager",
    "enable_return_routed_experts", "return_sampling_mask", "disable_custom_all_reduce",
    "hf_token", "hf_overrides", "mm_processor_kwargs", "pooler_config",
    "structured_outputs_config", "profiler_config", "attention_config", "kv_cache_memory_bytes",
    "compilation_config", "quantization_config", "logits_processors", "spec_method",
    "spec_model", "spec_tokens",
})


@dataclass(frozen=True)
class PythonApi:
    """One engine's in-process constructor."""

    engine: str  # the record's engine name
    package: str  # the import root: vllm, sglang, tensorrt_llm
    starts: tuple[str, ...]  # classes whose construction starts the engine
    model_keyword: str  # the keyword naming the model
    model_positional: bool  # the first positional argument is the model
    command: tuple[str, ...]  # the command line whose options the keywords are
    options_file: bool  # keywords are the options YAML's keys (TensorRT-LLM), not `--options`
    unknown_refused: str  # what the engine does with a keyword it does not take ("": not read)
    args_classes: tuple[str, ...] = ()  # classes holding the keywords (EngineArgs, ServerArgs)
    config_classes: tuple[str, ...] = ()  # nested config objects read as mappings
    launchers: tuple[str, ...] = ()  # classes whose from_engine_args starts the engine (vLLM)
    entrypoint: str | None = None  # the record's engine.entrypoint for `starts`
    signature: frozenset[str] = frozenset()  # the constructor's own named parameters
    args_keyword: str = ""  # the keyword that hands over the args object whole (server_args=)


VLLM = PythonApi(
    "vllm", "vllm", ("LLM",), "model", True, ("vllm", "serve"), False,
    "vLLM's LLM passes it to EngineArgs(**kwargs), a dataclass, which raises TypeError "
    "(unexpected keyword argument) (vllm 0.29.0 entrypoints/llm.py:298-338); EngineArgs' fields "
    "are `vllm serve`'s options",
    args_classes=("EngineArgs", "AsyncEngineArgs"),
    launchers=("LLMEngine", "AsyncLLMEngine", "AsyncLLM"), entrypoint="offline",
    signature=VLLM_LLM_PARAMETERS)
SGLANG = PythonApi(
    "sglang", "sglang", ("Engine",), "model_path", False,
    ("python3", "-m", "sglang.launch_server"), False,
    "sglang.Engine(**kwargs) builds ServerArgs(**kwargs), a dataclass, which raises TypeError "
    "(unexpected keyword argument) (sglang 0.5.23 srt/entrypoints/engine.py:297); ServerArgs' "
    "fields are `python -m sglang.launch_server`'s options",
    args_classes=("ServerArgs",), args_keyword="server_args")
TRTLLM = PythonApi(
    "trtllm", "tensorrt_llm", ("LLM",), "model", True, ("trtllm-serve",), True, "",
    config_classes=("KvCacheConfig", "BuildConfig"))
APIS = (VLLM, SGLANG, TRTLLM)
