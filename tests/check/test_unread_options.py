"""Options a command line gives that kvplan neither maps nor notes are named in one note per engine
command (task h43capsz; kvplan.check.manifests.unread); those that do move GPU memory (LoRA) get a
reason each, from vLLM 0.30.0's and SGLang 0.5.21's source."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.manifests.unread import unread_note
from kvplan.cli import app


def _check(tmp_path: Path, line: str) -> tuple[int, str]:
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/sh\n{line}\n")
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, res.output


def test_one_note_lists_the_unread_options_sorted():
    assert unread_note([]) is None
    assert unread_note(["--port", "--host", "--port"]) == (
        "not used by kvplan's plan: --host, --port (kvplan reads the options docs/check.md "
        "lists; these are taken as not moving the KV pool)")


def test_vllm_unread_options_and_lora_reasons(tmp_path: Path):
    code, out = _check(tmp_path, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len "
                       "8192 --port 8000 --host 0.0.0.0 --enable-lora --max-loras 2 "
                       "--max-lora-rank 32 --max-cpu-loras 4")
    assert code == 0, out
    assert out.count("not used by kvplan's plan") == 1
    assert "not used by kvplan's plan: --host, --port (" in out
    assert "--enable-lora: vLLM then holds every LoRA-wrapped layer's adapter stacks" in out
    assert "--max-loras: the LoRA adapters a batch holds" in out
    assert "--max-lora-rank: the rank of the LoRA stacks" in out
    assert "--max-cpu-loras: LoRA adapters cached in host memory" in out
    # the pool is what it is without them: 489,376 tokens (tests/check/test_capture_options.py)
    assert "(489,376 tokens in the pool)" in out


def test_mm_encoder_tp_mode_is_a_reason_not_a_silence(tmp_path: Path):
    # it was listed as "taken as not moving the KV pool", though 'data' puts the whole vision
    # tower on every GPU (models/vision.py:142-156 in 0.27.1): now its reason, not modelled
    code, out = _check(tmp_path, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len "
                       "8192 --mm-encoder-tp-mode data")
    assert code == 0, out
    assert "not used by kvplan's plan" not in out, out
    assert ("--mm-encoder-tp-mode: with 'data' vLLM holds the whole vision tower on every GPU "
            "(disable_tp, models/vision.py:142-156 in 0.27.1)") in out
    assert "(1 - 1/TP) of the tower and the pool smaller (not modelled)" in out


def test_options_kvplan_reads_are_not_listed(tmp_path: Path):
    code, out = _check(tmp_path, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len "
                       "8192 --max-num-seqs 64 --gpu-memory-utilization 0.85")
    assert code == 0 and "not used by kvplan's plan" not in out, out


def test_sglang_lora_is_a_reason_not_a_silence(tmp_path: Path):
    code, out = _check(tmp_path, "python -m sglang.launch_server --model-path "
                       "meta-llama/Llama-3.1-8B-Instruct --context-length 8192 --enable-lora "
                       "--max-loras-per-batch 4 --port 30000")
    assert code == 0, out
    assert "--enable-lora: SGLang then allocates its LoRA memory pool" in out
    assert "--max-loras-per-batch: the adapters SGLang's LoRA pool holds" in out
    assert "not used by kvplan's plan: --port (" in out
