#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/5212 ("[Bug] Llama4 OOM with 400k input request"),
#   description by CatherineSue: "### Reproduction Start server on a 8xH100: [the command below] Run
#   `python3 send_llama_request.py`" (a chat request of "1 " * 200000 with max_tokens 200): the server started and
#   took the request; the out-of-memory of the title came while serving that one 400k-token request, not at
#   start-up. Started -> the outcome recorded here (kvplan checks the start; no traffic is declared).
# The command below is the post's, copied verbatim (backslash-continued lines as posted, including
#   `python sglang.launch_server` without `-m` and the trailing space after the last argument).
# GPU: "8xH100" (the post; the variant is not stated) -> 66-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: not stated in the excerpt read, nor the post's date; by the number (below #5755 of 2025-04-25)
#   SGLang main of early April 2025, after Llama 4's release (an inference). The script names no release.
python sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct \
--port 8080 \
--tp-size 8 \
--chat-template llama-4 \
--attention-backend=fa3 \
--context-length 1000000 
