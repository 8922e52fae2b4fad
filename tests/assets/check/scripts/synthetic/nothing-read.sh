#!/bin/bash
# synthetic (task h41shell): mentions vLLM, starts no server kvplan reads
pip install vllm==0.8.5
python -m vllm.entrypoints.openai.run_batch --model facebook/opt-125m -i in.jsonl -o out.jsonl
