"""Every option `trtllm-serve serve MODEL` accepts: the @click.option names of `serve` in
tensorrt_llm/commands/serve.py (click matches option names exactly: no prefixes, and the
underscores are part of the name), at SOURCE's commit, plus the options that move the pool added
since (SINCE: the first release with each; a release before it refuses the option)."""

from __future__ import annotations

from kvplan.check.engine_flags.table import OptionTable

SOURCE = {
    'repo': 'NVIDIA/TensorRT-LLM',
    'path': 'tensorrt_llm/commands/serve.py',
    'commit': '00209af149e7774406881a37283dce303571eb11',
    # No release: the commit is not pinned to one (see TABLE_RELEASE below), so kvplan compares
    # an image's release with the bounds there, never with the commit hash.
    'version': None,
}
# Where the table's commit stands among releases (task h42trtver). 00209af has a separate
# `trtllm-serve grpc` command (launch_grpc_server, trtllm_engine_pb2) beside `serve`, and its
# launch_server binds socket.AF_INET without PR #10929's IPv6 getaddrinfo (opened 2026-01-22):
# it is a revision of PR #11037 ("Add gRPC server for high-performance external router
# integration") from before review, which merged on 2026-01-29 as a `--grpc` flag of `serve`
# instead (the PR's 2026-01-28 review diff; a stored later serve.py with `--grpc` and the
# unsupported-argument check that review asked for). So, as far as these sources show, no
# release's serve.py is that commit's, and no release is pinned as the table's: its `serve`
# options are main's of January 2026.
# What can be shown:
# - older: 1.2.0rc2 lacks `--config` (PR #9104 made it an alias of --extra_llm_api_options,
#   opened 2025-11-12; the TensorRT-LLM backend's "v1.2.0rc2 release", tensorrtllm_backend PR
#   #819, bumped to it on 2025-11-07); the releases numbered below it are taken as older too
#   (1.2.0rc0-rc1 come before it on main; 1.1.x and older from release branches cut before it,
#   which were not read here).
# - at or after: 1.3.0rc6 is tagged on main at 617440d (2026-02-26), after the table's
#   January base and after #11037's merge, so its `serve` has every option of the table (plus
#   --grpc), unless one was removed since (none is known: the 1.3.0rc8 notes deprecate
#   trtllm-serve options, PR #12106); so do the releases numbered after it (the 1.3.0 line).
# - unpinned: 1.2.0rc3 up to 1.3.0rc5 (1.2.0 and 1.2.1 among them): no source read here says
#   which of them has every option of the table.
TABLE_RELEASE = {"older_through": "1.2.0rc2", "at_or_after_from": "1.3.0rc6"}

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


def release_key(text: str) -> tuple[object, ...] | None:
    """A TensorRT-LLM release as an ordered key (kvplan.engines.release's PEP 440 reading):
    1.3.0rc6 < 1.3.0rc7 < 1.3.0, a final release after its release candidates; `.postN` and
    `.devN` rank with what they follow (1.2.0rc6.post3 == 1.2.0rc6: a rebuild of that
    release's options); None for a text that names no release."""
    from kvplan.engines.release import read_release

    read = read_release(text)
    return None if read is None else read.key(post_and_dev=False)


# Options trtllm-serve gained after the table's January 2026 source that kvplan does not read:
# noted, never refused, on any release (their first release is not pinned here).
ADDED_AFTER: dict[str, str] = {
    "--grpc": "PR #11037, merged 2026-01-29 as a flag of serve",
    "--served_model_name": "PR #11711, in the v1.3.0rc7 release notes",
    "--enable_attention_dp": "PR #12105, opened 2026-03-11",
    "--hf_revision": "an alias of --revision, PR #12105, opened 2026-03-11",
    "--extra_visual_gen_options": "VisualGen serving; its docs PR #11489 (2026-02-15) starts "
                                 "trtllm-serve with it",
}


# The table as every engine's is read (kvplan.check.engine_flags.table): bounded by
# TABLE_RELEASE, its releases ordered by release_key.
TABLE = OptionTable(
    "trtllm-serve", FLAGS, SOURCE, str(SOURCE["commit"])[:12],
    at_or_after_from=TABLE_RELEASE["at_or_after_from"],
    older_through=TABLE_RELEASE["older_through"], added_after=ADDED_AFTER, key=release_key,
)


def table_position(image: object) -> str | None:
    """Where the image's release stands against the option table (TABLE_RELEASE): "older"
    (1.2.0rc2 or below), "unpinned" (1.2.0rc3 up to 1.3.0rc5) or None (1.3.0rc6 or later: at
    or after it; or the image names no release)."""
    place = TABLE.position(image)
    return None if place == "at_or_after" else place
