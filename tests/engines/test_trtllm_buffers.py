"""The C++ executor's runtime buffers and decoder (kvplan/engines/trtllm_buffers.py, task h30trt).

Bytes by hand from the terms read in TensorRT-LLM's source (TrtGptModelInflightBatching's
createBuffers and createDecoder, before createKvCacheManager): per slot, vocab x (4 B fp32 logits
+ 12 B fp32 top-p workspace) + max_seq_len x (3 x 4 B int32 cache indirections + 16 B decoder
outputs); low with a 16-bit logits type (2 + 10 B a vocabulary entry); high with the decoding
workspace's logits copy and CUB's alternate sort buffers (4 + 12 + 4 + 8 B).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.calibrate.parse import parse_text
from kvplan.cli import app
from kvplan.engines.interface import Interval
from kvplan.engines.trtllm_buffers import default_max_batch_size, executor_buffers, vocab_padded
from kvplan.units import GIB

# Log 251: TensorRT-LLM 0.16.0, Llama-3.1-70B (vocab 128,256) at TP 8, max_batch_size 2,048,
# max_seq_len 25,000; it prints "Allocated 1.63 GB ... runtime buffers" and "3.30 GB ... decoder"
# (MemoryCounters' GB is GiB).
RUNTIME_251 = 2_048 * (128_256 * 4 + 25_000 * 3 * 4)  # logits + cache indirections
DECODER_251 = 2_048 * (25_000 * 16 + 128_256 * (4 + 4 + 4))  # outputs + fp32 top-p workspace


def test_log_251_terms_by_hand() -> None:
    assert RUNTIME_251 == 1_665_073_152 and DECODER_251 == 3_971_219_456
    b = executor_buffers((0, 16, 0), False, 128_256, 8, 2_048, 25_000)
    assert b is not None
    assert b.runtime == Interval(1_665_073_152, 2_048 * (128_256 * 2 + 300_000), 1_665_073_152)
    assert b.decoder == Interval(3_971_219_456, 2_048 * (400_000 + 128_256 * 10),
                                 2_048 * (400_000 + 128_256 * 24))
    assert b.total == Interval(5_636_292_608, 4_585_619_456, 8_788_312_064)
    # the printed 1.63 + 3.30 GiB lie inside the range (best 1.55 + 3.70 GiB)
    printed = int((1.63 + 3.30) * GIB)
    assert b.total.low < printed < b.total.high
    assert round(b.runtime.best / GIB, 2) == 1.55 and round(b.decoder.best / GIB, 2) == 3.70


def test_vocab_is_padded_to_the_world_size() -> None:
    # ModelConfig::getVocabSizePadded(mWorldConfig.getSize()): ceil(vocab / world) x world, the
    # world being tp x pp
    assert vocab_padded(32_001, 2) == 32_002 and vocab_padded(32_000, 2) == 32_000
    assert vocab_padded(151_936, 1) == 151_936 and vocab_padded(49_153, 8) == 49_160
    b = executor_buffers((0, 16), False, 32_001, 2, 1, 10)
    assert b is not None and b.runtime.best == 32_002 * 4 + 10 * 12
    # through the engine: Granite-3.1-8B's 49,155 entries at TP 2 pad to 49,156
    argv = ["explain", "granite-3.1-8b", "--engine", "trtllm", "--engine-version", "0.16.0", "-g",
            "h100", "--tp", "2", "--max-batch-size", "1", "--max-seq-len", "4096", "-f", "json"]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    [step] = [s for s in row["steps"] if s["label"] == "runtime buffers and decoder"]
    assert step["value"] == 49_156 * 16 + 4_096 * 28 == 901_184


def test_which_runs_book_it_and_the_default_slots() -> None:
    # the PyTorch backend and engine releases before 0.11 (GptSession; no such lines) do not
    assert executor_buffers((1, 2, 1), True, 128_256, 1, 64, 8_192) is None
    assert executor_buffers((0, 8, 0), False, 128_256, 1, 64, 2_048) is None
    assert executor_buffers((0, 10, 0), False, 128_256, 1, None, 2_048) is None
    # trtllm-build's default max_batch_size: 256 from 0.11, 2,048 from 0.14 (release notes)
    assert [default_max_batch_size(v) for v in ((0, 10), (0, 11), (0, 13, 0), (0, 14), (1, 0))] \
        == [None, 256, 256, 2_048, 2_048]
    b = executor_buffers((0, 13, 0), False, 151_552, 1, None, 2_048)
    assert b is not None and (b.slots, b.slots_stated) == (256, False)
    assert b.total.best == 256 * (151_552 * 16 + 2_048 * 28) == 635_437_056
    assert "(trtllm-build default)" in b.how()


def test_cli_explain_books_the_term_before_the_fraction() -> None:
    argv = ["explain", "llama-3.1-70b", "--engine", "trtllm", "--engine-version", "0.16.0",
            "-g", "h100", "--tp", "8", "--weight-dtype", "fp8", "--kv-dtype", "fp8",
            "--free-gpu-memory-fraction", "0.9", "--block-size", "64", "--max-batch-size", "2048",
            "--max-num-tokens", "8192", "--max-seq-len", "25000", "-f", "json"]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: s for s in row["steps"]}
    assert steps["runtime buffers and decoder"]["value"] == RUNTIME_251 + DECODER_251
    assert "max_batch_size 2,048 x (vocab 128,256" in steps["runtime buffers and decoder"]["formula"]
    # free = 85,045,477,376 - 9,081,881,600 weights - 578,813,952 forward - 805,306,368
    #   - 5,636,292,608 = 68,943,182,848; floor(0.9 x) = 62,048,864,563 // 20,480 B a token
    #   (80 x 128 x 2 x 1 B) = 3,029,729 -> 47,340 blocks of 64 = 3,029,760 tokens
    assert steps["free memory"]["value"] == 85_045_477_376 - 9_081_881_600 - 578_813_952 \
        - 805_306_368 - 5_636_292_608 == 68_943_182_848
    assert steps["KV cache memory"]["value"] == 68_943_182_848 * 9 // 10 == 62_048_864_563
    assert steps["KV cache tokens"]["value"] == 47_340 * 64 == 3_029_760
    # 0.8 (GptSession, before the in-flight batcher's lines): no such step
    res = CliRunner().invoke(app, [*argv[:5], "0.8.0", *argv[6:]])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    assert "runtime buffers and decoder" not in {s["label"] for s in row["steps"]}


def test_calibrate_reads_the_tightest_ranks_available_line() -> None:
    # every rank pools the smallest max tokens (kvCacheManager.cpp: allreduce MIN); log 251's
    # ranks print 57.87 GiB once and 61.38-61.64 GiB seven times, in any order
    line = ("[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: "
            "total: 79.10 GiB, available: {} GiB\n")
    for order in (("61.40", "57.87", "61.64"), ("57.87", "61.40"), ("61.64", "61.38")):
        text = "# engine: trtllm\n" + "".join(line.format(a) for a in order)
        run = parse_text(text, Path("x.log")).runs[0]
        assert run.values["available_gib"] == min(float(a) for a in order)
        assert run.values["total_gib"] == 79.10
        assert f"available: {min(order, key=float)} GiB" in run.lines["available_gib"][1]
