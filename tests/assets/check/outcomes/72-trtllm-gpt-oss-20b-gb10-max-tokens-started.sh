#!/usr/bin/env bash
# Source: https://forums.developer.nvidia.com/t/tensorrt-llm-pytorch-memory-fraction-automatically-limited-to-0-14-despite-kv-cache-configuration/354807
#   ("TensorRT-LLM PyTorch Memory Fraction Automatically Limited to 0.14 Despite KV Cache Configuration"), first post:
#   "When serving the GPT-OSS-20B model using TensorRT-LLM's trtllm-serve command, the PyTorch memory fraction is
#   automatically limited to 0.14 (14%) despite explicitly configuring KV cache memory", "Environment: Platform:
#   NVIDIA DGX Spark / GB10; GPU: RTX 6000 ADA (120GB VRAM); Container Image: nvcr.io/nvidia/tensorrt-llm/release:
#   spark-single-gpu-dev; TensorRT-LLM Version: 1.1.0rc3; Model: openai/gpt-oss-20b (FP8 quantized)", then "1. Create
#   YAML Configuration File" and "2. Launch Server" (both below) and, under "Actual Behavior / Initial Memory Profiling
#   Stage", the server's own lines "[TRT-LLM] [I] max_tokens is set by kv_cache_config.max_tokens: 4128" and
#   "[MemUsageChange] Allocated 0.19 GiB for max tokens in paged KV cache (4128)". The server ran (the post's
#   complaint is the size of the memory it took, not a failed start): the outcome recorded here is that it started
#   (an inference from the complaint; the excerpt read does not show the serving line; see OUTCOMES.md).
# The commands below are the post's steps 1 and 2, copied verbatim (the heredoc as posted, blank lines included).
#   The post's "Alternative Configurations Tested" (A, B, C) are not this file.
# GPU: "NVIDIA DGX Spark / GB10" and "120GB VRAM" (the post also writes "RTX 6000 ADA", a 48 GB card, which the
#   120 GB and the platform contradict) -> 72-...kvplan.yaml names gb10; the model behind /models/gpt-oss-20b there.
# Release: TensorRT-LLM 1.1.0rc3 (the post), run inside nvcr.io/nvidia/tensorrt-llm/release:spark-single-gpu-dev; the
#   script runs trtllm-serve directly, as the post did inside that container, and names no release.
cat > /tmp/extra-llm-api-config.yml <<'EOF'
print_iter_log: false
max_batch_size: 64
max_seq_len: 16384
max_input_len: 16384
max_num_tokens: 4096
enable_chunked_prefill: true

kv_cache_config:
  dtype: "auto"
  max_tokens: 200000
  enable_block_reuse: true
  onboard_blocks: true

cuda_graph_config:
  enable_padding: true

disable_overlap_scheduler: true
enable_iter_perf_stats: true
EOF

trtllm-serve "/models/gpt-oss-20b" \
  --host 0.0.0.0 \
  --port 8355 \
  --max_batch_size 64 \
  --max_seq_len 16384 \
  --max_input_len 16384 \
  --max_num_tokens 4096 \
  --trust_remote_code \
  --extra_llm_api_options /tmp/extra-llm-api-config.yml
