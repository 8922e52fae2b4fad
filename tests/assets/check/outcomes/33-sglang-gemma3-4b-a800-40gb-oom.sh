#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/4708 ("OOM when deploying gemma-3 on 8 x A800 (40G)
#   [Bug]", description by xin-ran-w, 2025-03-24), section "### Reproduction".
# The command below is that section's, copied verbatim, including its missing interpreter (the post's
#   "-m sglang.launch_server" has no `python` before it; the log the post shows,
#   "server_args=ServerArgs(model_path='/home/diaomuxi/model_zoo/gemma-3-4b-it', ... mem_fraction_static=0.88,
#   ... chunked_prefill_size=8192, ... tp_size=1", is what `python -m sglang.launch_server` printed).
# GPU: check_env "GPU 0,1,2,3,4,5,6,7: NVIDIA A800-SXM4-40GB" (one used: CUDA_VISIBLE_DEVICES=0)
#   -> 33-...kvplan.yaml names a100-40gb (the catalog has no A800 40GB; the A100-SXM4-40GB has the same
#   40 GB). The model is a folder, named there by the Hugging Face id its name gives.
# Release: SGLang 0.4.4.post1 (check_env "sglang: 0.4.4.post1"; no container, the script names no release).
CUDA_VISIBLE_DEVICES=0 -m sglang.launch_server \
    --model-path /home/diaomuxi/model_zoo/gemma-3-4b-it \
    --chat-template=gemma-it
