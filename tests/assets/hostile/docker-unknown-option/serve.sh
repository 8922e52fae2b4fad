# derived by mutation (task h70hostile, benchmarks/sweep.py: an unknown flag added) from
# tests/assets/check/outcomes/50-sglang-qwen3-next-80b-1xh20-torchao-oom.sh: line 15 passes docker run
# --kvplan-sweep-unknown, an option docker does not have
#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/10736 ("how to run Qwen3-Next-80B-A3B in a single H20
#   GPU", description by derwalldrose, 2025-09-22): "But always got memory error when try to run a qwen3",
#   then this command and `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a
#   total capacity of 95.08 GiB of which 1.27 GiB is free.`: the server failed at start, the outcome here.
# The command below is the post's, copied verbatim (one line in the post).
# GPU: "a single H20 GPU" (the title; "total capacity of 95.08 GiB") -> 50-...kvplan.yaml names h20 and the
#   model behind the folder `qwen3-next-80b` (the title: Qwen3-Next-80B-A3B; Instruct and Thinking share one
#   config.json shape).
# Release: the image tag `latest` of 2025-09-22 (not printed in the excerpt read; by date the 0.5.2/0.5.3
#   series): an inference, flagged in OUTCOMES.md.
docker run --gpus all -d  --kvplan-sweep-unknown --shm-size 96g --restart always -e NVIDIA_DISABLE_REQUIRE=1     -p 30000:30000     -v /data/hugface:/root/.cache/huggingface         --ipc=host     lmsysorg/sglang:latest     python3 -m sglang.launch_server --model-path qwen3-next-80b --host 0.0.0.0 --trust-remote-code --port 30000 --torchao-config int8dq --disable-cuda-graph
