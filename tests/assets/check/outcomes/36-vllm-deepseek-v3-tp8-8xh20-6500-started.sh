#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/12890 ("[Performance]: When deployed DeepSeek-V3 on
#   8*H20(96GB), maximum model length only reaches 6500 using vllm, but with sglang can achieve 163840.",
#   description by zhaotyer, 2025-02-07), "vllm command": the server started at --max-model-len 6500 (the
#   title: the maximum model length "only reaches 6500"), the outcome recorded here.
# The command below is that line, copied verbatim; `model_path` is set outside the post (the title names
#   the model).
# GPU: "8*H20(96GB)" (the title) -> 36-...kvplan.yaml names h20 and the model.
# Release: not stated in the excerpt read; a maintainer replied "What version of vLLM are you using? With
#   `vllm==0.7.1` we fully implement MLA to get full context length": by date and by that reply an
#   older release (0.7.0 or before): an inference, flagged in OUTCOMES.md. No container.
python3 -m vllm.entrypoints.openai.api_server --model  ${model_path} --port 8108 --max-model-len 6500 --gpu-memory-utilization 0.98 --tensor-parallel-size 8  --trust-remote-code --quantization fp8
