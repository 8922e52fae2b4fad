#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/3361 ("Query on Optimizing sglang Best Performance During DeepSeek
#   V3 Inference"), description by aooxin, 2025-02-07: "I have tested it on a TP16 with 2*8 H800 GPUs, but the
#   performance results seem unusual ... [the command below] The table below shows the results I obtained from the
#   Qianfan14B dataset." followed by a table of served runs ("FP8/96/96 | 0.57 | 38.30 | 216.79 | 253.47 | 2.45 |
#   622.05", "--enable-torch-compile--tp 16"). This server started and served, the outcome recorded here.
# The command below is the post's (node rank 1 of 2), copied verbatim.
# GPU: "2*8 H800 GPUs" -> 113-...kvplan.yaml names h800.
# Model: the folder /root/workspace/env_run/models/DeepSeek-V3 -> the side file names deepseek-ai/DeepSeek-V3.
# Release: not named (2025-02-07: SGLang's 0.4.2 series by date); the command pins none.
python3 -m sglang.launch_server --model-path /root/workspace/env_run/models/DeepSeek-V3 --tp 16 --dist-init-addr 10.xx.xx.xx:20000 --nnodes 2 --node-rank 1 --trust-remote-code --host 0.0.0.0 --port 40000 --enable-torch-compile --torch-compile-max-bs 96 --disable-cuda-graph --quantization fp8 
