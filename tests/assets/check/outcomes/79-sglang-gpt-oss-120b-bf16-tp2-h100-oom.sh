#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/8833 ("[Tracking] OpenAI gpt-oss Day 0 Support"), comment by
#   bmkor, 2025-08-06: "Tried to run `lmsys/gpt-oss-120b-bf16` via docker `lmsysorg/sglang:v0.4.10.post2-cu126` but in
#   vain. I upgraded the transformers in the docker using `pip3 install transformers --upgrade` successfully. And then
#   run the following shell script in our H100: [the command below] And the got the OOM error: torch.OutOfMemoryError:
#   CUDA out of memory. Tried to allocate 1.98 GiB. GPU 1 has a total capacity of 79.10 GiB of which 92.25 MiB is
#   free. ... Of the allocated memory 76.93 GiB is allocated by PyTorch": this server failed at start (out of memory),
#   the outcome recorded here.
# The command below is the comment's shell script, copied verbatim (backslash-continued as posted, `&& docker logs
#   sglang_gpt -f` included). The transformers upgrade inside the container is not in the script.
# GPU: "our H100", "GPU 1 has a total capacity of 79.10 GiB" (an 80 GB card; four devices exposed, TP 2 uses two)
#   -> 79-...kvplan.yaml names h100 (the catalog's SXM 80GB).
# Release: SGLang 0.4.10.post2 (the image tag lmsysorg/sglang:v0.4.10.post2-cu126-1, carried by the docker run).
docker run -d --gpus '"device=1,2,3,4"' \
    --network=host \
    -v /data/.cache/huggingface:/root/.cache/huggingface \
    --name sglang_gpt \
    -it \
    --rm \
    -e SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 \
    --ipc=host \
    lmsysorg/sglang:v0.4.10.post2-cu126-1 \
    python3 -m sglang.launch_server --model-path lmsys/gpt-oss-120b-bf16 --tp 2 --trust-remote-code --mem-fraction-static 0.7 --host 0.0.0.0 --port 40000 && docker logs sglang_gpt -f
