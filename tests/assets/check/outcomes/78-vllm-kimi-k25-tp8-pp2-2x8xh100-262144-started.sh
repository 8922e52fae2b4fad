#!/usr/bin/env bash
# Source: https://github.com/vllm-project/recipes/pull/395 ("Verify Kimi-K2.5 on H100"), description by junwu168,
#   2026-04-25, "## Verified Run Evidence": "Model: `moonshotai/Kimi-K2.5`, served as `Kimi-K2.5`; Hardware: `2 nodes
#   x 8 NVIDIA H100 80GB`; Topology: one head node and one worker node; Runtime image for the H100 run:
#   `vllm-openai:v0.18.0`; Parallelism: `--distributed-executor-backend mp --tensor-parallel-size 8
#   --pipeline-parallel-size 2 --nnodes 2`; Context target: `--max-model-len 262144`; Vision encoder mode:
#   `--mm-encoder-tp-mode data`; Kubernetes status: launcher and worker `Ready`, `0` restarts; `/v1/models` returned
#   HTTP 200 with model id `Kimi-K2.5` and `max_model_len: 262144`": this server started and served, the outcome
#   recorded here.
# RECONSTRUCTED: the PR lists the run's settings, not its command line (the recipe diff in the review thread shows, one
#   per line, `--distributed-executor-backend mp`, `--tensor-parallel-size 8`, `--pipeline-parallel-size 2`,
#   `--nnodes 2`, `--node-rank 0` and `--master-ad...`, cut there). The command below is the head node's: a `docker run` of the run's
#   image (vllm/vllm-openai, the official repository of the tag `vllm-openai:v0.18.0`) whose arguments are the
#   PR's, in the diff's order, with `--served-model-name` for "served as `Kimi-K2.5`"; the worker node runs the same
#   with `--node-rank 1`. The RDMA/NCCL environment the PR mentions is left out, as the recipe leaves it.
# GPU: "2 nodes x 8 NVIDIA H100 80GB" -> 78-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: vLLM 0.18.0 (the image tag, carried by the docker run).
docker run --gpus all --ipc=host --network host vllm/vllm-openai:v0.18.0 \
  moonshotai/Kimi-K2.5 \
  --served-model-name Kimi-K2.5 \
  --distributed-executor-backend mp \
  --tensor-parallel-size 8 \
  --pipeline-parallel-size 2 \
  --nnodes 2 \
  --node-rank 0 \
  --master-addr "$HEAD_IP" \
  --max-model-len 262144 \
  --mm-encoder-tp-mode data
