#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/6017 ("Instruction for Running DeepSeek with Large-scale PD
#   and EP"), comment by ltm920716, 2025-05-09, answering "Could you please provide your running commands?": "hi
#   @ch-wan [the commands below] and I run the command with one H100, it raises oom, can you please tell what param
#   should I set to run the prefill worker with one node?": this prefill server failed at start (out of memory), the
#   outcome recorded here.
# The commands below are the comment's, copied verbatim (the six exports and the one-line launch).
# GPU: "one H100" (the comment; the variant is not stated; the command's --tp-size is $((1*4)) = 4 GPUs of it)
#   -> 73-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Model: the folder /data/model; the thread is the instructions for DeepSeek with PD and EP (DeepSeek-V3 and R1 share
#   one shape: 671e9 fp8 parameters, MLA) -> 73-...kvplan.yaml names deepseek-ai/DeepSeek-V3 (an inference from the
#   thread; the comment names no checkpoint).
# Release: not stated in the excerpt read; by date (2025-05-09) SGLang 0.4.6.post2/post3 or main of that week (an
#   inference). The script names no release.
export model_path=/data/model
export device_name="mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8"
export node_ip="traingpt-trainjob-0-0.traingpt"
export master_ip="traingpt-trainjob-0-0.traingpt"
export node_rank="0"
export num_prefill="1"

MC_TE_METRIC=true SGLANG_HACK_DEEPEP_NEW_MODE=0 SGL_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server --model-path ${model_path} --disaggregation-mode prefill --disaggregation-ib-device ${device_name} --host ${node_ip} --trust-remote-code --dist-init-addr ${master_ip}:5757 --nnodes ${num_prefill} --node-rank ${node_rank} --tp-size $((${num_prefill}*4)) --dp-size $((${num_prefill}*4)) --enable-dp-attention --enable-deepep-moe --deepep-mode normal --mem-fraction-static 0.85 --chunked-prefill-size $((${num_prefill}*16384)) --max-running-requests $((${num_prefill}*2048)) --max-total-tokens 16384 --context-length 8192 --init-expert-location /sgl-workspace/attachment_ep_statistics/prefill_in1024.json --ep-num-redundant-experts 8 --enable-two-batch-overlap --moe-dense-tp-size 1 --disable-radix-cache --ep-dispatch-algorithm random
