#!/usr/bin/env bash
# Source: https://github.com/NVIDIA/TensorRT-LLM/issues/6892 ("[Bug]: gpt-oss not running on RTX5090 [ERROR] Assertion
#   failed: The attention sinks is only supported on SM90"), description by vanbukin, 2025-08-14: "RTX 5090 32Gb ...
#   nvcr.io/nvidia/tensorrt-llm/release:gpt-oss-dev"; "I try to follow the instructions described in your documentation
#   https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/blogs/tech_blog/blog9_Deploying_GPT_OSS_on_TRTLLM.md
#   With the difference that I replace `openai/gpt-oss-120b` with `openai/gpt-oss-20b`", then a `docker run ...
#   nvcr.io/nvidia/tensorrt-llm/release:gpt-oss-dev /bin/bash` and, "inside the container", `cat <<EOF >
#   low_latency.yaml` with enable_attention_dp: false, enable_mixed_sampler: true, cuda_graph_config (max_batch_size 8,
#   enable_padding true), moe_config ... This server did not start (the title's assertion: TensorRT-LLM's attention
#   sinks kernel on SM90 only, the RTX 5090 being SM120; not memory), the outcome recorded here.
# RECONSTRUCTED: the excerpt read ends inside the heredoc. The lines below are the guide's low-latency section for one
#   GPU as stored at NVIDIA/TensorRT-LLM commit 04a2a261332f (docs/source/blogs/tech_blog/blog9_Deploying_GPT_OSS_on_
#   TRTLLM.md: the heredoc, whose first five keys are the ones the issue quotes, then "1x B200/GB200/H200":
#   `mpirun -n 1 --oversubscribe --allow-run-as-root trtllm-serve openai/gpt-oss-120b ... --tp_size 1 --ep_size 1
#   ... --kv_cache_free_gpu_memory_fraction 0.75`), with openai/gpt-oss-120b replaced by openai/gpt-oss-20b as the
#   issue says. The docker run that opens the container's shell is left out (it starts no server: /bin/bash).
# GPU: "RTX 5090 32Gb" (the issue; one, --tp_size 1) -> 102-...kvplan.yaml names rtx-5090.
# Release: the image tag gpt-oss-dev (TensorRT-LLM's gpt-oss preview of August 2025), not a release number; this script
#   runs inside that container and pins none.
cat <<EOF > low_latency.yaml
enable_attention_dp: false
enable_mixed_sampler: true
cuda_graph_config:
    max_batch_size: 8
    enable_padding: true
moe_config:
    backend: TRTLLM
EOF

mpirun -n 1 --oversubscribe --allow-run-as-root \
trtllm-serve  openai/gpt-oss-20b \
  --host 0.0.0.0 \
  --port 8000 \
  --backend pytorch \
  --tp_size 1 \
  --ep_size 1 \
  --trust_remote_code \
  --extra_llm_api_options low_latency.yaml \
  --kv_cache_free_gpu_memory_fraction 0.75
