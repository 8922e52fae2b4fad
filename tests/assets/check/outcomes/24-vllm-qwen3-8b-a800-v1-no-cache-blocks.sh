#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/17431 (description by WangxuP, 2025-04-30,
#   "[Bug]: A800 GPU set VLLM_USE_V1=1 ValueError: No available memory for the cache blocks").
# The command below is the thread's "### error case", copied verbatim (spacing kept); its error log
#   (same post) ends in the V1 engine core: "ERROR 04-30 10:20:36 [core.py:396] EngineCore failed to start."
# GPU: collect_env in the same post, "GPU models and configuration: GPU 0: NVIDIA A800 80GB PCIe"
#   -> 24-...kvplan.yaml names a800-80gb.
# Release: vLLM 0.8.5 (the virtualenv is /home/python_vllm_env_085; V1 is 0.8.5's default engine).
/home/python_vllm_env_085/bin/python -m vllm.entrypoints.openai.api_server     --model /root/yjpzmodel/basemodel/Qwen3-8B     --served-model-name Qwen3-8B --gpu-memory-utilization 0.4 --port 8001
