#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/445 ("OOM CUDA error on 8 * L4 machine when launching sglang
#   server"), description by mounamokaddem, 2024-05-15: "I m trying launching a sglang server with [OpenBioLLM 70b]
#   (https://huggingface.co/aaditya/Llama3-OpenBioLLM-70B) with the command [the command below] but I got on the 2
#   issues: 1. It errors out with OOM CUDA, I tried playing around with all possible memory arguments but still have
#   the issue": this server failed at start (out of memory), the outcome recorded here. File 82 is the same post's
#   second command (--tp 8).
# The command below is the post's first command, copied verbatim (no --tp: SGLang's default tensor parallel size 1,
#   one of the machine's eight L4s).
# GPU: "8 * L4 machine" (title) -> 81-...kvplan.yaml names l4; the model behind the folder
#   ~/Llama3-OpenBioLLM-70B-Instruct there: aaditya/Llama3-OpenBioLLM-70B, a fine-tune of Llama 3 70B (its name and
#   the post's link), planned as the catalog's llama-3-70b (meta-llama/Meta-Llama-3-70B-Instruct): an inference,
#   flagged in OUTCOMES.md.
# Release: not stated; SGLang of mid-May 2024 (the 0.1.x series) by date (an inference). The script names no release.
python -m sglang.launch_server --model-path ~/Llama3-OpenBioLLM-70B-Instruct --port 30000
