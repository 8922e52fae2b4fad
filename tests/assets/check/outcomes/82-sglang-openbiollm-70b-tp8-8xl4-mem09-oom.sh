#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/445 ("OOM CUDA error on 8 * L4 machine when launching sglang
#   server"), description by mounamokaddem, 2024-05-15: "1. It errors out with OOM CUDA, I tried playing around with
#   all possible memory arguments but still have the issue, for e.g running [the command below] errors out, I tried
#   decreasing the mem-fraction-static or try different values with tp but still fails, here is the error" (the
#   excerpt read shows eight "server started on [0.0.0.0]:100xx" RPC lines before the error, the TP 8 workers): this
#   server failed at start (out of memory), the outcome recorded here.
# The command below is the post's second command, copied verbatim.
# GPU: "8 * L4 machine" -> 82-...kvplan.yaml names l4; the model behind ~/Llama3-OpenBioLLM-70B-Instruct as in file 81.
# Release: SGLang of mid-May 2024 (the 0.1.x series) by date (an inference). The script names no release.
python -m sglang.launch_server --model-path ~/Llama3-OpenBioLLM-70B-Instruct --port 30000 --mem-fraction-static 0.9 --tp 8 --disable-disk-cache
