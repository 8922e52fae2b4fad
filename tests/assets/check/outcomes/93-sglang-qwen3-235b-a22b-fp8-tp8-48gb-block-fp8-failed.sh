#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/5858 ("[Tracker] Qwen 3 deployment"), the comment by su400,
#   2025-04-29: "I have 8 48GB GPUs, but there is insufficient video memory at - tp 4 and program error at - tp 8."; in
#   the same thread tallate, 2025-04-29: "Why need to set tp=4 to run Qwen3-235B-A22B-FP8? I encountered the following
#   error when running tp=8" (a screenshot) and zhyncs, 2025-04-29: "Qwen 3 FP8 uses block wise FP8". This server failed
#   at start at TP 8 (an error, not memory), the outcome recorded here.
# RECONSTRUCTED: the tracker's TP 4 command for this model (file 92) with `--tp 8`, the TP size the comment names;
#   nothing else differs.
# GPU: "8 48GB GPUs" (not named) -> 93-...kvplan.yaml names l20 (an inference, as file 92).
# Release: as file 92 (0.4.6.post1 / post2 by date, an inference). The script names no release.
python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 8 --reasoning-parser qwen3
