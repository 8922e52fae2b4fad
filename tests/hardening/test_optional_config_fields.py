"""Task h46cfg: every optional config.json field the parameter count and the layer/MoE rules
read (kvplan.specs.params*, hf_layers) is type-checked where it is read. Before, a string, a
list, a mapping, a bool or a negative number there was used as found: `cfg.get(key) or 0`
multiplied a list (TypeError), `set()` of a nested list, `range()` of a string, `int()` of a
nested list, or a negative step counted layers backwards. Each case mutates a real config under
tests/assets/hf_configs in memory (one field set to a wrong type) and runs `kvplan import` on
it: exit 2 and kvplan's one line naming the file, the field, what was there and what it must
be (params_base._int_or with `least`, _list_or_empty, _index_list; params_multimodal._pair).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

CONFIGS = Path(__file__).resolve().parents[1] / "assets" / "hf_configs"

WHOLE = "it must be a whole number"
AT_LEAST_0 = "it must be a whole number of at least 0"
INDICES = "it must be a list of layer numbers (whole numbers of at least 0)"
POSITIVE = "a positive whole number is needed"

# optional fields the chosen config leaves out (the code's default applies): added, not replaced
ABSENT = ("ffn_hidden_size", "no_rope_layer_interval", "moe_layers")

# (config under tests/assets/hf_configs, dotted field, the wrong value, the message's tail)
CASES: list[tuple[str, str, Any, str]] = [
    # params._falcon: `cfg.get("ffn_hidden_size") or 4 * hidden` multiplied a string
    ("falcon-7b", "ffn_hidden_size", "4544", f"config field 'ffn_hidden_size' is '4544'; {WHOLE}"),
    ("falcon-7b", "ffn_hidden_size", -1, f"config field 'ffn_hidden_size' is -1; {AT_LEAST_0}"),
    # params_base._llama_like / params_extra._kv_heads: hf_config's check meets it first
    ("llama-3-8b", "num_key_value_heads", "8",
     f"config field 'num_key_value_heads' is '8'; {POSITIVE}"),
    ("phi-4", "num_key_value_heads", {"k": 1},
     f"config field 'num_key_value_heads' is {{'k': 1}}; {POSITIVE}"),
    # params_moe._sparse_layers and hf_layers.moe_block (Qwen3 MoE)
    ("qwen3-30b-a3b", "decoder_sparse_step", "1",
     f"config field 'decoder_sparse_step' is '1'; {WHOLE}"),
    ("qwen3-30b-a3b", "decoder_sparse_step", -2,
     f"config field 'decoder_sparse_step' is -2; {AT_LEAST_0}"),
    ("qwen3-30b-a3b", "mlp_only_layers", 0,
     "config field 'mlp_only_layers' is 0; it must be a list"),
    ("qwen3-30b-a3b", "mlp_only_layers", [[0]],
     f"config field 'mlp_only_layers' is [[0]]; {INDICES}"),
    ("qwen3-30b-a3b", "mlp_only_layers", [-1], f"config field 'mlp_only_layers' is [-1]; {INDICES}"),
    ("qwen3-vl-30b-a3b", "text_config.mlp_only_layers", "0",
     "config field 'text_config.mlp_only_layers' is '0'; it must be a list"),
    ("qwen3-next-80b-a3b", "shared_expert_intermediate_size", [512],
     f"config field 'shared_expert_intermediate_size' is [512]; {WHOLE}"),
    ("qwen3-next-80b-a3b", "shared_expert_intermediate_size", -512,
     f"config field 'shared_expert_intermediate_size' is -512; {AT_LEAST_0}"),
    # params_moe._deepseek / _glm4_moe and hf_layers.moe_block (DeepSeek, GLM-4.5)
    ("deepseek-v3", "first_k_dense_replace", True,
     f"config field 'first_k_dense_replace' is True; {WHOLE}"),
    ("deepseek-v3", "first_k_dense_replace", -3,
     f"config field 'first_k_dense_replace' is -3; {AT_LEAST_0}"),
    ("deepseek-v3", "moe_layer_freq", "1", f"config field 'moe_layer_freq' is '1'; {WHOLE}"),
    ("deepseek-v3", "moe_layer_freq", -1, f"config field 'moe_layer_freq' is -1; {AT_LEAST_0}"),
    ("deepseek-v3", "n_shared_experts", [1], f"config field 'n_shared_experts' is [1]; {WHOLE}"),
    ("deepseek-v3", "n_shared_experts", -1, f"config field 'n_shared_experts' is -1; {AT_LEAST_0}"),
    ("glm-4.5", "first_k_dense_replace", {"n": 3},
     f"config field 'first_k_dense_replace' is {{'n': 3}}; {WHOLE}"),
    ("glm-4.5", "n_shared_experts", 1.5, f"config field 'n_shared_experts' is 1.5; {WHOLE}"),
    # params_moe._mla_attention's q_lora_rank: hf_config's MLA block reads it first (task
    # h48mend; until then the ModelSpec refused it, naming the spec's field)
    ("deepseek-v3", "q_lora_rank", "1536", f"config field 'q_lora_rank' is '1536'; {WHOLE}"),
    # params_moe.llama4_moe_layers and hf_layers.llama4_moe / llama4_layer_kinds (Llama 4)
    ("llama-4-scout", "text_config.moe_layers", 7,
     "config field 'text_config.moe_layers' is 7; it must be a list"),
    ("llama-4-scout", "text_config.moe_layers", ["1"],
     f"config field 'text_config.moe_layers' is ['1']; {INDICES}"),
    ("llama-4-maverick", "text_config.interleave_moe_layer_step", "2",
     f"config field 'text_config.interleave_moe_layer_step' is '2'; {WHOLE}"),
    ("llama-4-maverick", "text_config.interleave_moe_layer_step", -2,
     f"config field 'text_config.interleave_moe_layer_step' is -2; {AT_LEAST_0}"),
    ("llama-4-scout", "text_config.no_rope_layer_interval", [4],
     f"config field 'text_config.no_rope_layer_interval' is [4]; {WHOLE}"),
    # params_multimodal._pair (Qwen2.5-VL) and moonvit_vision (Kimi-K2.5)
    ("qwen2.5-vl-7b", "vision_config.patch_size", [[14], [14]],
     "vision_config.patch_size [[14], [14]] is not a square kernel"),
    ("qwen2.5-vl-7b", "vision_config.temporal_patch_size", ["2", "2"],
     "vision_config.temporal_patch_size ['2', '2'] is not a square kernel"),
    ("kimi-k2.5", "vision_config.merge_kernel_size", [True, True],
     "vision_config.merge_kernel_size [True, True] is not [h, w]"),
    ("kimi-k2.5", "vision_config.merge_kernel_size", [-2, -2],
     "vision_config.merge_kernel_size [-2, -2] is not [h, w]"),
]


@pytest.mark.parametrize(("config", "field", "value", "tail"), CASES,
                         ids=[f"{c}:{f}={v!r}" for c, f, v, _ in CASES])
def test_a_wrong_type_in_an_optional_field_is_one_line(
    tmp_path: Path, config: str, field: str, value: Any, tail: str
) -> None:
    """`kvplan import CONFIG` with `field` (a dotted path into the config) set to `value`:
    exit 2 and the one line `error: CONFIG: cannot import: ` + `tail`, never an internal error
    (exit 3); the line names the field by its dotted path (task h48mend)."""
    data = json.loads((CONFIGS / f"{config}.json").read_text())
    *parents, key = field.split(".")
    block = data
    for name in parents:
        block = block[name]
    assert key in block or key in ABSENT, f"{config} has no {field} to mutate"
    block[key] = value
    if key == "no_rope_layer_interval":  # read only where no_rope_layers is absent
        block["no_rope_layers"] = None
    path = tmp_path / f"{config}.json"
    path.write_text(json.dumps(data))
    result = invoke(CliRunner(), "import", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: {path}: cannot import: {tail}"
    assert field in result.output
