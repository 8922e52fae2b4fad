#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/pull/10467 ("Add h20 fused moe config for Qwen3-Next-80B",
#   description by Ximingwang-09, 2025-09-15): "H20 TP 4/8 for Qwen3-Next-80B fused moe config. (TP=2 will
#   cause RuntimeError: Not enough memory.)", then a "Server" block and a bench_serving table at TP 4 and 8
#   (output throughput 1980.89 -> 2233.44 tok/s at TP 4): the TP 4 server started and served, the outcome here.
# The command below is the "Server" block's, copied verbatim, with its `--tp-size 4/8` written as the TP 4 run
#   (file 48 is the TP 8 run, file 49 the TP 2 run the sentence reports).
# GPU: "H20" (the post) -> 47-...kvplan.yaml names h20 and the model behind the folder.
# Release: not stated; SGLang main of 2025-09-15 (the pull request's own branch): an inference, flagged in
#   OUTCOMES.md. No container, the script names no release.
python3 -m sglang.launch_server --model /root/Qwen3-Next-80B-A3B-Instruct --trust-remote-code --tp-size 4 --port 9122
