#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/pull/10467 ("Add h20 fused moe config for Qwen3-Next-80B",
#   description by Ximingwang-09, 2025-09-15): "H20 TP 4/8 for Qwen3-Next-80B fused moe config. (TP=2 will
#   cause RuntimeError: Not enough memory.)": the TP 2 server failed at start, the outcome recorded here.
# RECONSTRUCTED, not copied: the post gives the command for TP 4 and 8 only ("Server" block, files 47 and 48);
#   this is that command with `--tp-size 2`, the one value the sentence names.
# GPU: "H20" (the post) -> 49-...kvplan.yaml names h20 and the model behind the folder.
# Release: not stated; SGLang main of 2025-09-15 (the pull request's own branch): an inference, flagged in
#   OUTCOMES.md. No container, the script names no release.
python3 -m sglang.launch_server --model /root/Qwen3-Next-80B-A3B-Instruct --trust-remote-code --tp-size 2 --port 9122
