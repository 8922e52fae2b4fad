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
from typing import Any

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
    # what the engine does with True / False given for an option that takes a number: a non-empty
    # text (its source) when it reads them as 1 / 0, "" when kvplan does not know (refused)
    bool_as_number: str = ""
    star_names: tuple[str, ...] = ()  # what `from PACKAGE import *` binds of the classes above
    # (the module a start class comes from, the command words it adds): a backend of its own
    module_words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # keywords whose option is not `--` + the keyword with dashes (a field's own cli_name)
    keyword_flags: tuple[tuple[str, str], ...] = ()
    # (keyword, the field it spells, "" when none): an option's spelling that is no keyword of
    # the constructor (an alias of a field, another field's cli_name): refused as unknown
    flag_spellings: tuple[tuple[str, str], ...] = ()
    flagless: frozenset[str] = frozenset()  # keywords taken that no option carries
    spellings_source: str = ""  # where the three above come from
    # why the engine does not run `dtype=torch.float64` (torch.double): its source's words
    float64_refused: str = ""
    # why a positional argument of a start class stops the script ("" : passed over, noted)
    positional_refused: str = ""
    # (module, function) of the package's functions that start the server from an args object
    # given first or as `args_keyword=` (SGLang's launch_server(server_args))
    server_functions: tuple[tuple[str, str], ...] = ()
    # what the engine does with an attribute set on the args object after its construction
    # that is no field of it ("": attributes set after construction are not followed)
    unknown_attribute: str = ""
    # what the args class (EngineArgs, AsyncEngineArgs: `{cls}`) does with a keyword it does
    # not take, said when the script constructs it itself ("": unknown_refused says it)
    unknown_refused_args: str = ""
    # release by release, what the Python API takes (kvplan.engines.vllm_python; task
    # h82vllmrel): a pinned release's keywords, attributes and positional arguments are read
    # with it (False: with the option table, whatever the release)
    read_by_release: bool = False


def placed_release(api: PythonApi, release: object, table_release: str) -> Any:
    """Where a pinned `release` stands among the releases whose Python API was read
    (kvplan.engines.vllm_python.Placed), or None: the API is not read so, no release is
    pinned, or the release is outside those read (below the oldest, at or after the option
    table's `table_release`)."""
    if not api.read_by_release:
        return None
    from kvplan.engines import vllm_python

    return vllm_python.place(release, table_release)


def positional_release(api: PythonApi) -> Any:
    """The module that says, release by release, what positional arguments the start class
    takes (kvplan.engines.vllm_python), or None."""
    if not api.read_by_release:
        return None
    from kvplan.engines import vllm_python

    return vllm_python


# vllm 0.11.0 wheel (task h81vllmpy): EngineArgs is a plain @dataclass (engine/arg_utils.py:284-285;
# AsyncEngineArgs its subclass, :1685-1686), no slots and no __setattr__, so `ea.x = v` after the
# construction sets the field x, or keeps an attribute that is no field in the instance's
# __dict__; from_engine_args builds the engine from engine_args.create_engine_config(...)
# (v1/engine/async_llm.py:231, v1/engine/llm_engine.py:169), which reads the fields (:1111)
VLLM_UNKNOWN_ATTRIBUTE = ("vLLM's EngineArgs is a dataclass (vllm 0.11.0 vllm/engine/"
                          "arg_utils.py:284-285, AsyncEngineArgs :1685-1686) without slots: an "
                          "attribute that is no field is kept on the object and never read "
                          "(from_engine_args reads the fields through create_engine_config, "
                          ":1111; v1/engine/async_llm.py:231, v1/engine/llm_engine.py:169)")
# vllm 0.11.0 wheel (task h81vllmpy): `def __init__(self, model: str, *, runner=..., ...)`
# (entrypoints/llm.py:163-166), so LLM("model", "tokenizer") raises TypeError; the other
# positional arguments were deprecated by vLLM PR #9424 and removed by PR #18802 (merged
# 2025-05-28)
VLLM_POSITIONAL = ("vLLM's LLM.__init__(self, model, *, ...) takes only the model positionally "
                   "(vllm 0.11.0 vllm/entrypoints/llm.py:163-166; the others were deprecated by "
                   "vLLM PR #9424 and removed by PR #18802, merged 2025-05-28), so another raises "
                   "TypeError (\"takes 2 positional arguments\") and no engine starts")
# vllm 0.34.0 wheel (task h82vllmrel): EngineArgs is a @dataclass (vllm/engine/arg_utils.py:487-488),
# AsyncEngineArgs its subclass (:3280-3281): a keyword that is no field raises TypeError
VLLM_ARGS_REFUSED = ("vLLM's {cls}(...) is a dataclass (vllm 0.34.0 vllm/engine/arg_utils.py:"
                     "487-488 EngineArgs, :3280-3281 AsyncEngineArgs) that raises TypeError "
                     "(unexpected keyword argument) on a keyword that is none of its fields; "
                     "EngineArgs' fields are `vllm serve`'s options")
VLLM = PythonApi(
    "vllm", "vllm", ("LLM",), "model", True, ("vllm", "serve"), False,
    "vLLM's LLM passes it to EngineArgs(**kwargs), a dataclass, which raises TypeError "
    "(unexpected keyword argument) (vllm 0.29.0 entrypoints/llm.py:298-338); EngineArgs' fields "
    "are `vllm serve`'s options",
    args_classes=("EngineArgs", "AsyncEngineArgs"),
    launchers=("LLMEngine", "AsyncLLMEngine", "AsyncLLM"), entrypoint="offline",
    signature=VLLM_LLM_PARAMETERS,
    bool_as_number=("vLLM's configs are pydantic dataclasses in lax mode (vllm 0.34.0 "
                    "config/utils.py:53-80 `config`, config/cache.py:181-216 CacheConfig), which "
                    "read True as 1 and False as 0 for a number field"),
    # vllm 0.34.0 vllm/__init__.py:76-98 (__all__)
    star_names=("LLM", "LLMEngine", "AsyncLLMEngine", "EngineArgs", "AsyncEngineArgs"),
    # vllm 0.29.0 wheel (task h71left): ModelConfig.dtype is `ModelDType | torch.dtype`, and
    # _get_and_verify_dtype keeps a torch.dtype as given (config/model.py:2339-2340); the CUDA
    # platform's non-MLA backends (platforms/cuda.py:144-163) list their dtypes, none float64,
    # validate_configuration says "dtype not supported" (v1/attention/backend.py:287-288) and
    # the selector raises (platforms/cuda.py:455-459)
    float64_refused=(
        "float64, which vLLM takes as given (a torch.dtype, vllm/config/model.py:2339 in "
        "0.29.0; its --dtype choices, ModelDType :100, hold none) and none of its CUDA attention "
        "backends computes in: FLASH_ATTN, FLASHINFER and TURBOQUANT take float16 and bfloat16, "
        "TRITON_ATTN and FLEX_ATTENTION those and float32 (v1/attention/backends/"
        "flash_attn.py:82, flashinfer.py:409, turboquant_attn.py:129, triton_attn.py:289, "
        "flex_attention.py:91), so "
        "the engine stops at start with \"No valid attention backend found\" "
        "(platforms/cuda.py:457)"),
    unknown_attribute=VLLM_UNKNOWN_ATTRIBUTE, positional_refused=VLLM_POSITIONAL,
    unknown_refused_args=VLLM_ARGS_REFUSED, read_by_release=True)
# sglang 0.5.23 wheel, read with Python's ast (task h61pyleft): ServerArgs is msgspec.defstruct of
# the annotated fields of the 21 namespaces in srt/server_args.py _INPUT_NAMESPACES (:522-544,
# :551), declared in srt/arg_groups/fields/*.py; launch_server's option of a field is Arg's
# cli_name, else `--` + the field with dashes, plus Arg's aliases (srt/arg_groups/arg_utils.py
# add_cli_args_from_dataclass :327-334), and ServerArgs.add_cli_args adds --config and the
# deprecated --monokernel-backend (dest enable_amd_monokernel) by hand (server_args.py :401, :426)
SGLANG_SOURCE = ("sglang 0.5.23: Engine(**kwargs) builds ServerArgs(**kwargs), "
                 "srt/entrypoints/engine.py:297, a msgspec Struct of the fields of "
                 "srt/arg_groups/fields/*.py, srt/server_args.py:551; their options, "
                 "srt/arg_groups/arg_utils.py:327-334")
SGLANG_KEYWORD_FLAGS = (
    ("ep_join_mode", "--elastic-ep-join-mode"),  # fields/exec_.py:970 cli_name
    ("ep_join_rank_offset", "--elastic-ep-join-rank-offset"),  # fields/parallel.py:296
    ("fp4_gemm_runner_backend", "--fp4-gemm-backend"),  # fields/exec_.py:282
    ("fp8_gemm_runner_backend", "--fp8-gemm-backend"),  # fields/exec_.py:273
)
SGLANG_FLAG_SPELLINGS = (
    ("attention_context_parallel_size", "attn_cp_size"),  # fields/parallel.py:104 alias
    ("attention_data_parallel_size", "attn_dp_size"),  # fields/parallel.py:81
    ("context_bucket", "cuda_graph_prefill_max_context"),  # fields/exec_.py:648
    ("data_parallel_size", "dp_size"),  # fields/parallel.py:73
    ("decode_context_parallel_size", "dcp_size"),  # fields/parallel.py:52
    ("enable_hicache", "enable_hierarchical_cache"),  # fields/memory.py:98
    ("ep", "ep_size"),  # fields/parallel.py:281
    ("expert_parallel_size", "ep_size"),  # fields/parallel.py:281
    ("grpc_http_sidecar_port", "smg_http_sidecar_port"),  # fields/observability.py:71
    ("hierarchical_sparse_attention_extra_config", "hisparse_config"),  # fields/memory.py:245
    ("model", "model_path"),  # fields/model.py:51
    ("moe_data_parallel_size", "moe_dp_size"),  # fields/parallel.py:112
    ("nccl_init_addr", "dist_init_addr"),  # fields/parallel.py:32
    ("pipeline_parallel_size", "pp_size"),  # fields/parallel.py:59
    ("speculative_draft_model", "speculative_draft_model_path"),  # fields/spec.py:36
    ("tensor_parallel_size", "tp_size"),  # fields/parallel.py:45
    ("elastic_ep_join_mode", "ep_join_mode"),  # the cli_names above
    ("elastic_ep_join_rank_offset", "ep_join_rank_offset"),
    ("fp4_gemm_backend", "fp4_gemm_runner_backend"),
    ("fp8_gemm_backend", "fp8_gemm_runner_backend"),
    ("monokernel_backend", "enable_amd_monokernel"),  # server_args.py:426 (deprecated, "amd")
    ("config", ""),  # server_args.py:401: a YAML of options, read by the command line only
)
# fields no option carries (Arg(no_cli=True) without a hand-added flag, or not annotated with
# Arg): fields/memory.py:45, spec.py:226, schedule.py:164, exec_.py:143, device.py:79,
# parallel.py:164, exec_.py:520, serving.py:97, spec.py:43, observability.py:193, exec_.py:84-108
SGLANG_FLAGLESS = frozenset({
    "_radix_eviction_policy_explicitly_set", "_speculative_draft_quantization_explicitly_set",
    "_swa_full_tokens_ratio_explicitly_set", "aux_hidden_state_capture", "custom_sigquit_handler",
    "enable_cp_tp_group_sharing", "uses_mamba_radix_cache", "grpc_worker_threads",
    "speculative_boundary_reduction", "stat_loggers", "watermark_context_window",
    "watermark_default_enabled", "watermark_enforce_all", "watermark_key", "watermark_key_b",
    "watermark_max_probability", "watermark_mixing_probability",
})
# sglang 0.5.23 wheel (task h80sglpy): Engine.__init__(self, **kwargs) takes keywords only
# (srt/entrypoints/engine.py:278), so Engine(ServerArgs(...)) raises TypeError ("takes 1
# positional argument but 2 were given"); launch_server(server_args, ...) starts the HTTP server
# `python -m sglang.launch_server` runs (srt/entrypoints/http_server.py:3125-3132), and
# sglang.launch_server.run_server(server_args) picks it for an HTTP server (launch_server.py:17,
# :63-67); ServerArgs is a msgspec Struct made with dict=True (srt/server_args.py:550-562), so an
# attribute that is no field is kept beside the fields and never read, and its __setattr__
# (:474-496) lets a field be set until resolution, which the launch runs
SGLANG_POSITIONAL = ("sglang's Engine.__init__(self, **kwargs) takes keywords only, so a "
                     "positional argument raises TypeError (\"takes 1 positional argument\") and "
                     "no engine starts (sglang 0.5.23 srt/entrypoints/engine.py:278)")
SGLANG_SERVER_FUNCTIONS = (
    ("sglang.srt.entrypoints.http_server", "launch_server"),  # http_server.py:3125
    ("sglang.launch_server", "run_server"),  # launch_server.py:17 (HTTP: :63-67)
)
SGLANG_UNKNOWN_ATTRIBUTE = ("SGLang's ServerArgs is a msgspec Struct made with dict=True (sglang "
                            "0.5.23 srt/server_args.py:550-562): an attribute that is no field "
                            "is kept beside the fields and never read")
SGLANG = PythonApi(
    "sglang", "sglang", ("Engine",), "model_path", False,
    ("python3", "-m", "sglang.launch_server"), False,
    "sglang.Engine(**kwargs) builds ServerArgs(**kwargs), a dataclass, which raises TypeError "
    "(unexpected keyword argument) (sglang 0.5.23 srt/entrypoints/engine.py:297); ServerArgs' "
    "fields are `python -m sglang.launch_server`'s options",
    args_classes=("ServerArgs",), args_keyword="server_args",
    star_names=("Engine", "ServerArgs"),  # sglang 0.5.23 sglang/__init__.py:67-78 (__all__)
    keyword_flags=SGLANG_KEYWORD_FLAGS, flag_spellings=SGLANG_FLAG_SPELLINGS,
    flagless=SGLANG_FLAGLESS, spellings_source=SGLANG_SOURCE,
    # sglang 0.5.23 wheel (task h71left): the choices are argparse's only (arg_utils.py:404-405),
    # ServerArgs(**kwargs) keeps the object, and _get_and_verify_dtype keeps a torch.dtype as
    # given (configs/model_config.py:2326-2327); no float64 kernel path was read
    float64_refused=(
        "float64, which SGLang's --dtype choices do not hold (auto, half, float16, bfloat16, "
        "float, float32: srt/arg_groups/fields/model.py:173 in 0.5.23); Engine(dtype=...) "
        "passes a torch.dtype past them as given (configs/model_config.py:2326), and kvplan's "
        "sources do not show SGLang computing in float64, so it is not planned"),
    positional_refused=SGLANG_POSITIONAL, server_functions=SGLANG_SERVER_FUNCTIONS,
    unknown_attribute=SGLANG_UNKNOWN_ATTRIBUTE)
TRTLLM = PythonApi(
    "trtllm", "tensorrt_llm", ("LLM",), "model", True, ("trtllm-serve",), True, "",
    config_classes=("KvCacheConfig", "BuildConfig"),
    # tensorrt_llm/__init__.py __all__ (public source, search index id 496567939)
    star_names=("LLM", "KvCacheConfig", "BuildConfig"),
    # tensorrt_llm._tensorrt_engine.LLM is the TensorRT backend's LLM (`trtllm-serve --backend
    # tensorrt`), tensorrt_llm.LLM the release's default backend (PyTorch from 1.0): the
    # evaluators import them as `from .._tensorrt_engine import LLM` and `from .. import LLM as
    # PyTorchLLM` (tensorrt_llm/evaluate/cnn_dailymail.py, search index id 252021908)
    module_words=(("tensorrt_llm._tensorrt_engine", ("--backend", "tensorrt")),))
APIS = (VLLM, SGLANG, TRTLLM)

# Functions of an engine's package that start its server as another process, (module's package,
# function) -> how its command is built (task h71nbpy; read from the sglang 0.5.23 wheel):
# "split": sglang.utils.launch_server_cmd / execute_shell_command split a string without a shell
# (utils.py:473-486; launch_server_cmd appends --port, :504; sglang.test.doc_patch's also
# appends DOC_PATCH_FLAGS); "test_server": sglang.test.test_utils.popen_launch_server runs
# `sglang serve --model-path MODEL <other_args> --host H --port P` (test_utils.py:731-813)
LAUNCH_HELPERS: dict[tuple[str, str], str] = {
    ("sglang", "launch_server_cmd"): "split",
    ("sglang", "execute_shell_command"): "split",
    ("sglang", "popen_launch_server"): "test_server",
}
DOC_PATCH_FLAGS = ("--max-running-requests", "128", "--max-total-tokens", "20480",
                   "--disable-cuda-graph", "--cuda-graph-max-bs-decode", "4")
DOC_PATCH_SOURCE = "sglang 0.5.23 test/doc_patch.py:51-58"
