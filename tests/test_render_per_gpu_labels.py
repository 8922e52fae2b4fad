"""With TP or PP the cache rows of `size`/`fleet`'s table are one GPU's share, and say so.

Found by task h90review: `kvplan size llama-3.1-70b --gpu h100 --tp 4 --kv-dtype fp8` printed
"KV per token  40 KiB" beside "Weights per GPU" and "KV pool per GPU": a planner reading the
table at a glance takes 40 KiB for Llama-3.1-70B's fp8 cache, where the model's is
2 x 80 layers x 8 KV heads x 128 x 1 B = 163,840 B (160 KiB) per token, 40,960 B on each of the
4 GPUs (docs/maths.md: `kv_bytes_per_token` is per GPU). One GPU keeps the plain labels."""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.cli import app


def _rows(*args: str) -> dict[str, str]:
    res = CliRunner().invoke(app, ["size", *args])
    assert res.exit_code == 0, res.output
    out: dict[str, str] = {}
    for line in res.stdout.splitlines():
        if line.startswith(("KV per", "KV pool per GPU")):
            label, _, value = line.partition("  ")
            out[label.strip()] = value.strip()
    return out


def test_tp4_rows_say_per_gpu():
    rows = _rows("llama-3.1-70b", "--gpu", "h100", "--tp", "4", "--context", "32K",
                 "--avg-context", "8000", "--kv-dtype", "fp8")
    assert rows == {
        "KV per token per GPU": "40 KiB (40,960 B)",  # 163,840 B / 4
        # 8,000 tokens = 500 blocks of 16: 8,000 x 40,960 B = 327,680,000 B
        "KV per sequence per GPU": "312.5 MiB (327,680,000 B) at 8,000 tokens",
        "KV pool per GPU": "36.43 GiB (39,116,592,742 B)",
    }


def test_pp2_rows_say_per_gpu():
    rows = _rows("llama-3.1-70b", "--gpu", "h100", "--pp", "2", "--context", "8192",
                 "--kv-dtype", "fp8")
    # 40 of the 80 layers on each stage: 2 x 40 x 8 x 128 x 1 B = 81,920 B
    assert rows["KV per token per GPU"] == "80 KiB (81,920 B)"


def test_one_gpu_keeps_plain_labels():
    rows = _rows("llama-3-8b", "--gpu", "h100", "--context", "8192", "--avg-context", "2000",
                 "--kv-budget-gib", "60")
    assert rows == {"KV per token": "128 KiB (131,072 B)",
                    "KV per sequence": "250 MiB (262,144,000 B) at 2,000 tokens",
                    "KV pool per GPU": "60 GiB (64,424,509,440 B)"}
