"""`kvplan import` / `kvplan size` on recent public config.json files a new user has (task h33qa2).

tests/assets/check/qa/SOURCES.md names each file's repository, path and commit. The KV bytes are
worked by hand from the file's keys; the types kvplan cannot model are refused in one line
(exit 2), never given a guessed shape.
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from tests.conftest import ASSETS, invoke

HF = ASSETS / "check" / "qa" / "hf"
V31 = HF / "deepseek-ai--DeepSeek-V3.1.json"


def test_deepseek_v31_imports_as_mla_with_the_latent_per_layer(runner: CliRunner) -> None:
    result = invoke(runner, "import", str(V31))
    assert result.exit_code == 0, result.output
    spec = yaml.safe_load(result.stdout)
    assert spec["model_type"] == "deepseek_v3"
    assert spec["num_layers"] == 61
    assert spec["weight_dtype"] == "fp8"  # quantization_config fp8 (block 128x128, ue8m0 scales)
    assert spec["attention"]["mla"]["kv_lora_rank"] == 512
    assert spec["attention"]["mla"]["qk_rope_head_dim"] == 64
    assert spec["moe"] == {"num_experts": 256, "experts_per_token": 8,
                           "moe_intermediate_size": 2048, "num_shared_experts": 1,
                           "first_dense_layers": 3}


def test_deepseek_v31_size_counts_the_latent_not_128_kv_heads(runner: CliRunner) -> None:
    result = invoke(runner, "size", str(V31), "--gpu", "h200", "--tp", "8", "--context", "32768",
                    "-f", "json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    # (kv_lora_rank 512 + qk_rope_head_dim 64) x 61 layers x 2 B; not 2 x 61 x 128 x 192 x 2
    assert row["kv_bytes_per_token"] == (512 + 64) * 61 * 2 == 70272
    assert row["kv_bytes_per_sequence"] == 70272 * 32768
    assert row["tp"] == 8


@pytest.mark.parametrize(("name", "model_type"), [
    ("deepseek-ai--DeepSeek-V3.2.json", "deepseek_v32"),       # MLA + sparse-attention indexer
    ("Qwen--Qwen3.5-27B.json", "qwen3_5"),                     # Gated DeltaNet hybrid
    ("Qwen--Qwen3.5-35B-A3B.json", "qwen3_5_moe"),
    ("zai-org--GLM-4.7-Flash.json", "glm4_moe_lite"),          # MLA (kv_lora_rank 512)
    ("google--gemma-4-26B-A4B.json", "gemma4"),
    ("MiniMaxAI--MiniMax-M2.5.json", "minimax_m2"),
    ("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json", "nemotron_h"),  # Mamba2 hybrid
])
def test_types_kvplan_cannot_model_are_refused_in_one_line(
        runner: CliRunner, name: str, model_type: str) -> None:
    for command in ("import", "size"):
        result = invoke(runner, command, str(HF / name), *(["--gpu", "h200"] * (command == "size")))
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert "Traceback" not in result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1
        assert f"cannot import: model_type {model_type!r} is not supported" in lines[0]
        assert "write a spec YAML by hand" in lines[0]
