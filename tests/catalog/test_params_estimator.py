"""kvplan.specs.params reproduces published parameter counts exactly from the shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.specs.hf_import import text_config
from kvplan.specs.params import ParamCount, UnsupportedArchitecture, count_params

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"


def estimate(name: str) -> ParamCount:
    root = json.loads((CONFIGS / f"{name}.json").read_text())
    cfg, _ = text_config(root)
    return count_params(cfg, root["model_type"], root)


@pytest.mark.parametrize(
    ("name", "official"),
    [
        ("llama-3-8b", 8_030_261_248),  # tensor-size sum of the Meta-Llama-3-8B checkpoint
        ("llama-2-7b", 6_738_415_616),  # published Llama-2-7B count
        ("qwen2.5-72b", 72_706_203_648),  # tensor-size sum over 37 safetensors files
        ("deepseek-v2-lite", 15_706_484_224),  # tensor-size sum of DeepSeek-V2-Lite-Chat (MLA, MoE)
        ("gpt-oss-20b", 20_914_757_184),  # tensor-size sum of the bf16 re-export (biases, sinks)
    ],
)
def test_official_counts_exact(name: str, official: int):
    assert estimate(name).total == official


def test_tied_embeddings_counted_once():
    # Llama-3.2-1B ties lm_head to the embedding: 128,256 x 2,048 is counted once
    untied = json.loads((CONFIGS / "llama-3.2-1b.json").read_text())
    untied["tie_word_embeddings"] = False
    assert count_params(untied, "llama", untied).total - estimate("llama-3.2-1b").total == (
        128_256 * 2_048
    )


def test_qwen2_counts_qkv_bias():
    cfg = json.loads((CONFIGS / "qwen2.5-7b.json").read_text())
    qwen = count_params(cfg, "qwen2", cfg).total
    as_mistral = count_params(cfg, "mistral", cfg).total
    # q (3584) + k (512) + v (512) biases on each of 28 layers
    assert qwen - as_mistral == 28 * (3584 + 2 * 4 * 128)


def test_moe_active_counts_top_k_experts():
    mixtral = estimate("mixtral-8x7b")
    per_expert = 3 * 4096 * 14336
    assert mixtral.active is not None
    assert mixtral.total - mixtral.active == 32 * (8 - 2) * per_expert


def test_deepseek_v3_matches_card_671b():
    count = estimate("deepseek-v3")
    assert count.total == 671_026_419_200  # card: 671B (the MTP module left out)
    assert round(count.active or 0, -9) == 38_000_000_000  # card: 37B activated (36.6B)


def test_unknown_architecture_refused():
    with pytest.raises(UnsupportedArchitecture, match="jamba"):
        count_params({}, "jamba", {})
