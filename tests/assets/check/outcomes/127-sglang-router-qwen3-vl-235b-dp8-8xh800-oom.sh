#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3-VL/issues/1746 ("sglang 部署 爆显存"), description by ChinChyi, 2025-11-02,
#   "是8*h800": the command below is the post's; the title says GPU memory ran out: failed, the outcome recorded here.
# GPU: h800 -> side file h800. SGLang release not named.
python3 -m sglang_router.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --dp-size 8 --host 0.0.0.0 --port 8001 --router-worker-startup-timeout-secs 3600 --router-prometheus-port 29000
