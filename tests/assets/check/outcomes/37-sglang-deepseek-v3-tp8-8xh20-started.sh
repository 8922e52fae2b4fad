#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/12890 (description by zhaotyer, 2025-02-07), "sglang
#   command": "with sglang can achieve 163840" (the title): the server started, with DeepSeek-V3's
#   default context of 163,840 tokens, the outcome recorded here.
# The command below is that line, copied verbatim; `model_path` is set outside the post.
# GPU: "8*H20(96GB)" (the title) -> 37-...kvplan.yaml names h20 and the model.
# Release: not stated; by date (2025-02-07) the SGLang 0.4.2 series: an inference, flagged in OUTCOMES.md.
#   No container, the script names no release.
python3 -m sglang.launch_server --model-path  ${model_path} --tp 8 --trust-remote-code --mem-fraction-static 0.9 --host 0.0.0.0 --port  50050 --served-model-name atom
