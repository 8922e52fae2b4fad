#!/usr/bin/env bash
# Check kvplan's predictions on the local GPU: Llama-3-8B (full attention, GQA), Mistral-7B
# (sliding window) and a DeepSeek-V3-shaped model cut to two layers (MLA latent cache), each
# built with random weights directly on the GPU. Budget: 5 minutes for the three.
#
#   bash benchmarks/measure_gpu.sh [OUTDIR]        (default OUTDIR: benchmarks/results/<UTC stamp>)
#
# Needs kvplan with the measure extra (pip install -e ".[measure]") and a CUDA GPU; on a GPU
# machine that has torch and transformers but cannot reach PyPI, see benchmarks/device_wheels.sh
# (kvplan then runs from this checkout with PYTHONPATH and PY=python3). Writes, per model, the
# table (.txt), JSON and CSV, plus env.txt (date, GPU, driver, library versions) and exit codes;
# TARBALL=FILE also packs them into one .tar.gz. A model whose figures miss their prediction by more than --tolerance exits 1: the
# script records that and goes on; it exits non-zero itself only when a run could not complete
# (exit code other than 0 or 1).
set -uo pipefail

cd "$(dirname "$0")/.."
if [ -z "${PY:-}" ]; then
  PY=python3
  [ -x .venv/bin/python ] && PY=.venv/bin/python
fi
KVPLAN=("$PY" -m kvplan)
OUT=${1:-benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)}
TIME_LIMIT=${TIME_LIMIT:-60}     # seconds of searching and timing per model
TOLERANCE=${TOLERANCE:-10}       # percent
CONTEXT=${CONTEXT:-8192}
DEVICE=${DEVICE:-cuda}           # DEVICE=cpu RUNS="tiny-test-model|--kv-budget-gib 0.01"
                                 # CONTEXT=64 checks this script itself on a CPU
mkdir -p "$OUT"

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null \
    | sed 's/^/nvidia-smi: /'
  "$PY" - <<'EOF_PY'
import platform

import torch
import transformers

print("python:", platform.python_version())
print("torch:", torch.__version__, "cuda:", torch.version.cuda)
print("transformers:", transformers.__version__)
if torch.cuda.is_available():
    free, total = torch.cuda.mem_get_info()
    print("gpu:", torch.cuda.get_device_name(), "total_bytes:", total, "free_bytes:", free)
EOF_PY
} > "$OUT/env.txt"
cat "$OUT/env.txt"

# name | extra arguments (RUNS, one per line, overrides the list)
if [ -n "${RUNS:-}" ]; then
  mapfile -t RUNS <<<"$RUNS"
else
  RUNS=(
    "llama-3-8b|"
    "mistral-7b-v0.1|"
    "deepseek-v3|--layers 2"
  )
fi
worst=0
start=$SECONDS
for run in "${RUNS[@]}"; do
  model=${run%%|*}
  extra=${run#*|}
  tag=$(basename "$model" .yaml)${extra:+-$(echo "$extra" | tr -cd 'a-z0-9')}
  echo "=== $tag (context $CONTEXT, time limit ${TIME_LIMIT}s, tolerance ${TOLERANCE}%)"
  t0=$SECONDS
  # shellcheck disable=SC2086
  "${KVPLAN[@]}" size "$model" --measure --device "$DEVICE" --context "$CONTEXT" $extra \
    --tolerance "$TOLERANCE" --time-limit "$TIME_LIMIT" -f json -o "$OUT/$tag.json"
  code=$?
  echo "$tag exit=$code seconds=$((SECONDS - t0))" | tee -a "$OUT/exit-codes.txt"
  if [ -s "$OUT/$tag.json" ]; then
    # the same report as a table and as CSV, rendered from the JSON (no second GPU run)
    "$PY" - "$OUT/$tag.json" "$OUT/$tag" <<'PY' || true
import json, sys
from kvplan.measure.compare import Check, Figure, MeasureReport
from kvplan.render import OutputFormat
from kvplan.render.measure import render

data = json.load(open(sys.argv[1]))
figs = [Figure(f["figure"], f["label"], f["unit"], f["predicted"], f["measured"],
               Check(f["check"]), f["note"]) for f in data["figures"]]
report = MeasureReport(
    data["model"], data["device"], data["device_name"], data["hardware"], data["versions"],
    data["weight_dtype"], data["context_tokens"], data["num_layers"], data["kv_budget_bytes"],
    data["kv_budget_source"], data["tolerance_pct"], figs, data["notes"], data["elapsed_s"],
    data.get("errors", []))
open(sys.argv[2] + ".txt", "w").write(render(OutputFormat.table, report, width=110))
open(sys.argv[2] + ".csv", "w").write(render(OutputFormat.csv, report))
print(open(sys.argv[2] + ".txt").read())
PY
  fi
  if [ "$code" -gt 1 ] && [ "$code" -gt "$worst" ]; then worst=$code; fi
done
echo "total seconds: $((SECONDS - start)); results in $OUT"
if [ -n "${TARBALL:-}" ]; then
  tar czf "$TARBALL" -C "$OUT" . && echo "packed into $TARBALL"
fi
exit "$worst"
