#!/usr/bin/env bash
# Source: https://github.com/NVIDIA/TensorRT-LLM/issues/5872 (quoted in file 62): "if i pass --tp 4 --ep 4 via
#   command line, trtllm-serve starts and responds normally": this server started and served, the outcome here.
# RECONSTRUCTED as file 62 (see its header), with tensor and expert parallel 4: the same options file
#   (enable_block_reuse: false), model and backend.
# GPU: "gpu 8 nvidia h200 141Gb" (the post; four of them used) -> 63-...kvplan.yaml names h200.
# Release: TensorRT-LLM v1.0.0rc1 / v1.0.0rc3 (the post); not a container: the script names none.
cat > extra_llm_api_options.yaml <<YAML
kv_cache_config:
  enable_block_reuse: false
YAML
trtllm-serve Qwen/Qwen3-235B-A22B-FP8 --backend pytorch --tp_size 4 --ep_size 4 \
  --extra_llm_api_options extra_llm_api_options.yaml
