#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/16692 ("[Bug]: v0.8.4 using TP = 16 to serving deepseek-v3 in
#   2*H800*8 On Ray cluster, get EngineCore exception"), comment by handsome-chips, 2025-04-18: "I found that when using
#   vllm-v0.7.2 and vllm-v0.7.3 with the V0 engine, and setting the tensor parallelism (TP) to 16, it is possible to run
#   DeepSeek-R1. However, after inferencing some requests, an error occurred. ... vllm v0.7.2 V0 engine start command:
#   head node: [the command below] work node: ray start --block --address=$HEADPODIP:6379". The server started and
#   served requests (the later error is at inference, not start-up), the outcome recorded here.
# The command below is the comment's head-node command, copied verbatim.
# GPU: the title's "2*H800*8" (two nodes of 8 H800) -> 111-...kvplan.yaml names h800.
# Model: $MODELPATH, DeepSeek-R1 by the comment -> the side file names deepseek-ai/DeepSeek-R1.
# Release: vLLM 0.7.2, V0 engine (the comment); the command pins none.
ray start --head --port=6379  && \
    vllm serve $MODELPATH \
    --max-num-seqs=16 \
    --max-model-len=16384 \
    --max-num-batched-tokens=16384 \
    --tensor-parallel-size 16 \
    --enable-prefix-caching \
    --enable-chunked-prefill \
    --distributed-executor-backend=ray \
    --trust-remote-code \
    --enable-reasoning \
    --reasoning-parser deepseek_r1 \
    --served-model-name deepseek-r1-250120
