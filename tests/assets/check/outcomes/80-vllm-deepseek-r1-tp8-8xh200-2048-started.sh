#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/12892 ("[Bug]: Non-coherent output from DeepSeek-R1 671B on
#   H200 SXM"), description by ishumilin, 2025-02-07: "When trying to run the DeepSeek-R1 671B model with vLLM server
#   on 8x H200 SXM, the model produces gibberish output. Reproduction Steps 1. Start vLLM server with the following
#   command: [the command below] 2. Send a test request: curl http://localhost:8000/v1/chat/completions ..." and the
#   "Actual Output" is a chat.completion JSON ("id":"chatcmpl-4114...","object":"chat.completion","created":1738923309,
#   "model":"DeepSeek-R1", ...): this server started and answered a request, the outcome recorded here (the bug is the
#   quality of the text, not the start).
# The command below is step 1's, copied verbatim.
# GPU: "8x H200 SXM" -> 80-...kvplan.yaml names h200; the model behind the folder `DeepSeek-R1` there (the title's
#   "DeepSeek-R1 671B").
# Release: not stated; by date (2025-02-07, `created` 1738923309) the 0.7.1 / 0.7.2 series (an inference). The
#   script names no release.
vllm serve DeepSeek-R1 --dtype bfloat16 --trust-remote-code --tensor-parallel-size 8 --max-model-len 2048
