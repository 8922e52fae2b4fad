# derived by mutation (task h70hostile, benchmarks/sweep.py: a flag given a bad value) from
# tests/assets/check/outcomes/68-sglang-llama4-scout-tp8-8xh200-ctx1m-oom.sh: --context-length abc
#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/6817 ("[Bug] Llama4 Scout hits OOM on 8 H200 even with 1M
#   context length"), description by YJHMITWEB, 2025-06-02: "I am following the instructions to deploy Llama 4 scout
#   on 8xH200. I am using `sglang==0.4.6.post5`, `cuda 12.6`, `torch==2.6.0`. I use the command [the command below]
#   But it gives the same OOM error as mentioned in #5755."
# The command below is the post's, copied verbatim.
# GPU: "8xH200" (the post) -> 68-...kvplan.yaml names h200.
# Release: SGLang 0.4.6.post5 (the post, a pip install); the script names no release.
python -m sglang.launch_server --model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --port 30000 --tp 8 --context-length abc --mem-fraction-static 0.8
