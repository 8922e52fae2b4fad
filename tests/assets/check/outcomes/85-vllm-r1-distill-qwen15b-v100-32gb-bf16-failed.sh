#!/usr/bin/env bash
# Source: https://github.com/transformerlab/transformerlab-app/issues/370 ("run vllm server on V100 error"),
#   description by yourtion, 2025-04-16: "ValueError: Bfloat16 is only supported on GPUs with compute capability of at
#   least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly
#   setting the`dtype` flag in CLI, for example: --dtype=half", with the detail log "Starting VLLM Server", "Chunked
#   prefill is enabled with max_num_batched_tokens=512.", "Initializing an LLM engine (v0.5.4) with config:
#   model='deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B', ..., trust_remote_code=True, dtype=torch.bfloat16,
#   max_seq_len=131072, ..., tensor_parallel_size=1, pipeline_parallel_size=1, ..., quantization=None, ...,
#   kv_cache_dtype=auto": this server failed at start (its dtype, bfloat16, is not supported by the GPU), the outcome
#   recorded here.
# RECONSTRUCTED from the log's engine config: Transformer Lab's vLLM plugin started the OpenAI server; the command
#   below is the one whose settings are the log's (the model, --trust-remote-code; every other setting the default,
#   dtype auto read as the checkpoint's bfloat16). The plugin's own command line is not in the excerpt read.
# GPU: "Tesla V100-SXM2-32GB" (the error) -> 85-...kvplan.yaml names v100-sxm2-32gb.
# Release: vLLM 0.5.4 (the log). The script names no release.
python -m vllm.entrypoints.openai.api_server --model deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B --trust-remote-code
