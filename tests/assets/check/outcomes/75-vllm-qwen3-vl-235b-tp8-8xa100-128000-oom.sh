#!/usr/bin/env bash
# Source: https://github.com/QwenLM/Qwen3-VL/issues/1684 ("Vllm v0.11.0, Qwen3-VL-235B(-FP8) deployed on 8 A100s
#   OOM"), description by whwangovo, 2025-10-23: "My vllm version is 0.11.0. I deployed it according to the official
#   recommended command: [the command below] I still encountered the OOM problem. Reducing the maximum context length
#   works for me, but I need long context to support video inference.": this server failed at start (out of memory)
#   at --max-model-len 128000, the outcome recorded here (the shorter context that worked is not stated: not a file).
# The command below is the post's, copied verbatim.
# GPU: "8 A100s" (title; the memory is not stated in the excerpt read). The bf16 weights, 235.67e9 x 2 B / 8 =
#   58.9 GB a GPU, do not fit a 40 GB A100, and the post says a shorter context works, so the cards are 80 GB ones
#   (an inference) -> 75-...kvplan.yaml names a100-80gb.
# Release: vLLM 0.11.0 (the post). The script names no release.
vllm serve Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --max-model-len 128000 \
  --async-scheduling \
  --enable-expert-parallel
