#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/3910 ("[Bug] Server crash when Input length exceeds the
#   maximum allowed length", description by YangZeyu95, 2025-02-27), section "### Reproduction"; the outcome
#   is the report itself: the server ran and crashed only when it "receives prompt longer than max"
#   ("Send a very long prompt through openai api").
# The command below is that section's, copied verbatim (the second node's; node-rank 0 runs the same with
#   --node-rank 0).
# GPU: "2 L40x8 nodes" (the Environment section) -> 34-...kvplan.yaml names l40; 16 GPUs, tensor parallel 16
#   over --nnodes 2. The model is a folder, named there by the Hugging Face id its name gives.
# Release: the Environment block was not read past its first line; by date (2025-02-27) the 0.4.3 series:
#   an inference, flagged in OUTCOMES.md. No container, the script names no release.
python3 -m sglang.launch_server --model-path /root/.cache/huggingface/models/DeepSeek-R1 --tp 16 --dist-init-addr  10.239.14.57:20000 --nnodes 2 --node-rank 1 --trust-remote-code --host 0.0.0.0 --port 9999 --mem-fraction-static 0.9 --context-length 29000 --chunked-prefill-size 2048 --served-model-name DeepSeek-R1-671B --attention-backend flashinfer --schedule-policy fcfs --enable-cache-report --enable-metrics
