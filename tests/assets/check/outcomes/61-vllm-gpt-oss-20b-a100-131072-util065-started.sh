#!/usr/bin/env bash
# Source: https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/ ("[AI] vLLM 部署地端模型系統訊息記錄 A100", posted
#   2026-04-18; the pages corpus also holds its wp-json copy, /index.php/wp-json/wp/v2/posts/10289): the
#   GPT-OSS-20B section's command, then "系統訊息透露幾個重要訊息：Model loading took 13.72 GiB memory ...
#   Available KV cache memory: 36.56 GiB" and the server's log (banner "version 0.19.0", non-default args
#   {'model_tag': 'openai/gpt-oss-20b', 'port': 10000, 'model': 'openai/gpt-oss-20b', 'trust_remote_code': True,
#   'max_model_len': 131072, 'gpu_memory_utilization': 0.65}): the server started, the outcome recorded here.
# The command below is the post's, copied verbatim.
# GPU: "Nvidia A100" (the post; the variant is not named) -> 61-...kvplan.yaml names a100-80gb: the logged
#   13.72 GiB of weights and 36.56 GiB of KV cache alone are 50.28 GiB, over 0.65 of an A100 40GB (25.9 GiB);
#   an inference from the log's own figures, flagged in OUTCOMES.md.
# Release: vLLM 0.19.0 (the log's banner); a virtualenv (`(.venv)` prompt in the post's second log), no
#   container: the script names no release.
vllm serve openai/gpt-oss-20b --port 10000 --max-model-len 131072  --gpu-memory-utilization 0.65 --trust-remote-code
