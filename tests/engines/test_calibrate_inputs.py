"""Issue #13: calibrate reads what a log and its directives state, and nothing more."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.parse import parse_text
from kvplan.calibrate.resolve import _settings, resolve_gpu
from kvplan.engines import Engine
from kvplan.errors import InputError
from kvplan.units import GIB


def test_model_hint_drops_prose_punctuation() -> None:
    lf = parse_text("# model: Qwen/Qwen3-14B, bf16 (not in the catalog)\nGPU KV cache size: 1 tokens\n",
                    Path("x.log"))
    assert lf.runs[0].model_hint == "Qwen/Qwen3-14B"


def test_total_gib_directive_gives_the_gpu() -> None:
    lf = parse_text("# kvplan: total_gib=15.99\nAvailable KV cache memory: 8.0 GiB\n", Path("x.log"))
    gpu, how = resolve_gpu(lf.runs[0], Path("."))
    assert gpu is not None and gpu.memory_bytes == int(15.99 * GIB)
    assert how == "total 15.99 GiB from the log"


@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_a_bad_total_gib_directive_is_refused(value: str) -> None:
    with pytest.raises(InputError, match="total_gib"):
        parse_text(f"# kvplan: total_gib={value}\n", Path("x.log"))


def test_the_logged_default_batch_names_the_defaults_branch() -> None:
    # vLLM >= 0.9 picks 2,048 tokens with 256 sequences (GPUs under 70 GiB or A100) and 8,192
    # with 1,024 in one branch: a logged default of 2,048 means 256 sequences
    log = "Chunked prefill is enabled with max_num_batched_tokens=2048.\n"
    run = parse_text(log, Path("x.log")).runs[0]
    s = _settings(run, Engine.vllm, "0.13.0")
    assert (s.max_num_batched_tokens, s.max_num_seqs) == (2048, 256)
    big = parse_text(log.replace("2048", "8192"), Path("x.log")).runs[0]
    assert _settings(big, Engine.vllm, "0.13.0").max_num_seqs == 1024
    # a batch the user set (non-default args) says nothing about the branch
    flag = parse_text("non-default args: {'max_num_batched_tokens': 2048}\n" + log,
                      Path("x.log")).runs[0]
    assert _settings(flag, Engine.vllm, "0.13.0").max_num_seqs is None
    # before 0.9 the sequence default did not follow the GPU
    assert _settings(run, Engine.vllm, "0.8.5").max_num_seqs is None
