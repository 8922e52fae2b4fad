#!/bin/bash
# synthetic (task h41shell): the model comes from a variable the script never sets
vllm serve ${MODEL} --tensor-parallel-size 1
