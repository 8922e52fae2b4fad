"""Every option `trtllm-serve serve MODEL` accepts: the @click.option names of `serve` in
tensorrt_llm/commands/serve.py (click matches option names exactly: no prefixes, and the
underscores are part of the name)."""

from __future__ import annotations

SOURCE = {
    'repo': 'NVIDIA/TensorRT-LLM',
    'path': 'tensorrt_llm/commands/serve.py',
    'commit': '00209af149e7774406881a37283dce303571eb11',
}

FLAGS: frozenset[str] = frozenset(
    [
        "--backend", "--chat_template", "--cluster_size", "--config", "--context_parallel_size",
        "--cp_size", "--custom_module_dirs", "--custom_tokenizer", "--disagg_cluster_uri",
        "--enable_chunked_prefill", "--ep_size", "--extra_llm_api_options",
        "--fail_fast_on_attention_window_too_large", "--free_gpu_memory_fraction", "--gpus_per_node",
        "--help", "--host", "--kv_cache_free_gpu_memory_fraction", "--log_level", "--max_batch_size",
        "--max_beam_width", "--max_num_tokens", "--max_seq_len", "--media_io_kwargs",
        "--metadata_server_config_file", "--moe_cluster_parallel_size", "--moe_expert_parallel_size",
        "--num_postprocess_workers", "--otlp_traces_endpoint", "--pipeline_parallel_size", "--port",
        "--pp_size", "--reasoning_parser", "--revision", "--server_role", "--tensor_parallel_size",
        "--tokenizer", "--tool_parser", "--tp_size", "--trust_remote_code",
    ]
)
