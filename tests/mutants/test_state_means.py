"""State and means: a linear-attention state is added (never subtracted) under reserved
allocation, and a length distribution's mean is rounded to the nearest token, not floored."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize(("tp", "per_token", "sequence"), [
    # Qwen3-Next-80B-A3B: 48 layers, pattern [linear, linear, linear, full] -> 12 full, 36
    # linear. Full layer, fp16: 2 KV heads x (256 + 256) x 2 B = 2,048 B; x 12 = 24,576 B/token.
    # Linear state: 548,864 elements x 2 B (bf16) = 1,097,728 B per layer; x 36 = 39,518,208 B.
    # Reserved 8,192 tokens: 8,192 x 24,576 + 39,518,208 = 201,326,592 + 39,518,208
    (1, 24_576, 240_844_800),
    # TP 4: one (replicated) KV head: 1,024 B x 12 = 12,288 B/token; state split over 4 ranks:
    # 1,097,728 / 4 = 274,432 x 36 = 9,879,552; 8,192 x 12,288 = 100,663,296 + 9,879,552
    (4, 12_288, 110_542_848),
])
def test_linear_state_is_added_under_reserved_allocation(cli, tp: int, per_token: int,
                                                         sequence: int):
    doc = cli("size", "qwen3-next-80b-a3b", "--gpu", "b200", "--allocation", "reserved",
              "--context", "8192", "--tp", str(tp))
    assert doc["kv_bytes_per_token"] == per_token
    assert doc["kv_bytes_per_sequence"] == sequence


def test_linear_state_is_added_under_paged_allocation(cli):
    # paged at 8,192 tokens (512 whole blocks): the same 240,844,800 B as reserved
    doc = cli("size", "qwen3-next-80b-a3b", "--gpu", "b200", "--context", "8192")
    assert doc["kv_bytes_per_sequence"] == 240_844_800
    assert doc["reserved_waste_bytes_per_sequence"] == 0


@pytest.mark.parametrize(("lengths", "mean"), [
    ((1000, 1001, 1001), 1001),  # 1,000.67 -> 1,001 (floored: 1,000)
    ((1000, 1000, 1001), 1000),  # 1,000.33 -> 1,000
    ((10, 20, 20, 20, 24), 19),  # 94 / 5 = 18.8 -> 19 (floored: 18)
])
def test_mean_length_is_rounded(cli, tmp_path: Path, lengths: tuple[int, ...], mean: int):
    sample = tmp_path / "lengths.csv"
    sample.write_text("tokens\n" + "\n".join(map(str, lengths)) + "\n")
    doc = cli("fleet", "llama-3-8b", "--gpu", "h100", "--peak-users", "10", "--context", "8192",
              "--context-sample", str(sample))
    assert doc["context_mean_tokens"] == pytest.approx(sum(lengths) / len(lengths), abs=0.05)
    assert doc["avg_context_tokens"] == mean
