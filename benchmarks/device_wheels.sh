#!/usr/bin/env bash
# Fetch, on a machine that reaches PyPI, the wheels kvplan needs beside torch and transformers,
# for a GPU machine that cannot reach PyPI but has them (Python 3.12, x86-64, as the NVIDIA
# images with PyTorch do). They land in .whl/ (git-ignored):
#
#   bash benchmarks/device_wheels.sh [PYTHON_VERSION]          (default 3.12)
#
# Then, on the GPU machine, from the checkout (no network needed; kvplan runs from the source):
#
#   python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
#     && PYTHONPATH=/tmp/site:$PWD PY=python3 bash benchmarks/measure_gpu.sh /tmp/measure
#
# The versions are the ones the test suite ran with (pydantic's and typer's minimums are above
# what such images tend to carry, and pydantic is often missing altogether).
set -euo pipefail
cd "$(dirname "$0")/.."
PYV=${1:-3.12}
rm -rf .whl && mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl \
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 \
  typing-extensions==4.16.0 typer==0.28.0 rich==15.0.0 annotated-doc shellingham \
  markdown-it-py mdurl pygments pyyaml
ls -1 .whl
du -sh .whl
