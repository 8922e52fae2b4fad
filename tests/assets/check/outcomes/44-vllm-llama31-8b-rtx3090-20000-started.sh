#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/10517 ("[Usage]: What's the relationship between KV
#   cache and MAX_SEQUENCE_LENGTH."), comment by kaspersiminski, 2024-12-02: "in my case I can run 20k,
#   35k, or 45k, but if I set --max-model-len to 29k it throws an error / GPU: RTX 3090 / MODEL:
#   meta-llama/Llama-3.1-8B-Instruct", with one log excerpt a run ("20k - OK", "29k - BAD", "35k - OK").
# RECONSTRUCTED, not copied: the comment gives no command line. It names the model, the one flag it changed
#   (--max-model-len, "20k" / "29k" / "35k"; the 20k and 29k logs print 20000 and 29000 tokens, 35k is read as 35000) and each log prints
#   gpu_memory_utilization=0.90, vLLM's default; the server is written as `vllm serve` with that flag only.
# GPU: "GPU: RTX 3090" (the comment; log "total_gpu_memory=23.58GiB") -> 44-...kvplan.yaml names rtx-3090.
# Release: not printed in the excerpt; the log lines "Memory profiling results: total_gpu_memory=...
#   initial_memory_usage=..." and "# GPU blocks: N, # CPU blocks: 2048" are vLLM V0's of the 0.6.4 series,
#   the newest release on 2024-12-02 (0.6.4.post1): an inference, flagged in OUTCOMES.md.
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 20000
