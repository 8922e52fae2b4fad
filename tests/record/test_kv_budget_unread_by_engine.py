"""--kv-budget-gib (engine.kv_budget_gib) is read by the plain arithmetic and by vLLM (as its
--kv-cache-memory-bytes) only: SGLang, TensorRT-LLM and transformers size their own pool, so the
flag is refused for them and a file's value is noted as not used.

Found by task h90review: `kvplan size llama-3-8b --engine sglang --kv-budget-gib 60` printed a
50 GiB pool (412,841 tokens, SGLang 0.5.23's own on an H100) with no word of the 60 GiB, and
`kvplan fleet examples/support-chatbot.yaml --engine sglang` dropped the file's `kv_budget_gib: 60`
in silence (the record listed it, the plan did not read it)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.cli import app


@pytest.mark.parametrize("engine", ["sglang", "trtllm", "transformers"])
def test_flag_is_refused(engine: str):
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--engine", engine,
                                   "--kv-budget-gib", "60"])
    assert res.exit_code == 2, res.output
    assert res.stderr.splitlines() == [
        f"error: command line: engine.name {engine} (--kv-budget-gib): only ideal and vllm read "
        f"it (vllm as --kv-cache-memory-bytes), not {engine}: it sizes its own KV pool; give "
        "--memory-utilization to move it; drop the option"]


def test_file_value_is_noted_not_used():
    res = CliRunner().invoke(app, ["size", "examples/support-chatbot.yaml", "--engine", "sglang",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    assert ("note: examples/support-chatbot.yaml: engine.kv_budget_gib: only ideal and vllm read "
            "it (vllm as --kv-cache-memory-bytes), not sglang: it sizes its own KV pool; give "
            "--memory-utilization to move it, so it is not used") in res.stderr.splitlines()
    [row] = json.loads(res.stdout)["results"]
    # SGLang 0.5.23's pool for Llama-3-8B on an H100 at 16-token pages (the file's block_size)
    assert row["kv_budget_bytes"] == row["kv_cache_tokens"] * 131_072 != 60 * 2**30


@pytest.mark.parametrize("engine", ["ideal", "vllm"])
def test_ideal_and_vllm_still_read_it(engine: str):
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--engine", engine, "--context", "8192",
                                   "--kv-budget-gib", "60", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    assert row["kv_budget_bytes"] == 60 * 2**30 == 64_424_509_440
