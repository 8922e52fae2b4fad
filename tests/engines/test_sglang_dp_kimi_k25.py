"""Kimi-K2.5 (model_type kimi_k25) under SGLang's data-parallel attention: SGLang builds its text
model as deepseek_v2.py's DeepseekV3ForCausalLM (kimi_k25.py:35, :676 in 0.5.9; :41, :693 in
0.5.23), so the DeepSeek-V2 family's shards hold for it (kvplan.engines.sglang_dp.DEEPSEEK_FAMILY).
Until task mutnew saw it, kimi_k25 was planned at the plain tensor-parallel split, with a note,
and `--moe-dense-tp-size 1` was refused as "no dense MLP layers".

Independent arithmetic from model_specs/kimi-k2.5.yaml (the official text config: 61 layers,
hidden 7,168, 64 heads, q_lora_rank 1,536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128,
vocab 163,840, one dense layer of intermediate 18,432, bf16 outside the experts):
- attention weights split by TP: q_b 1,536 x 64 x 192 + kv_b 512 x 64 x 256 + o 64 x 128 x 7,168
  = 85,983,232 a layer x 61 x 2 B = 10,489,954,304 B; at attention TP 1 (TP 8, DP 8) each GPU
  keeps all of it: 7/8 more = 9,178,710,016 B;
- the embedding, whole on every attention-TP rank from 0.5.8: 163,840 x 7,168 x 2 B =
  2,348,810,240 B, 7/8 more = 2,055,208,960 B; together 11,233,918,976 B over the plain split;
- `--moe-dense-tp-size 1`: the dense MLP 3 x 7,168 x 18,432 x 2 B = 792,723,456 B whole,
  7/8 more = 693,633,024 B.
"""

from __future__ import annotations

import re

from typer.testing import CliRunner

from kvplan.cli import app

BASE = ["size", "kimi-k2.5", "--gpu", "h200", "--tp", "8", "--engine", "sglang",
        "--engine-version", "0.5.23", "--context", "32768"]
PLAIN_TP = 76_602_618_620  # the weights per GPU at --tp 8 alone (no data-parallel attention)


def _weights(*extra: str) -> int:
    result = CliRunner().invoke(app, [*BASE, *extra], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    found = re.search(r"Weights per GPU\s+[\d.]+ GiB \(([\d,]+) B\)", result.output)
    assert found, result.output
    return int(found.group(1).replace(",", ""))


def test_plain_tp_is_the_base() -> None:
    assert _weights() == PLAIN_TP


def test_dp_attention_keeps_attention_and_embedding_whole() -> None:
    assert _weights("--attention-dp", "8") == PLAIN_TP + 9_178_710_016 + 2_055_208_960


def test_moe_dense_tp_size_1_keeps_the_dense_mlp_whole() -> None:
    assert _weights("--attention-dp", "8", "--moe-dense-tp-size", "1") == \
        PLAIN_TP + 9_178_710_016 + 2_055_208_960 + 693_633_024
