"""TensorRT-LLM's PyTorch backend block size by release (task trtleft).

0.17-0.21: the LLM API hands its BuildConfig to update_executor_config, which copies
plugin_config.tokens_per_block into executor_config.tokens_per_block, the KV cache manager's
(tensorrt_llm/_torch/pyexecutor/config.py, code index id 5653122518): the plugin default, 64 in
0.17 (PluginConfig._tokens_per_block default=64, tensorrt_llm/plugin/plugin.py:347-348 at main
be178810, 0.17.0.dev2024121700) and 0.18.x (0.17.0 plus dependency updates, release notes), 32
by 0.19 (a 0.18.0.dev2025020400 run prints "Set tokens_per_block to 32", code index id
7970237331); 1.x: KvCacheConfig.tokens_per_block, default 32. FlashMLA (0.19 on) sets 64 for an
MLA model of kv_lora_rank + qk_rope_head_dim 576 on a compute-capability-9.0 GPU, over a stated
value (kvplan.engines.trtllm_mla.flash_mla_block).

deepseek-v2-lite (kv_lora_rank 512, qk_rope_head_dim 64, 27 layers: 27 x 576 x 2 B = 31,104 B a
token) on an H100 at 1.3.0: KV cache memory 46,097,761,996 B (requested_bytes, which the block
size does not move) -> floor(/ 31,104) = 1,482,052 tokens -> ceil(/ 64) = 23,158 blocks =
1,482,112 tokens; with 32-token blocks 46,315 blocks = 1,482,080 tokens.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.units import ceil_div


def _row(model: str, *argv: str) -> dict[str, Any]:
    res = CliRunner().invoke(app, ["size", model, "--engine", "trtllm", "-f", "json", *argv])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["results"][0]


@pytest.mark.parametrize(("release", "tokens"), [
    ("0.17.0", 64), ("0.18.2", 64), ("0.19.0", 32), ("0.20.0", 32), ("0.21.0", 32)])
def test_pytorch_backend_takes_the_plugin_default_before_1_0(release: str, tokens: int) -> None:
    row = _row("llama-3-8b", "--gpu", "h100", "--trtllm-backend", "pytorch",
               "--engine-version", release)
    assert row["engine_block_size_tokens"] == tokens
    assert row["kv_cache_tokens"] == row["kv_cache_blocks"] * tokens


def _raw(row: dict[str, Any]) -> int:
    return int(row["requested_bytes"]) // int(row["kv_bytes_per_token"])


def test_flash_mla_sets_64_token_blocks_on_sm90() -> None:
    row = _row("deepseek-v2-lite", "--gpu", "h100")
    assert row["kv_bytes_per_token"] == 27 * 576 * 2 == 31_104
    assert _raw(row) == 1_482_052
    assert (row["engine_block_size_tokens"], row["kv_cache_blocks"],
            row["kv_cache_tokens"]) == (64, ceil_div(1_482_052, 64), 1_482_112)
    assert any("runs FlashMLA for deepseek-v2-lite" in a for a in row["assumptions"])


def test_flash_mla_overrides_a_stated_block_size() -> None:
    row = _row("deepseek-v2-lite", "--gpu", "h100", "--page-size", "32")
    assert (row["engine_block_size_tokens"], row["kv_cache_tokens"]) == (64, 1_482_112)
    assert any(a.endswith("0.19 on), over the stated 32") for a in row["assumptions"])


@pytest.mark.parametrize("argv", [
    ["--gpu", "b200"],  # compute capability 10.0
    ["--gpu", "a100"],  # 8.0
    ["--gpu", "h100", "--trtllm-backend", "tensorrt"],  # a TensorRT engine: no FlashMLA switch
])
def test_no_flash_mla_elsewhere(argv: list[str]) -> None:
    row = _row("deepseek-v2-lite", *argv)
    assert row["engine_block_size_tokens"] == 32
    assert row["kv_cache_tokens"] == ceil_div(_raw(row), 32) * 32
    assert not any("FlashMLA" in a for a in row["assumptions"])


def test_no_flash_mla_switch_before_0_19() -> None:
    """0.18.2 stated on the PyTorch backend: the plugin default, 64, without the FlashMLA note."""
    row = _row("deepseek-v2-lite", "--gpu", "h100", "--trtllm-backend", "pytorch",
               "--engine-version", "0.18.2")
    assert row["engine_block_size_tokens"] == 64
    assert not any("FlashMLA" in a for a in row["assumptions"])


def test_a_dense_model_keeps_32_on_an_h100() -> None:
    assert _row("llama-3-8b", "--gpu", "h100")["engine_block_size_tokens"] == 32
