#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/6689, the same thread as file 56: WoosukKwon, 2024-07-23:
#   "@romilbhardwaj ... Could you please share why you limit `max-mode-len`? Did you experience OOMs without
#   it?"; romilbhardwaj, 2024-07-23: "I no longer have the error on hand, but it was along the lines of
#   `[rank0]: ValueError: The model's max seq len (...) is larger than the maximum number of tokens that can be
#   stored in KV cache (...) ...`": without --max-model-len the server failed at start, the outcome here.
# RECONSTRUCTED, not copied: file 56's command without `--max-model-len 1024`. The reply does not say which of
#   the two servers (8B on one L4, 405B-FP8 on eight A100-80GB) it was; by hand (OUTCOMES.md) only the 8B one
#   can fail so: its 131,072-token context needs 16 GiB of KV cache, more than one L4 leaves after 15 GiB of
#   weights, while the 405B one has some 20 GiB a GPU for its 7.9 GiB. An inference, flagged in OUTCOMES.md.
# GPU: "L4:1" (the comment) -> 57-...kvplan.yaml names l4.
# Release: vLLM v0.5.3.post1 (the comment); no container, the script names no release.
vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size 1
