#!/usr/bin/env bash
# synthetic (task h43scripts): a folder's absolute path taken by a command substitution over
# several lines, whose cd ends at its `)`
cd "$(dirname "$0")"
CACHE_DIR=$(
  cd cache
  pwd
)
export HF_HOME="$CACHE_DIR"
vllm serve meta-llama/Llama-3.1-70B-Instruct --config serve.yaml
