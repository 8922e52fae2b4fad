#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/22331 ("[Bug]: vllm/vllm-openai:gptoss AssertionError: Sinks are
#   only supported in FlashAttention 3 (4090 48gb)"), comment by pizts, 2025-08-07, quoting an earlier comment of the
#   thread ("same error on A800"): "[the command below] with **VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1** server can
#   run but when request show error **Worker failed with error 'CUDA error: no kernel image is available for execution
#   on the device**". This server started (requests then failed on a missing kernel, not memory), the outcome
#   recorded here.
# The command below is the quoted one; its line breaks carry no backslashes in the quote, so its lines are joined here
#   into one command, the words unchanged.
# GPU: "A800" (the quote; --gpus '"device=7"', one of them) -> 104-...kvplan.yaml names a800-80gb (gpt-oss-120b's some
#   61 GiB of weights do not fit a 40 GB A800; this run served).
# Model: openai-mirror/gpt-oss-120b on ModelScope (VLLM_USE_MODELSCOPE=True), a mirror of openai/gpt-oss-120b: the side
#   file names the latter.
# Release: the image tag `gptoss` (vLLM's gpt-oss preview of August 2025), carried by the docker run.
sudo docker run --runtime nvidia --gpus '"device=7"' --name my_vllm_container_openai -v /home/ubuntu/modelscope:/root/.cache/modelscope --env "HF_HUB_OFFLINE=1" --env "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1" --env "VLLM_USE_MODELSCOPE=True" -p 20000:8000 --ipc=host vllm/vllm-openai:gptoss --model openai-mirror/gpt-oss-120b --api-key qweasdzxc --max-model-len 5k --gpu-memory-utilization 0.85 --trust-remote-code --async-scheduling
