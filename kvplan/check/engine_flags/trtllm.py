"""Every option `trtllm-serve serve MODEL` accepts: the @click.option names of `serve` in
tensorrt_llm/commands/serve.py (click matches option names exactly: no prefixes, and the
underscores are part of the name), at SOURCE's commit, plus the options that move the pool added
since (SINCE: the first release with each; a release before it refuses the option)."""

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
        "--kv_cache_dtype",  # SINCE
    ]
)
# option -> (the first release with it, where that is read). --kv_cache_dtype: NVIDIA/TensorRT-LLM
# PR #11487 ("Add a flag in trtllm serve to support overriding kv cache dtype", merged 2026-03-03
# as commit 2ba9140dcb) adds `@click.option("--kv_cache_dtype", type=click.Choice(("auto", "fp8",
# "nvfp4")), default="auto")` to tensorrt_llm/commands/serve.py, mapped onto
# KvCacheConfig.dtype. The v1.3.0rc7 release (tag at 69de4a6, 2026-03-10) lists it among its API
# highlights, and the 1.3.0rc7 trtllm-serve reference documents the option; v1.3.0rc6 is tagged
# at 617440d (2026-02-26 on main), before the merge, and no 1.2 release note lists it.
SINCE: dict[str, tuple[str, str]] = {
    "--kv_cache_dtype": ("1.3.0rc7", "tensorrt_llm/commands/serve.py, NVIDIA/TensorRT-LLM PR "
                         "#11487, commit 2ba9140dcb; v1.3.0rc6 (617440d) predates it"),
}


def release_key(text: str) -> tuple[int, int, int, int, int] | None:
    """A TensorRT-LLM release as an ordered key: 1.3.0rc7 -> (1, 3, 0, 0, 7), 1.3.0 ->
    (1, 3, 0, 1, 0) (a final release after its release candidates; `.postN` ranks with what it
    follows); None for a text that names no release."""
    import re

    m = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.?rc(\d+))?", text.strip())
    if m is None:
        return None
    major, minor, patch, rc = m.groups()
    return (int(major), int(minor), int(patch or 0), 0 if rc else 1, int(rc or 0))
