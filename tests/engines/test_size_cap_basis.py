"""`kvplan size`'s headline names an engine's sequence cap as its basis where the cap binds (the
h92docs pass saw SGLang's speculative default of 48 printed as "48 (mean)" and "48 (worst case)"
while fleet said "(sequence cap)")."""

from __future__ import annotations

import json

from tests.conftest import invoke


def _row(runner, *args: str) -> dict:
    result = invoke(runner, "size", "llama-3.1-8b", "--gpu", "h100", "--context", "8192",
                    *args, "-f", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"][0]


def test_sglang_speculative_default_is_the_basis(runner) -> None:
    row = _row(runner, "--engine", "sglang", "--avg-context", "2000",
               "--speculative-algorithm", "NGRAM")
    assert (row["users_per_gpu"], row["users_per_gpu_basis"]) == (48, "max_num_seqs")


def test_vllm_max_num_seqs_is_the_basis(runner) -> None:
    row = _row(runner, "--engine", "vllm", "--max-num-seqs", "8")
    assert (row["users_per_gpu"], row["users_per_gpu_basis"]) == (8, "max_num_seqs")


def test_an_uncapped_plan_keeps_its_basis(runner) -> None:
    row = _row(runner, "--engine", "vllm")
    assert row["users_per_gpu_basis"] == "worst_case" and row["users_per_gpu"] > 8
    table = invoke(runner, "size", "llama-3.1-8b", "--gpu", "h100", "--context", "8192",
                   "--engine", "vllm", "--max-num-seqs", "8")
    assert "Users per GPU      8 (sequence cap)" in table.stdout
