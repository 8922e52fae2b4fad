#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/30919 ("[Bug]: GPT-OSS-120B NotImplementedError: FlashInfer
#   backend currently does not support attention sinks"), description by shyeh25, 2025-12-18: "Use B200 machine but vLLM
#   currently has functional issue. Error log please see below. This functional issue is caused by
#   https://github.com/vllm-project/vllm/pull/30842. Repro command [the two lines below]", the log then showing
#   "[gpu_worker.py:375] Available KV cache memory: 140.97 GiB" before the engine stopped on the title's
#   NotImplementedError. This server failed at start (an attention backend that does not support gpt-oss's sinks, not
#   memory), the outcome recorded here.
# The commands below are the post's repro command, copied verbatim.
# GPU: "B200 machine", 8 GPUs (--tensor-parallel-size 8) -> 89-...kvplan.yaml names b200.
# Release: vLLM's main branch of 2025-12-17 (after PR #30842; the 0.13 development series by date, an inference). The
#   script names no release.
export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
python3 -m vllm.entrypoints.openai.api_server --host 0.0.0.0 --port 8087 --model openai/gpt-oss-120b --tokenizer openai/gpt-oss-120b --dtype auto --kv-cache-dtype fp8 --tensor-parallel-size 8 --pipeline-parallel-size 1 --data-parallel-size 1 --swap-space 16 --max-num-seqs 1024 --trust-remote-code --max-model-len 2058 --gpu-memory-utilization 0.9 --max-num-batched-tokens 8192 --no-enable-prefix-caching --async-scheduling --stream-interval 20 --compilation_config.pass_config.fuse_allreduce_rms true --compilation_config.pass_config.eliminate_noops true --compilation_config.max_cudagraph_capture_size 2048
