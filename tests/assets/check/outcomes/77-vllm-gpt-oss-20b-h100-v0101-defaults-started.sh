#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/23278 ("[Bug]: gpt-oss 120b does not work while gpt-oss 20b
#   works on H100"), description by QichangZheng, 2025-08-20 (quoted in file 76): the title says gpt-oss-20b works
#   on the same H100: this server started, the outcome recorded here.
# RECONSTRUCTED: the post shows the 120b run's arguments only (file 76: `vllm serve openai/gpt-oss-120b`, every
#   other setting the default); the 20b run is taken as the same command with the 20b model, as the title's
#   comparison implies. Its own log is not in the excerpt read.
# GPU: "H100" (title) -> 77-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: vLLM 0.10.1 (file 76's log; the same machine and day by the post). The script names no release.
vllm serve openai/gpt-oss-20b
