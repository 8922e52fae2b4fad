#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/17469 ("Qwen3 OOM v0.8.5", description by cpwan,
#   2025-04-30): "Hardware: A10*4, 96GB VRAM ... Works fine with SGLang 0.4.6.post1, gives 60 token per
#   seconds.": the SGLang server started and served, the outcome recorded here.
# RECONSTRUCTED, not copied: the post gives no SGLang command. It is written as SGLang's launcher with the
#   post's model and tensor parallel size 4 (the four A10s; see file 52's header for why 4), every other
#   setting SGLang's default: an inference, flagged in OUTCOMES.md.
# GPU: "A10*4, 96GB VRAM" (the post) -> 54-...kvplan.yaml names a10.
# Release: SGLang 0.4.6.post1 (the post). No container, the script names no release.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4
