#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/5458, description by javi111717, 2024-06: g5.12xlarge (4 A10G);
#   `python -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B-Instruct --download-dir
#   /mnt/nvme/models/ --host 0.0.0.0 --port 8000 --disable-custom-all-reduce --enforce-eager`: "everything works fine";
#   with `--tensor-parallel-size 4` "the model does not finish loading and the server crashes after about 10 minutes".
# Version: not named; 0.5.0 by the date (RECONSTRUCTED pip pin). GPU: g5.12xlarge's A10G -> side file a10g.
# RECONSTRUCTED: the post's TP-4 command is cut; it is written as the TP-1 command plus --tensor-parallel-size 4.
pip install vllm==0.5.0
python -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B-Instruct --download-dir /mnt/nvme/models/ --host 0.0.0.0 --port 8000 --disable-custom-all-reduce --enforce-eager --tensor-parallel-size 4
