#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/7006 ("[Bug] Qwen3-32B-FP8 - 2 GPU"), description by
#   ksecurity45, 2025-06-09: "This is my command to launch `sglang` to serve `Qwen3-32B-FP8`: [the command below]
#   This is output error: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 26.00 MiB. GPU 1 has a total
#   capacity of 15.77 GiB of which 44.44 MiB is free. Including non-PyTorch memory, this process has 14.05 GiB memory
#   in use.": this server failed at start, the outcome recorded here.
# The command below is the post's, copied verbatim (the `export` line and the backslash-continued launch, without
#   the shell prompt `(sglang-env) root@goldenimage /h/u/#` that precedes them).
# GPU: not named in the excerpt read. The error's "total capacity of 15.77 GiB" is a 16 GB card; the only catalog
#   card that reads 15.77 GiB is the 16 GB V100 (v100-sxm2-16gb) -> 71-...kvplan.yaml names it (an inference; see
#   OUTCOMES.md, round 8 ambiguities). The model behind the folder `mymodels`: the title's Qwen3-32B-FP8 (side file).
# Release: not stated in the excerpt read; by date (2025-06-09) SGLang 0.4.6.post5 / 0.4.7 (an inference). The
#   script names no release.
export CUDA_VISIBLE_DEVICES=0,1
python -m sglang.launch_server \
      --model-path mymodels \
      --tp-size 2 \
      --port 30000 --host 0.0.0.0
