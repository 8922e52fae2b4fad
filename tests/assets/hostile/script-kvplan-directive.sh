# derived by mutation (task h51sweep's benchmarks/sweep.py: a calibration directive added) from
# tests/assets/check/scripts/synthetic/variables.sh: line 3 is a log's # kvplan: directive
# kvplan: sweep_unknown=3
#!/usr/bin/env bash
# synthetic (task h41shell): variables with defaults, an export, continuation lines, a
# commented-out option between them (a comment ends nothing here: it is its own line), `16k`
set -euo pipefail

MODEL="${MODEL:-meta-llama/Llama-3.1-8B-Instruct}"
TP=2
CONTEXT=16k
export CUDA_VISIBLE_DEVICES=0,1

exec vllm serve "$MODEL" \
    --tensor_parallel_size=${TP} \
    --max-model-len $CONTEXT \
    --gpu-memory-utilization 0.85 \
    --port "${PORT:-8000}" 2>&1 | tee vllm.log
