#!/usr/bin/env bash
# Source: https://github.com/vllm-project/vllm/issues/15092 ("[Usage]: The difference between 0.7.3 and 0.8.0"),
#   description by c1player, 2025-03-19: "for the same command "vllm serve ./Qwen2.5-32B-Instruct/ --tensor-parallel-size
#   4"(4*4090) I can run this command with vllm 0.7.3,but can't with vllm 0.8.0."; comment by c1player, 2025-03-19: "When
#   I use the command above with vllm 0.8.0,it will prompt that there is not enough memory, and the program will exit."
#   This run (0.8.0) did not start, the outcome recorded here (the error's own words are not quoted in the thread).
# RECONSTRUCTED: the `vllm serve` line is the post's, verbatim; the `pip install vllm==0.8.0` line above it is not in the
#   post: it writes the release the post names for this run (the only difference from file 107) in the form kvplan
#   reads as the installed release.
# GPU: "(4*4090)" -> 108-...kvplan.yaml names rtx-4090.
# Model: the folder ./Qwen2.5-32B-Instruct/ -> the side file names Qwen/Qwen2.5-32B-Instruct.
pip install vllm==0.8.0
vllm serve ./Qwen2.5-32B-Instruct/ --tensor-parallel-size 4
