"""`explain`, `models`, `gpus` and `calibrate` on a narrow terminal (task uxfix). At COLUMNS=60
their tables cut numbers to ellipses (`8,030,261,2…` params in explain's weights formula,
`131,…` B/token in `models llama-3-8b`, `23,696,375,…` B in `gpus`, `180,9…` tokens in
calibrate); now a table that would cut a word prints its rows as `header value` pairs, as
size/fleet do (kvplan.render.narrow), and at 200 columns the tables are as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

LOG = "tests/assets/logs/02-vllm-qwen3-235b-a22b-fp8-4xh100.log"


def _out(args: list[str], monkeypatch: pytest.MonkeyPatch, columns: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert not any("…" in line for line in lines), "\n".join(lines)
    return lines


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())  # continuation indents folded


@pytest.mark.parametrize("columns", [60, 200])
def test_explain_keeps_the_parameter_count_whole(monkeypatch: pytest.MonkeyPatch,
                                                 columns: int) -> None:
    lines = _out(["explain", "llama-3-8b", "--gpu", "h100", "--context", "8192"], monkeypatch,
                 columns)
    text = _flat(lines)
    # Meta-Llama-3-8B's 8,030,261,248 parameters (tests/catalog/build_shipped_specs.py: the sum
    # of tensor sizes over its 4 safetensors files) x 2 B = 16,060,522,496 B; H100 SXM's
    # 85,045,477,376 B as the runtime reports it
    assert "8,030,261,248 params x 16 bits / 1 GPU(s)" in text
    assert "14.96 GiB (16,060,522,496 B)" in text and "79.2 GiB (85,045,477,376 B)" in text
    if columns == 60:
        assert max(len(line) for line in lines) <= 60
        assert "# 4, step / how weights, value 14.96 GiB (16,060,522,496 B), unit bytes" in text
    else:
        assert any(line.split() == ["#", "step", "value", "unit", "how"] for line in lines)


@pytest.mark.parametrize("columns", [60, 200])
def test_models_keeps_bytes_per_token_whole(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    lines = _out(["models", "llama-3-8b"], monkeypatch, columns)
    # 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 B = 131,072 B per token (config.json)
    assert 32 * 8 * 128 * 2 * 2 == 131_072
    if columns == 60:
        assert max(len(line) for line in lines) <= 60
        assert ("model llama-3-8b, attention GQA, KV B/token 131,072, context 8,192, params 8.0B"
                in _flat(lines))
    else:
        assert any(line.split() == ["llama-3-8b", "GQA", "131,072", "8,192", "8.0B"]
                   for line in lines)


@pytest.mark.parametrize("columns", [60, 200])
def test_gpus_keep_their_bytes_whole(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    lines = _out(["gpus", "h100"], monkeypatch, columns)
    text = _flat(lines)
    assert "85,045,477,376" in text  # H100 SXM as the runtime reports it (79.20 GiB)
    if columns == 60:
        assert max(len(line) for line in lines) <= 60
        assert "gpu / aliases h100-sxm-80gb h100, h100-sxm, h100-80gb, memory 79.20 GiB" in text
    else:
        assert any(line.split()[:2] == ["h100-sxm-80gb", "79.20"] for line in lines)


@pytest.mark.parametrize("columns", [60, 200])
def test_calibrate_keeps_logged_and_planned_tokens_whole(monkeypatch: pytest.MonkeyPatch,
                                                         columns: int) -> None:
    lines = _out(["calibrate", LOG], monkeypatch, columns)
    # the log's own 'GPU KV cache size: 178,880 tokens'; kvplan plans 180,928 (+1.14%)
    assert "GPU KV cache size: 178,880 tokens" in Path(LOG).read_text(encoding="utf-8")
    assert round((180_928 - 178_880) / 178_880 * 100, 2) == 1.14
    text = _flat(lines)
    if columns == 60:
        assert max(len(line) for line in lines if "unparsed" not in line) <= 60
        assert ("basis breakdown, quantity KV tokens (tokens), logged 178,880, kvplan 180,928, "
                "error +1.14%") in text
    else:
        assert any(line.split()[:8] == ["breakdown", "KV", "tokens", "(tokens)", "178,880",
                                        "180,928", "+1.14%", "MISS"] for line in lines)
