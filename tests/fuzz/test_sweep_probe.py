"""benchmarks/sweep.py's unknown-option probe (`--kvplan-sweep-unknown 7`, judged "silent" when
kvplan's output never names it) goes only into live code and arguments (task h80shell): it was
inserted before any `--flag value` in the text, comments, docstrings and heredoc bodies included,
which kvplan rightly does not read (16 of the sweep's 18 false positives of the stop before).
Over the script inputs under tests/assets, 60 of the 118 with a flag hold one in such text."""

from __future__ import annotations

import json
import random

import pytest

from benchmarks.sweep import ASSETS
from benchmarks.sweep_mutants import FLAG, PROBE, live_flags, text_mutants

SHELL = """#!/bin/bash
# vllm serve M --max-model-len 4096
cat > notes.txt <<EOF
run with --port 9000
EOF
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192
"""
PYTHON = '''"""Start it: python serve.py --tp 2"""
import subprocess

# old: --max-model-len 4096
subprocess.run(["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                "--max-model-len 8192"])
'''


def _probes(text: str, suffix: str) -> list[str]:
    """The line the probe lands on, over 30 seeds (one unknown mutant per run)."""
    lines = []
    for seed in range(30):
        for what, mutation, _, mutated in text_mutants(text, random.Random(seed), suffix):
            if (what, mutation) == ("--kvplan-sweep-unknown", "unknown"):
                lines.append(next(line for line in mutated.splitlines() if PROBE in line))
    return lines


@pytest.mark.parametrize(("text", "suffix", "line"), [
    (SHELL, ".sh", "vllm serve meta-llama/Llama-3.1-8B-Instruct " + PROBE
     + "--max-model-len 8192"),
    (PYTHON, ".py", '                "' + PROBE + '--max-model-len 8192"])'),
])
def test_the_probe_goes_into_live_code_only(text: str, suffix: str, line: str) -> None:
    assert len(list(FLAG.finditer(text))) == 3  # a comment's, a heredoc's / docstring's, live
    probes = _probes(text, suffix)
    assert len(probes) == 30 and set(probes) == {line}


def test_no_probe_where_every_flag_is_text() -> None:
    """check/python/round2/vllm-llama31-70b-argparse-tp.py: its one `--flag value` is the comment
    `# python run_llama_on_gpus.py --gpu_count 4` (the argparse spelling `"--gpu_count", type=`
    is no FLAG match): the probe went there on every run, and was flagged silent."""
    path = ASSETS / "check/python/round2/vllm-llama31-70b-argparse-tp.py"
    text = path.read_text(encoding="utf-8")
    assert [m.group(0) for m in FLAG.finditer(text)] == ["--gpu_count 4"]
    assert _probes(text, ".py") == []
    assert _probes("# vllm serve M --max-model-len 4096\n", ".sh") == []


def test_a_notebooks_probe_goes_into_a_code_cell() -> None:
    book = {"cells": [
        {"cell_type": "markdown", "source": ["Run `vllm serve M --port 9000` in a terminal.\n"]},
        {"cell_type": "code", "source": ["# --max-model-len 4096 was too small\n",
                                         "!vllm serve M --max-model-len 8192\n"]},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(book, indent=1)
    flags = list(FLAG.finditer(text))
    assert [m.group(1) for m in flags] == ["--port", "--max-model-len", "--max-model-len"]
    assert [m.group(0) for m in live_flags(text, flags, ".ipynb")] == ["--max-model-len 8192"]
    probes = _probes(text, ".ipynb")
    assert len(probes) == 30
    for line in probes:
        assert line.strip() == json.dumps(f"!vllm serve M {PROBE}--max-model-len 8192\n")
