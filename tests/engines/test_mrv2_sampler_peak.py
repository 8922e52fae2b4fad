"""benchmarks/mrv2_sampler_peak.py: the live-byte peaks of Model Runner V2's profiling sampler
passes (issue #13), at a small shape where every byte is counted by hand."""

from __future__ import annotations

import pytest

from tests.engines.bench_scripts import load

pytest.importorskip("torch")

mod = load("mrv2_sampler_peak")

ROWS, VOCAB = 4, 2048  # 8,192 logits, 2 Gumbel blocks of 1,024
LOGITS_BF16 = ROWS * VOCAB * 2  # 16,384
FP32 = ROWS * VOCAB * 4  # 32,768
# gumbel: int64 argmax 4 x 2 x 8 = 64, fp32 max 4 x 2 x 4 = 32, argmax index 4 x 8 = 32,
# gathered token ids 4 x 8 = 32
GUMBEL = 64 + 32 + 32 + 32


def peak(name: str) -> int:
    return mod.peak_bytes(lambda: mod.PASSES[name](ROWS, VOCAB))


def test_the_lean_passes_hold_the_logits_and_at_most_one_fp32_copy() -> None:
    assert peak("0.28 default (lean)") == LOGITS_BF16 + GUMBEL == 16_544
    assert peak("0.25 default (lean)") == LOGITS_BF16 + FP32 + GUMBEL == 49_312
    # the 20 top-k logprobs come after the fp32 copy is freed: the copy is still the peak
    assert peak("early runner, 0.16/0.17") == 49_312


def test_the_033_warmup_pass_with_flashinfer_holds_four_logit_tensors() -> None:
    # bf16 logits + fp32 copy + top_k_mask_logits' fp32 output + softmax probabilities, then the
    # int32 samples (16 B) and bool valid flags (4 B) while the probabilities are alive
    assert peak("0.33 warm-up, FlashInfer") == LOGITS_BF16 + 3 * FP32 + 16 + 4 == 114_708


def test_the_033_warmup_pass_with_triton_masks_in_place() -> None:
    # min(next power of 2 of min(132 SMs, 4 rows), 132) = 4 buffer rows of 2,048 fp32
    assert peak("0.33 warm-up, Triton, 132 SMs") == LOGITS_BF16 + FP32 + 4 * VOCAB * 4 + GUMBEL
    assert peak("0.33 warm-up, Triton, 132 SMs") == 82_080


def test_a_freed_tensor_leaves_the_count() -> None:
    import torch

    def two_then_one() -> object:
        a = torch.zeros(1000)  # 4,000 B
        b = torch.zeros(500)  # 2,000 B: 6,000 live
        del a
        return b + 1  # 2,000 B more while b lives: 4,000

    assert mod.peak_bytes(two_then_one) == 6_000
