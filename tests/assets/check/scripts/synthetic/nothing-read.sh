#!/bin/bash
# synthetic (task h41shell): mentions vLLM, starts no server kvplan reads
pip install vllm==0.8.5
python -m vllm.entrypoints.api_server --model facebook/opt-125m
