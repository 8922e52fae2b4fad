#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/22331 ("[Bug]: vllm/vllm-openai:gptoss AssertionError: Sinks are
#   only supported in FlashAttention 3 (4090 48gb)"), comment by jkyamog, 2025-08-28, quoting ghostplant: "What I use
#   is A100 80GB + fully NVlink. This is my command: [the command below] For TP=1, I get 90 tps. For TP=2/4, I get
#   77-78 tps."; ghostplant replies the same day "Yes, similar with 120B on 2 devices". This server started and served
#   (TP 2, the command's), the outcome recorded here. The issue's own 4090 48GB run is not this file (no catalog card).
# The command below is the quoted command, copied verbatim (one line, as quoted).
# GPU: "A100 80GB" (the comment; --tensor-parallel-size=2, two of them) -> 95-...kvplan.yaml names a100-80gb.
# Release: the image tag `gptoss` (vLLM's gpt-oss preview build of August 2025, carried by the docker run).
docker run -it --rm --gpus all  -v /:/host -w /host$(pwd)    -p 8802:8802     --gpus all     --ipc=host      --env "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1"     --env "TORCH_CUDA_ARCH_LIST=8.0"     vllm/vllm-openai:gptoss     --served-model-name gptoss-120b     --tensor-parallel-size=2     --model openai/gpt-oss-120b     --port 8802
