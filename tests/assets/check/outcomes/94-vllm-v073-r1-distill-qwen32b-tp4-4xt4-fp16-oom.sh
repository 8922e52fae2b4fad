#!/usr/bin/env bash
# Source: https://github.com/deepseek-ai/DeepSeek-R1/issues/546 ("4卡T4服务器，使用vllm启动总是报错显存不够": on a
#   four-T4 server, vLLM start-up always fails with not enough GPU memory), description by yongkunGu, 2025-03-07:
#   "使用命令启动：[the command below]" (started with this command), the log "vLLM API server version 0.7.3" and a
#   traceback from every worker through "vllm/model_executor/models/qwen2.py", line 453, in __init__ ...
#   "vllm/model_executor/layers/linear.py", line 129, in create_weights / "weight = Parameter(torch.empty(...": the
#   weights did not fit while the model was built. The post lists what was tried besides (expandable_segments,
#   utilization 0.7 / 0.6, TP 2, swap 32). This server failed at start (out of memory), the outcome recorded here.
# The command below is the post's, copied verbatim.
# GPU: "4卡T4" (four T4s; --tensor-parallel-size 4) -> 94-...kvplan.yaml names t4; the model behind the folder
#   /opt/DeepSeek-R1-Distill-Qwen-32B there.
# Release: vLLM 0.7.3 (the log). The script names no release.
python -m vllm.entrypoints.openai.api_server --served-model-name deepseek-r1 --model /opt/DeepSeek-R1-Distill-Qwen-32B --trust-remote-code --host 0.0.0.0 --port 8080 --max-model-len 2048 --tensor-parallel-size 4 --gpu_memory_utilization 0.8 --enforce-eager --dtype float16
