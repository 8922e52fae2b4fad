"""Which engine option sets which kvplan/v1 field, per engine, and the options read but not
modelled (with the reason `check` notes); split from kvplan.check.manifests.engine."""

from __future__ import annotations

# canonical option -> (kvplan field, kind)
VLLM: dict[str, tuple[str, str]] = {
    "--model": ("model", "str"),
    "--served-model-name": ("served_name", "str"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "-tp": ("parallel.tensor", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "-pp": ("parallel.pipeline", "int"),
    "--data-parallel-size": ("dp", "int"),
    "-dp": ("dp", "int"),
    "--data-parallel-size-local": ("dp_local", "int"),
    "-dpl": ("dp_local", "int"),
    # `auto` / `-1`: kvplan.check.manifests.auto_context, by the image's release
    "--max-model-len": ("engine.max_model_len", "context"),
    "--gpu-memory-utilization": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--block-size": ("engine.block_size", "int"),
    "--max-num-seqs": ("engine.max_num_seqs", "int"),
    "--max-num-batched-tokens": ("engine.max_num_batched_tokens", "tokens"),
    "--enable-prefix-caching": ("engine.enable_prefix_caching", "true"),
    "--no-enable-prefix-caching": ("engine.enable_prefix_caching", "false"),
    "--disable-prefix-caching": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
    "-q": ("quantization", "str"),
    "--enforce-eager": ("engine.enforce_eager", "true"),
    "--no-enforce-eager": ("engine.enforce_eager", "false"),
    "--kv-cache-memory-bytes": ("engine.kv_cache_memory_bytes", "bytes"),
    "--cpu-offload-gb": ("engine.cpu_offload_gb", "float"),
    "--limit-mm-per-prompt": ("engine.limit_mm_per_prompt", "mm"),
    "--speculative-config": ("speculative", "json"),
    "--enable-expert-parallel": ("expert_parallel", "true"),
    "-ep": ("expert_parallel", "true"),
    "--no-enable-expert-parallel": ("expert_parallel", "false"),
    "--disable-custom-all-reduce": ("engine.disable_custom_all_reduce", "true"),
    "--no-disable-custom-all-reduce": ("engine.disable_custom_all_reduce", "false"),
    # 0.9.1 on (arg_utils.py:856 in 0.9.1): kvplan.engines.vllm_groups.unified
    "--disable-hybrid-kv-cache-manager": ("engine.disable_hybrid_kv_cache_manager", "true"),
    "--no-disable-hybrid-kv-cache-manager": ("engine.disable_hybrid_kv_cache_manager", "false"),
    # vLLM 0.34 (arg_utils.py:1413; EnableDisableAction adds --disable-): refused on an older
    # image by kvplan.engines.vllm_flag_versions, as its argparse would
    "--enable-extensible-kv-cache": ("engine.enable_extensible_kv_cache", "true"),
    "--no-enable-extensible-kv-cache": ("engine.enable_extensible_kv_cache", "false"),
    "--disable-extensible-kv-cache": ("engine.enable_extensible_kv_cache", "false"),
    # nargs="+" (arg_utils.py, CompilationConfig.cudagraph_capture_sizes); -cc / the JSON
    # keys: kvplan.check.manifests.compilation (task h43capsz)
    "--cudagraph-capture-sizes": ("engine.cudagraph_capture_sizes", "sizes"),
    "--max-cudagraph-capture-size": ("engine.max_cudagraph_capture_size", "int"),
}
SGLANG: dict[str, tuple[str, str]] = {
    "--model-path": ("model", "str"),
    "--model": ("model", "str"),
    "--served-model-name": ("served_name", "str"),
    "--tp-size": ("parallel.tensor", "int"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "--pp-size": ("parallel.pipeline", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "--dp-size": ("dp", "int"),
    "--data-parallel-size": ("dp", "int"),
    # 0.5.23 fields/parallel.py:81-90 (attn_dp_size, alias --attention-data-parallel-size):
    # attention data parallelism, read by kvplan.check.manifests.dp_attention
    "--attn-dp-size": ("attn_dp", "int"),
    "--attention-data-parallel-size": ("attn_dp", "int"),
    # SGLang's own human_readable_int (SI / IEC suffixes): kvplan.check.manifests.context_spellings
    "--context-length": ("engine.max_model_len", "context_si"),
    "--mem-fraction-static": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--page-size": ("engine.block_size", "int"),
    "--max-running-requests": ("engine.max_num_seqs", "int"),
    "--chunked-prefill-size": ("engine.max_num_batched_tokens", "int"),
    "--disable-radix-cache": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
    "--cuda-graph-max-bs": ("engine.cuda_graph_max_bs", "int"),
    "--cuda-graph-max-bs-decode": ("engine.cuda_graph_max_bs", "int"),
    # sglang 0.5.5 (gone in 0.5.20: kvplan.check.argv.OLD_OPTIONS): a list of batch sizes,
    # nargs="+" (server_args.py:3170); __post_init__ sets cuda_graph_max_bs = max(cuda_graph_bs)
    # when it is given (server_args.py:775-778)
    "--cuda-graph-bs": ("engine.cuda_graph_max_bs", "max"),
    "--max-total-tokens": ("engine.max_total_tokens", "int"),
    "--attention-backend": ("engine.attention_backend", "str"),
    # 0.5.16 on (arg_groups/fields/mm.py:144 in 0.5.23): the multimodal reservation's feature
    # pool, kvplan.engines.sglang_mm
    "--mm-feature-transport": ("engine.mm_feature_transport", "str"),
    # speculative decoding (task h90sglspec, kvplan.engines.sglang_spec): the algorithm, the
    # draft (--speculative-draft-model is its alias, arg_groups/fields/spec.py:40 in 0.5.23)
    # and the three draft shapes
    "--speculative-algorithm": ("engine.speculative_algorithm", "str"),
    "--speculative-draft-model-path": ("engine.speculative_model", "str"),
    "--speculative-draft-model": ("engine.speculative_model", "str"),
    "--speculative-num-steps": ("engine.speculative_num_steps", "int"),
    "--speculative-eagle-topk": ("engine.speculative_eagle_topk", "int"),
    "--speculative-num-draft-tokens": ("engine.speculative_num_draft_tokens", "int"),
    # 0.5.18 on: the draft's own cache dtype, applied or refused by
    # kvplan.engines.sglang_kv_dtype.draft_kv_dtype (task kvspell)
    "--speculative-draft-kv-cache-dtype": ("draft_kv_dtype", "str"),
    "--enable-ep-moe": ("ep_moe", "true"),  # ep_size = tp_size (pool_flags.sglang_ep_moe)
    # data-parallel attention's shards (kvplan.engines.sglang_dp, task h100sgldp); before 0.5.0
    # DeepEP was --enable-deepep-moe (pool_flags.sglang_deepep_moe)
    "--moe-dense-tp-size": ("engine.moe_dense_tp_size", "int"),
    "--enable-dp-lm-head": ("engine.enable_dp_lm_head", "true"),
    "--moe-a2a-backend": ("engine.moe_a2a_backend", "str"),
    "--enable-deepep-moe": ("deepep_moe", "true"),
    "--ep-size": ("parallel.expert", "int"),
    "--ep": ("parallel.expert", "int"),
    "--expert-parallel-size": ("parallel.expert", "int"),
}
TRTLLM: dict[str, tuple[str, str]] = {
    "--tensor_parallel_size": ("parallel.tensor", "int"),
    "--tp_size": ("parallel.tensor", "int"),
    "--pipeline_parallel_size": ("parallel.pipeline", "int"),
    "--pp_size": ("parallel.pipeline", "int"),
    "--max_seq_len": ("engine.max_model_len", "int"),
    "--max_batch_size": ("engine.max_num_seqs", "int"),
    "--max_num_tokens": ("engine.max_num_batched_tokens", "int"),
    "--free_gpu_memory_fraction": ("engine.gpu_memory_utilization", "float"),
    "--kv_cache_free_gpu_memory_fraction": ("engine.gpu_memory_utilization", "float"),
    "--ep_size": ("parallel.expert", "int"),
    "--moe_expert_parallel_size": ("parallel.expert", "int"),
    "--extra_llm_api_options": ("engine.trtllm_config", "path"),
    "--config": ("engine.trtllm_config", "path"),
    "--backend": ("engine.trtllm_backend", "str"),
    # 1.3.0rc7 on (kvplan.check.engine_flags.trtllm.SINCE); checked by pool_flags.trtllm_kv_flag
    "--kv_cache_dtype": ("engine.kv_cache_dtype", "str"),
}
FIELDS = {"vllm": VLLM, "sglang": SGLANG, "trtllm": TRTLLM}
# Options read, not modelled, each with the reason `check` notes (SGLang 0.5.21's source:
# distributed/bootstrap.py, parallel_state.py, device_communicators/custom_all_reduce*.py).
_CA = ("SGLang's custom all-reduce workspace: CustomAllReduceV2 on one NVLink clique (CUDA) up "
       "to 2 x TP push slots and a pull buffer of 16 MiB each plus a 1 MiB-per-rank graph "
       "table, else the legacy CustomAllreduce's three 8 MiB buffers (16 MiB on ROCm)")
NOT_MODELLED: dict[str, dict[str, str]] = {"sglang": {
    "--disable-custom-all-reduce": (
        f"with TP above 1 SGLang then allocates no {_CA}, before it measures the free memory "
        "the pool is sized from; kvplan's start-up use (fitted with it on) is not reduced: the "
        "pool would grow by at most mem_fraction_static x that workspace per GPU (not "
        "modelled)"),
    "--enable-p2p-check": (
        "SGLang then tests GPU peer access instead of assuming it; where peers cannot reach "
        f"one another it skips the {_CA}, the only memory this moves (not modelled, as "
        "--disable-custom-all-reduce)"),
    "--config": (
        "SGLang reads more server arguments from this YAML file; kvplan reads it only beside the "
        "manifest or in a ConfigMap of it, and this one is neither, so an argument set only there "
        "(mem-fraction-static, context-length, max-running-requests ...) is not checked: give "
        "the pool's arguments as flags, or put the file beside the manifest"),
}, "vllm": {"--config": (
        "vLLM reads more options from this YAML file (its keys are the long option names); kvplan "
        "reads it only beside the manifest or in a ConfigMap of it, and this one is neither, so an "
        "option set only there (gpu-memory-utilization, max-model-len, max-num-seqs, "
        "kv-cache-dtype ...) is not checked: give the pool's options as flags, or put the file "
        "beside the manifest")}}
# SGLang's own defaults that differ from kvplan/v1's (vLLM-named) defaults.
DEFAULTS = {"sglang": {"engine.block_size": 1, "engine.enable_prefix_caching": True}}
# what the flag is called in a fix, per engine, and its fp8 cache value ("fp8")
FLAG_NAMES = {
    "vllm": {"tp": "--tensor-parallel-size", "len": "--max-model-len", "seqs": "--max-num-seqs",
             "kv": "--kv-cache-dtype fp8", "fp8": "fp8"},
    "sglang": {"tp": "--tp-size", "len": "--context-length", "seqs": "--max-running-requests",
               "kv": "--kv-cache-dtype fp8_e4m3", "fp8": "fp8_e4m3"},
    "trtllm": {"tp": "--tp_size", "len": "--max_seq_len", "seqs": "--max_batch_size",
               "kv": "kv_cache_config.dtype: fp8 (in --config)", "fp8": "fp8"},
}
