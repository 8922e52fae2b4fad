#!/bin/bash
# synthetic (task h41shell): a model folder on the machine, named by the side file beside it
CUDA_VISIBLE_DEVICES=0 vllm serve /data/models/llama --max-model-len 8192
