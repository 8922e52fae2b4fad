#!/usr/bin/env bash
# Source: https://github.com/NVIDIA/TensorRT-LLM/issues/2586 ("OOM when building engine for
#   `meta-llama/Llama-3.1-405B-FP8` on 8 x A100 80G"), description by HeyangQin, 2024-12-17: "According to [the
#   llama example's README] TensorRT-LLM should be able to handle Llama-3.1-405B-FP8 ... Yet when I try to do it by
#   `trtllm-serve`, it crashes with OOM. I tried reducing the max_seq_len but it didn't help." then the command
#   below and its log ("[TensorRT-LLM] TensorRT-LLM version: 0.15.0", "Loading Model: [3/3] Building TRT-LLM
#   engine"): this server failed at start (out of memory while building its engine), the outcome recorded here.
# The command below is the post's, copied verbatim (without the shell prompt `$`).
# GPU: "8 x A100 80G" (title; the variant, SXM or PCIe, is not stated) -> 74-...kvplan.yaml names a100-80gb (the
#   catalog's SXM4 80GB).
# Release: TensorRT-LLM 0.15.0 (the log); its trtllm-serve builds a TensorRT engine (the TensorRT backend, not the
#   PyTorch one). The script names no release.
trtllm-serve meta-llama/Llama-3.1-405B-Instruct-FP8 --tp_size 8
