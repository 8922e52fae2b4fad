#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/23278 ("[Bug]: gpt-oss 120b does not work while gpt-oss 20b
#   works on H100"), description by QichangZheng, 2025-08-20: "Seems it was due to VRAM crash, but it said gpt-oss
#   120b can fit in single H100. Error message:" then the log: "vLLM API server version 0.10.1", "non-default args:
#   {'model_tag': 'openai/gpt-oss-120b', 'model': 'openai/gpt-oss-120b'}", "Using max model len 131072", "Model
#   loading took 65.9651 GiB", "Available KV cache memory: -2.14 GiB", "EngineCore failed to start.": this server
#   failed at start (no memory for the KV cache), the outcome recorded here (file 77 is the 20b model the title
#   says works).
# RECONSTRUCTED from the log's argument line: `vllm serve openai/gpt-oss-120b` is the command whose only non-default
#   arguments are the positional model_tag and model (every other setting vLLM 0.10.1's default).
# GPU: "H100" (title; one GPU: no parallel size among the arguments; the variant is not stated) -> 76-...kvplan.yaml
#   names h100 (the catalog's SXM 80GB).
# Release: vLLM 0.10.1 (the log). The script names no release.
vllm serve openai/gpt-oss-120b
