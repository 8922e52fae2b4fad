"""A sample of benchmarks/sweep.py (mutated real inputs through the commands that read them):
a Kubernetes manifest, a launch script, a config.json and an engine log, a fixed seed, one key
path per document, the first 12 mutants of each. No run may end in exit 3, an uncaught
exception, a traceback, more than 2 CPU seconds, or a value of the wrong type read in silence.
The whole sweep stays a script (hours on two cores).
"""

from __future__ import annotations

import itertools
import random

import pytest
from typer.testing import CliRunner

from benchmarks.sweep import ASSETS, Workspace, inputs, judge, mutants_of, run, write
from kvplan.cli import app

PER_FILE = 12
# (file under tests/assets, the one command run on each of its mutants)
SAMPLE = [
    ("check/k8s/sglang-pass.yaml", ("check", "FILE")),
    ("check/scripts/synthetic/variables.sh", ("check", "FILE")),
    ("hf_configs/gemma-7b.json", ("import", "FILE")),
    ("logs/01-vllm-llama3.1-8b-rtx3090-v0.log", ("calibrate", "FILE")),
]


@pytest.mark.parametrize(("rel", "command"), SAMPLE, ids=[s[0].split("/")[-1] for s in SAMPLE])
def test_sampled_mutants_of_a_real_input_are_refused_or_read(rel: str, command: tuple[str, ...]
                                                             ) -> None:
    src = ASSETS / rel
    item = next(i for i in inputs(rel) if i.path == src)
    assert command in item.commands  # the sweep runs this command on this kind of file
    made = mutants_of(item, src.read_text(encoding="utf-8"), 1, random.Random(51))
    assert made is not None
    base_text, mutants = made
    runner = CliRunner()
    ws = Workspace(item)
    try:
        write(ws.target, base_text)
        base = run(runner, app, ws.argv(command))
        assert base.code in (0, 1), base.output  # the unmutated file is read
        tried = 0
        for dotted, mutation, otype, text in itertools.islice(mutants, PER_FILE):
            write(ws.target, text)
            out = run(runner, app, ws.argv(command))
            hits = judge(out, base, mutation, otype, dotted, item.kind, ws.tmp, 2.0)
            assert not hits, f"{hits} {dotted} {mutation}: exit {out.code}\n{out.output[-800:]}"
            tried += 1
        assert tried == PER_FILE  # each file makes more than 12 (a YAML/JSON key path: 14)
    finally:
        ws.close()
