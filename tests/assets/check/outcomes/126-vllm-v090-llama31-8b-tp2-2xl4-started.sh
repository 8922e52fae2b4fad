#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/19022, description by nihalucube, 2025-06-02, on 2 L4:
#   `python -m vllm.entrypoints.openai.api_server --model "meta-llama/Llama-3.1-8B-Instruct" --tensor-parallel-size 2
#   --host 0.0.0.0 --port 8001`; the server answered (with "!!!!" text): started, the outcome recorded here.
# Version: not named; 0.9.0 by the date (RECONSTRUCTED pip pin). GPU: L4 -> side file l4.
pip install vllm==0.9.0
python -m vllm.entrypoints.openai.api_server --model "meta-llama/Llama-3.1-8B-Instruct" --tensor-parallel-size 2 --host 0.0.0.0 --port 8001
