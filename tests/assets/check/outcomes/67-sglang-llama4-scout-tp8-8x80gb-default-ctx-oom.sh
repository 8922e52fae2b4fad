#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/5755 ("[Bug] Llama4 Scout will hit OOM during launch_server on
#   8 H200"), description by hebiao064, 2025-04-25: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate
#   80.04 GiB. GPU 3 has a total capacity of 79.10 GiB of which 20.08 GiB is free. Process 806478 has 59.01 GiB
#   memory in use. Of the allocated memory 56.90 GiB is allocated by PyTorch" ... "### Reproduction [the command
#   below]" ... "### Environment latest main of sglang".
# The command below is the post's, copied verbatim.
# GPU: the title says 8 H200; the error's own line says the GPU that ran out has "a total capacity of 79.10 GiB",
#   an 80 GB card (an H200 has 139.80 GiB in the catalog). The engine's figure is taken: 67-...kvplan.yaml names h100
#   (the catalog's 80 GB SXM, 79.20 GiB; no catalog card reads 79.10 exactly, h100-pcie-80gb's 79.11 is nearest).
#   Known before kvplan ran; see OUTCOMES.md.
# Release: "latest main of sglang" on 2025-04-25 (the post); the script names no release.
python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct --trust-remote-code --tp 8 --disable-cuda-graph
