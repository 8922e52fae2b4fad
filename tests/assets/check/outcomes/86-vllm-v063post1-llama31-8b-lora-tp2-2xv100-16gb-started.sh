#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/11251 ("[Bug]: torch.OutOfMemoryError for 0.6.4.post1 but
#   0.6.3.post1 is working"), description by mces89, 2024-12-16: "I'm using v100x2(16gx2) to serve the llama3.1 8B
#   model, but i do observe some wired memory phenomenons across 0.6.3.post1 and 0.6.4.post1: 1. the 0.6.4.post1
#   takes more gpu memory(90% v.s. 80%) when using the following command to launch ... The command i use is(with just
#   1 lora module): [the command] 2. if a send a long context prompt, like nearly 40000 as shown above, the 0.6.3.post1
#   can work, but 0.6.4.post1 failed with torch.OutOfMemoryError. Even though the 0.6.3.post1 showed fewer gpu kv
#   blocks(about 3000) v.s. 0.6.4.post1(about 5000)": under both releases this server started and served (the
#   0.6.4.post1 OOM came later, with a ~40,000-token request), the outcome recorded here. File 87 is the same
#   command under the other release.
# RECONSTRUCTED from the post's `CMD="docker run ..."` string: the docker run itself, its lines and arguments in the
#   post's order, with the post's image tag `vllm/vllm-openai:v0.6.x.post1` written for one release (x = 3) and
#   its escaped `\\` line ends as `\`. The variables stay as posted: the post sets none (${MODEL_PATH} is
#   "the llama3.1 8B model", named in the side file as the catalog's llama-3.1-8b; the LoRA module list and
#   the port are not given).
# GPU: "v100x2(16gx2)" (two 16 GB V100s; SXM2 or PCIe is not stated) -> 86-...kvplan.yaml names v100-sxm2-16gb.
# Release: vLLM 0.6.3.post1 (the image tag, carried by the docker run).
docker run --gpus all \
    -p ${DEFAULT_PORT}:${DEFAULT_PORT} \
    --ipc=host \
    vllm/vllm-openai:v0.6.3.post1 \
    --model ${MODEL_PATH} \
    --dtype float16 \
    --tensor-parallel_size 2 \
    --gpu-memory-utilization 0.98 \
    --max_model_len 40000 \
    --seed 23 \
    --max-seq-len-to-capture 40000 \
    --port ${DEFAULT_PORT} \
    --disable-log-requests \
    --enable-lora \
    --fully-sharded-loras \
    --max-lora-rank 16 \
    --max-loras ${NUM_LORAS} \
    --lora-modules ${LORA_MODULES}
