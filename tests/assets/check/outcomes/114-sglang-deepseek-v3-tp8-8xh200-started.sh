#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/pull/2735 ("improve moe_align_kernel for deepseek v3"), description by
#   BBuf, 2025-01-05: "In H200 [the command below] python3 benchmark/gsm8k/bench_sglang.py --num-questions 2000 --parallel
#   2000 --num-shots 8 ... main branch: Accuracy: 0.951 Invalid: 0.000 Latency: 83.593 s Output throughput: 1676.993
#   token/s". The server started and served the benchmark, the outcome recorded here.
# The command below is the post's, copied verbatim.
# GPU: "In H200" with --tp 8 -> 114-...kvplan.yaml names h200.
# Release: SGLang's main branch of early January 2025 (0.4.1 series by date); the command pins none.
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code
