#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/pull/2707 ("Included multi-node DeepSeekv3 example"), description by
#   roG0d, 2025-01-02: "Include an actual DeepSeek v3 multinode example and a testing workload in 2 nodes with 8xH200 GPUs
#   each." The example it added to benchmark/deepseek_v3/README.md ("Example: Serving with two H200*8 nodes and docker")
#   launches the server on both nodes and then "To ensure functionality, we include a test from a client Docker
#   container" (sglang.bench_serving against the server). This server started and served, the outcome recorded here.
# The command below is node 1's, copied verbatim from the README as stored at sgl-project/sglang commit
#   0006053c1f740de8041eae003f507a38912b96c2 (the README section the PR added; the PR's own diff, in the excerpt read,
#   cuts off after `--tp 16 --nccl-in`, the option SGLang later named --dist-init-addr).
# GPU: "2 nodes with 8xH200 GPUs each" -> 115-...kvplan.yaml names h200.
# Release: the image tag `latest` of January 2025 (0.4.1 series by date), carried by the docker run.
docker run --gpus all \
    --shm-size 32g \
    --network=host \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    --name sglang_multinode1 \
    -it \
    --rm \
    --env "HF_TOKEN=$HF_TOKEN" \
    --ipc=host \
    lmsysorg/sglang:latest \
    python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 192.168.114.10:20000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 40000
