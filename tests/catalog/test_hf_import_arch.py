"""`kvplan import` on the model types added in the importer pass of issue 12: Phi (`phi`) and
GraniteMoe (`granitemoe`); and the remote-code types it still refuses (`chatglm`, `internlm2`).

KV bytes follow what the modeling code caches; parameter counts are checked against transformers
in tests/catalog/test_params_oracle.py. Hostile or malformed variants are refused with a one-line
reason (exit 2), never guessed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.capacity.kv import Precision, stage_caches
from kvplan.errors import InputError
from kvplan.specs.hf_import import import_model
from kvplan.units import DType
from tests.conftest import invoke

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"

# the GraniteMoe shapes public tests quote for ibm-granite/granite-3.0-1b-a400m-instruct (code
# index id 52230197730); not shipped (no verbatim copy), used to exercise the importer
GRANITEMOE: dict[str, Any] = {
    "architectures": ["GraniteMoeForCausalLM"], "model_type": "granitemoe", "hidden_size": 1024,
    "intermediate_size": 512, "num_hidden_layers": 24, "num_attention_heads": 16,
    "num_key_value_heads": 8, "vocab_size": 49155, "num_local_experts": 32,
    "num_experts_per_tok": 8, "max_position_embeddings": 4096, "tie_word_embeddings": True,
    "attention_multiplier": 0.015625, "embedding_multiplier": 12.0, "residual_multiplier": 0.22,
    "logits_scaling": 6.0, "torch_dtype": "bfloat16",
}


def _write(tmp_path: Path, cfg: dict[str, Any]) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def _phi(**changes: Any) -> dict[str, Any]:
    cfg = json.loads((CONFIGS / "phi-1.5.json").read_text())
    cfg.update(changes)
    return cfg


def _fp16_bytes_per_token(spec) -> int:  # noqa: ANN001
    return stage_caches(spec, Precision(DType.fp16), tp=1, pp=1)[0].bytes_per_token


def test_phi_caches_whole_heads_despite_partial_rotary():
    spec = import_model(str(CONFIGS / "phi-1.5.json"), name="phi-1.5")
    assert spec.model_type == "phi"
    assert (spec.attention.num_kv_heads, spec.attention.head_dim) == (32, 64)
    # 24 layers x 32 KV heads x 64 (all of head_dim, not the 32 rotary dims) x 2 (K, V) x 2 B
    assert _fp16_bytes_per_token(spec) == 24 * 32 * 64 * 2 * 2 == 196_608
    assert "partial_rotary_factor 0.5" in (spec.notes or "")
    assert spec.params_total == 1_418_270_720 and spec.params_active is None


def test_phi_with_grouped_kv_heads(tmp_path):
    spec = import_model(_write(tmp_path, _phi(num_key_value_heads=8)))
    assert _fp16_bytes_per_token(spec) == 24 * 8 * 64 * 2 * 2


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"partial_rotary_factor": "half"}, "partial_rotary_factor"),
        ({"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
        ({"hidden_size": 2050}, "not a multiple of num_attention_heads"),
        ({"intermediate_size": None}, "intermediate_size"),
        ({"num_hidden_layers": -1}, "num_hidden_layers"),
        ({"sliding_window": 2048}, "sliding_window"),
        ({"num_key_value_heads": 64}, "num_kv_heads"),
    ],
)
def test_phi_malformed_is_refused(tmp_path, runner, changes, reason):
    path = _write(tmp_path, _phi(**changes))
    with pytest.raises(InputError, match=reason):
        import_model(path)
    result = invoke(runner, "import", path)
    assert result.exit_code == 2, result.output


def test_granitemoe_is_a_top_k_moe_with_gqa_cache(tmp_path):
    spec = import_model(_write(tmp_path, GRANITEMOE), name="granitemoe-test")
    assert spec.moe is not None
    assert (spec.moe.num_experts, spec.moe.experts_per_token) == (32, 8)
    assert spec.moe.moe_intermediate_size == 512 and spec.moe.num_shared_experts == 0
    # 24 layers x 8 KV heads x head_dim 64 (1,024 / 16) x 2 x 2 B; experts hold no cache
    assert _fp16_bytes_per_token(spec) == 24 * 8 * 64 * 2 * 2 == 49_152
    # 49,155 x 1,024 tied + 24 x (q, o 2 x 1,024^2 + k, v 2 x 1,024 x 512 + 2 x 1,024 norms
    # + router 32 x 1,024 + experts 32 x 3 x 1,024 x 512) + 1,024 final norm
    per_layer = 2 * 1024**2 + 2 * 1024 * 512 + 2 * 1024 + 32 * 1024
    assert spec.params_total == 49155 * 1024 + 24 * (per_layer + 32 * 3 * 1024 * 512) + 1024
    assert spec.params_active == 49155 * 1024 + 24 * (per_layer + 8 * 3 * 1024 * 512) + 1024
    assert spec.weight_dtype == DType.bf16


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"num_experts_per_tok": 33}, "num_experts_per_tok"),
        ({"num_local_experts": None}, "num_local_experts"),
        ({"num_local_experts": "32"}, "num_local_experts"),
        ({"shared_intermediate_size": 1024}, "shared expert"),
        ({"sliding_window": 4096}, "sliding_window"),
        ({"layer_types": ["mamba"] * 24}, "layer_types"),
        ({"num_key_value_heads": 3}, "num_kv_heads"),
    ],
)
def test_granitemoe_malformed_is_refused(tmp_path, runner, changes, reason):
    path = _write(tmp_path, {**GRANITEMOE, **changes})
    with pytest.raises(InputError, match=reason):
        import_model(path)
    result = invoke(runner, "import", path)
    assert result.exit_code == 2, result.output


@pytest.mark.parametrize("model_type", ["chatglm", "internlm2", "granitemoeshared", "phimoe"])
def test_types_without_an_exact_account_are_refused_on_one_line(tmp_path, runner, model_type):
    path = _write(tmp_path, {**GRANITEMOE, "model_type": model_type})
    result = invoke(runner, "import", path)
    assert result.exit_code == 2, result.output
    assert f"model_type '{model_type}' is not supported" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
