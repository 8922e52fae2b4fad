#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/16712 ("[Bug]: meta-llama/Llama-4-Scout-17B-16E-Instruct not
#   supported on VLLM, 2xH100 NVL 196GB"), description by bernardgut, 2025-04-16: "Running on 2xH100 NVL with the
#   latest master branch (16.04.2025) code." then an `extraArgs: [...]` list (below) and "I tried multile
#   combinations of the above parameters (including the ones commented), all of which result in this
#   `VllmWorker rank=1 pid=254) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 1 has a
#   total capacity of 93.02 GiB of which 1.18 GiB is free. Process 2752205 has 91.82 GiB memory in use. Of the
#   allocated memory 90.63 GiB is allocated by PyTorch`".
# RECONSTRUCTED: the post gives the server's arguments as a list (a chart's `extraArgs`, the chart not named) and the
#   model only in its title. The command below is `vllm serve <the title's model>` followed by the list's four
#   uncommented entries, verbatim and in their order:
#     "--gpu-memory-utilization=0.99", "--max-model-len=1000", "--tensor-parallel-size=2", "--kv-cache-dtype=fp8"
#   The two commented entries ("--enforce-eager", "--max_num_seqs=1") are left out, as in the run quoted.
# GPU: "2xH100 NVL" (title and text; "total capacity of 93.02 GiB") -> 65-...kvplan.yaml names h100-nvl-94gb.
# Release: vLLM main of 2025-04-16 (the post); the script names no release.
vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --gpu-memory-utilization=0.99 --max-model-len=1000 --tensor-parallel-size=2 --kv-cache-dtype=fp8
