"""Whole-output goldens for every format. Regenerate with KVPLAN_REGEN_GOLDEN=1 and review the diff."""

from __future__ import annotations

import os

import pytest

from tests.conftest import GOLDEN, invoke

CASES = {
    "size-chatbot-table.txt": ["size", "llama-3-8b", "--gpu", "h100", "--context", "8192",
                               "--avg-context", "2000", "--kv-budget-gib", "60"],
    "size-sweep-table.txt": ["size", "llama-3-8b", "--gpu", "h100,h200", "--context", "8192",
                             "--avg-context", "2000", "--kv-dtype", "fp16,fp8",
                             "--allocation", "reserved,paged"],
    "size-sweep.csv": ["size", "llama-3-8b", "--gpu", "h100,h200", "--context", "8192",
                       "--avg-context", "2000", "--kv-dtype", "fp16,fp8", "-f", "csv"],
    "size-mistral.json": ["size", "mistral-7b-v0.1", "--gpu", "h200", "--context", "32768",
                          "--tp", "2", "-f", "json"],
    "size-70b-does-not-fit.txt": ["size", "llama-3.1-70b", "--gpu", "h100", "--context", "8192"],
    "fleet-chatbot-table.txt": ["fleet", "examples/support-chatbot.yaml"],
    "fleet-chatbot.csv": ["fleet", "examples/support-chatbot.yaml", "-f", "csv"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_whole_output(runner, name):
    result = invoke(runner, *CASES[name])
    assert result.exit_code == 0, result.output
    path = GOLDEN / name
    if os.environ.get("KVPLAN_REGEN_GOLDEN"):
        path.write_text(result.stdout)
    assert result.stdout == path.read_text()
