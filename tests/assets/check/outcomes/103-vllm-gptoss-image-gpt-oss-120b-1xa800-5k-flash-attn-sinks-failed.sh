#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/22331 ("[Bug]: vllm/vllm-openai:gptoss AssertionError: Sinks are
#   only supported in FlashAttention 3 (4090 48gb)"), comment by pizts, 2025-08-07, quoting an earlier comment of the
#   thread ("same error on A800"): the `sudo docker run ... vllm/vllm-openai:gptoss --model openai-mirror/gpt-oss-120b
#   ... --max-model-len 5k --gpu-memory-utilization 0.85 ...` below, then "with **VLLM_ATTENTION_BACKEND=
#   TRITON_ATTN_VLLM_V1** server can run but when request show error **Worker failed with error 'CUDA error: no kernel
#   image is available for execution on the device**" and "without **VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1**, show
#   error **Sinks are only supported in FlashAttention 3**" (the title's AssertionError). This file is the run without
#   that variable: it did not start (FlashAttention 3 is Hopper-only and the A800 is Ampere; not memory), the outcome
#   recorded here. File 104 is the run with it, which started.
# RECONSTRUCTED: the quoted command (as file 104 writes it) without its `--env "VLLM_ATTENTION_BACKEND=
#   TRITON_ATTN_VLLM_V1"`, the one difference the quote names. The quote's line breaks carry no backslashes (its lines
#   are joined here into one command, the words unchanged).
# GPU: "A800" (the quote; --gpus '"device=7"', one of them) -> 103-...kvplan.yaml names a800-80gb: gpt-oss-120b's some
#   61 GiB of weights do not fit a 40 GB A800, and the same command with the Triton backend served (file 104).
# Model: openai-mirror/gpt-oss-120b on ModelScope (VLLM_USE_MODELSCOPE=True), a mirror of openai/gpt-oss-120b: the side
#   file names the latter.
# Release: the image tag `gptoss` (vLLM's gpt-oss preview of August 2025), carried by the docker run.
sudo docker run --runtime nvidia --gpus '"device=7"' --name my_vllm_container_openai -v /home/ubuntu/modelscope:/root/.cache/modelscope --env "HF_HUB_OFFLINE=1" --env "VLLM_USE_MODELSCOPE=True" -p 20000:8000 --ipc=host vllm/vllm-openai:gptoss --model openai-mirror/gpt-oss-120b --api-key qweasdzxc --max-model-len 5k --gpu-memory-utilization 0.85 --trust-remote-code --async-scheduling
