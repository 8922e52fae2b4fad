#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/2763 ("[Bug] launch dsv2 service failed", description by
#   lvhan028, 2025-01-07): "Run the following command, got failure \"RuntimeError: Not enough memory. Please
#   try to increase --mem-fraction-static.\" ... Following the instruction to increase `--mem-fraction-static
#   0.9`, still got \"RuntimeError: Not enough memory\" issue. FYI, It works if I remove `--enable-dp-attention`".
# The command below is the post's, copied verbatim.
# GPU: check_env "GPU 0,1,2,3,4,5,6,7: NVIDIA H100 80GB HBM3" -> 35-...kvplan.yaml names h100.
# Release: the Environment block was not read past the GPU lines; by date (2025-01-07) the 0.4.1 series:
#   an inference, flagged in OUTCOMES.md. No container, the script names no release.
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V2.5 --enable-dp-attention --trust-remote-code --disable-radix-cache --tensor-parallel-size 8
