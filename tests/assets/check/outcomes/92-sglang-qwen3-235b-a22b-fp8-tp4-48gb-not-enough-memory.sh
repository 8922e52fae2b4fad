#!/usr/bin/env bash
# Source: https://github.com/sgl-project/sglang/issues/5858 ("[Tracker] Qwen 3 deployment"), description by zhyncs,
#   2025-04-28 (`pip3 install "sglang[all]>=0.4.6.post2"` and three launch commands, the second of them below), and
#   the comment by su400, 2025-04-29: "I have 8 48GB GPUs, but there is insufficient video memory at - tp 4 and program
#   error at - tp 8. Is there any other way? I'm using the latest SGLANG". This server failed at start at TP 4
#   (memory), the outcome recorded here; file 93 is the same comment's TP 8.
# RECONSTRUCTED: the comment names the model and the TP size, not its command line; the command below is the tracker's
#   own command for that model at TP 4 (the description's second command), copied verbatim.
# GPU: "8 48GB GPUs" (not named) -> 92-...kvplan.yaml names l20, one 48 GB card of the catalog (an inference; the
#   catalog's other 48 GB cards, l40, l40s, a40, rtx-6000-ada and rtx-a6000, hold as much or less).
# Release: "the latest SGLANG" of 2025-04-29 (0.4.6.post1 / post2 by date, an inference). The script names no release.
python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 4 --reasoning-parser qwen3
