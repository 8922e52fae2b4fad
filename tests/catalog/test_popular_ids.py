"""Popular Hugging Face ids that `kvplan size ID` refused offline (task h61catalog) and whose own
config.json was found: each resolves to the catalog entry whose shapes it has, from the CLI.

The expected figures were written from the cited configs before the build ran (catalog_sources.py
says where each config was read):
- deepseek-ai/DeepSeek-V3.1 and deepseek-ai/DeepSeek-V3-0324 -> deepseek-v3: MLA, 61 layers x
  (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 70,272 B a token at a 16-bit cache;
- HuggingFaceH4/zephyr-7b-beta -> mistral-7b-v0.1: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B =
  131,072 B a token, every layer windowed at 4,096 tokens (0 B beyond);
- lmsys/vicuna-7b-v1.5 -> llama-2-7b: 32 x 32 KV heads (MHA) x 128 x 2 x 2 B = 524,288 B;
- unsloth/Llama-3.2-3B-Instruct -> llama-3.2-3b: 28 x 8 x 128 x 2 x 2 B = 114,688 B;
- NousResearch/Meta-Llama-3.1-8B-Instruct -> llama-3.1-8b: 32 x 8 x 128 x 2 x 2 B = 131,072 B.
Each plans the entry's weights (the same tensors in the same dtype), so its weight bytes are the
entry's own. mistralai/Mixtral-8x22B-Instruct-v0.1 is its own entry, mixtral-8x22b-instruct (a
32,768-token vocabulary against the base's 32,000): 56 x 8 x 128 x 2 x 2 B = 229,376 B a token,
57,344 B per GPU at TP 4 (2 of the 8 KV heads each), and 140,630,071,296 bf16 parameters x 2 B / 4
= 70,315,035,648 B of weights per GPU, 4,718,592 B more than the base's (9,437,184 more
parameters x 2 B / 4). DeepSeek-V3's 671 B fp8 weights need 8 H200s (one H100 does not hold them and `size`
exits 1); MLA's latent is the same on every tensor-parallel rank (docs/maths.md), so TP 8 keeps
70,272 B a token per GPU.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import invoke

# id as users type it, the entry, GPU and TP, KV bytes a token per GPU below the window, beyond it
IDS = [
    ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3", ("h200", "8"), 70_272, 70_272),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", ("h200", "8"), 70_272, 70_272),
    ("HuggingFaceH4/zephyr-7b-beta", "mistral-7b-v0.1", ("h100", "1"), 131_072, 0),
    ("lmsys/vicuna-7b-v1.5", "llama-2-7b", ("h100", "1"), 524_288, 524_288),
    ("unsloth/Llama-3.2-3B-Instruct", "llama-3.2-3b", ("h100", "1"), 114_688, 114_688),
    ("NousResearch/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", ("h100", "1"), 131_072, 131_072),
]


def _sized(runner, ref: str, *args: str) -> dict:  # noqa: ANN001 - typer's CliRunner
    result = invoke(runner, "size", ref, *args, "--kv-dtype", "fp16", "--context", "4096",
                    "--format", "json")
    assert result.exit_code == 0, result.output
    return _row(result)


def test_mixtral_8x22b_instruct_is_its_own_entry(runner, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ref = "mistralai/Mixtral-8x22B-Instruct-v0.1"
    got = invoke(runner, "size", ref, "--gpu", "h200", "--tp", "4", "--kv-dtype", "fp16",
                 "--context", "4096", "--format", "json")
    assert got.exit_code == 0, got.output
    assert f"{ref} \u2192 mixtral-8x22b-instruct (hf_id)" in got.stderr
    row = _row(got)
    assert row["model"] == "mixtral-8x22b-instruct"
    assert row["kv_bytes_per_token"] == 57_344
    assert row["weights_bytes"] == 70_315_035_648
    base = _sized(runner, "mixtral-8x22b", "--gpu", "h200", "--tp", "4")
    assert row["weights_bytes"] - base["weights_bytes"] == 4_718_592


def _row(result) -> dict:  # noqa: ANN001 - typer's Result
    return json.loads(result.stdout)["results"][0]


@pytest.mark.parametrize(("ref", "entry", "where", "below", "beyond"), IDS,
                         ids=[i[0] for i in IDS])
def test_popular_id_resolves_offline_to_its_entry(runner, monkeypatch, ref: str, entry: str,
                                                  where: tuple[str, str], below: int, beyond: int):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # as reported: no hub, the catalog alone answers
    args = ("size", "--gpu", where[0], "--tp", where[1], "--kv-dtype", "fp16", "--context", "4096",
            "--format", "json")
    got = invoke(runner, args[0], ref, *args[1:])
    base = invoke(runner, args[0], entry, *args[1:])
    assert got.exit_code == 0, got.output
    assert base.exit_code == 0, base.output
    assert f"{ref} \u2192 {entry} (alias)" in got.stderr
    row = _row(got)
    assert row["model"] == entry
    assert (row["kv_bytes_per_token"], row["kv_bytes_per_token_beyond_window"]) == (below, beyond)
    assert row["weights_bytes"] == _row(base)["weights_bytes"]
