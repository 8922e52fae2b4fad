#!/usr/bin/env bash
# synthetic (task h43scripts): a build step run in a subshell from a sub-folder, then the server
# started from the script's own folder; the subshell's cd ends at its `)`, so the server's
# --config is configs/serve.yaml (TP 4), not kernels/configs/serve.yaml (TP 1)
# (recreated by the lead under buildsteps/: the first copy sat in a folder named build/, which
# the repository's .gitignore leaves out, so it was never committed)
set -euo pipefail
cd "$(dirname "$0")"
( cd kernels && pip install -e . )

vllm serve meta-llama/Llama-3.1-70B-Instruct --config configs/serve.yaml
