#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/6859 ("[Feature] I want to use an A100 to run Qwen3 - 30
#   - A3B"), comment by THU-LIJX, 2025-06-10: "I am able to run Qwen3-30-A3B on an A100-80G using sglang
#   v0.4.6.post5. The command I used is: `python -m sglang.launch_server --model-path Qwen/Qwen3-30-A3B.`":
#   the server started, the outcome recorded here.
# The command below is the comment's, copied verbatim without the sentence's closing full stop. The model name
#   is posted as `Qwen/Qwen3-30-A3B` (no such repository; the thread's model is Qwen3-30B-A3B): the side file
#   names Qwen/Qwen3-30B-A3B.
# GPU: "an A100-80G" (the comment) -> 51-...kvplan.yaml names a100-80gb (SXM; the variant is not stated).
# Release: SGLang 0.4.6.post5 (the comment). No container, the script names no release.
python -m sglang.launch_server --model-path Qwen/Qwen3-30-A3B
