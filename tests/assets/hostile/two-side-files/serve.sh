#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/17431 (description by WangxuP, 2025-04-30,
#   "[Bug]: A800 GPU set VLLM_USE_V1=1 ValueError: No available memory for the cache blocks").
# The command below is the thread's "### success case", copied verbatim (spacing kept).
# GPU: collect_env in the same post, "GPU models and configuration: GPU 0: NVIDIA A800 80GB PCIe"
#   -> 23-...kvplan.yaml names a800-80gb (the catalog's A800 80GB; same 80 GB, SXM form factor).
# Release: vLLM 0.8.5 (the virtualenv is /home/python_vllm_env_085; started outside a container, so
#   the script itself names no release).
VLLM_USE_V1=0  /home/python_vllm_env_085/bin/python -m vllm.entrypoints.openai.api_server     --model /root/yjpzmodel/basemodel/Qwen3-8B     --served-model-name Qwen3-8B --gpu-memory-utilization 0.4 --port 8001
