"""`kvplan import` reads model_type mistral3 (Mistral3ForConditionalGeneration: Mistral Small 3.1
and 3.2), tested on the real Mistral-Small-3.1-24B-Instruct-2503 config.json
(tests/assets/hf_configs/mistral-small-3.1-24b.json; SOURCES.md says where it was read).

transformers (models/mistral3/configuration_mistral3.py, Mistral3Config) keeps the language model
in the nested `text_config`, an AutoConfig of model_type "mistral" where the dict names none, and
the Pixtral tower in `vision_config`; kvplan reads the text_config as a Mistral config and counts
the tower and the projector (models/mistral3/modeling_mistral3.py, models/pixtral/
modeling_pixtral.py). The figures below are the config's arithmetic:
- KV: 40 layers x 8 KV heads x head_dim 128 x 2 (K, V) x 2 B = 163,840 B a token (fp16/bf16);
- parameters: 24,011,361,280, keras-hub's published count of this checkpoint
  (mistral3_presets.py, mistral_small_3.1_24b_instruct_2503_en), of which the Pixtral tower
  403,305,472 and the projector 35,652,608 (tests/catalog/test_catalog_table.py has the sums).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.errors import InputError
from kvplan.specs.hf_import import import_model
from kvplan.specs.schema import LayerKind
from kvplan.units import DType
from tests.conftest import config_file, invoke

REAL = Path(__file__).parents[1] / "assets" / "hf_configs" / "mistral-small-3.1-24b.json"


def _real() -> dict[str, Any]:
    return json.loads(REAL.read_text())


def test_the_real_config_imports_as_its_shapes():
    spec = import_model(str(REAL), name="m")
    assert spec.model_type == "mistral3"
    assert (spec.num_layers, spec.num_attention_heads, spec.hidden_size) == (40, 32, 5120)
    assert (spec.attention.num_kv_heads, spec.attention.head_dim) == (8, 128)
    assert spec.attention.layer_pattern == [LayerKind.full]  # sliding_window null
    assert spec.attention.sliding_window_tokens is None
    assert (spec.intermediate_size, spec.vocab_size, spec.max_context_tokens) == (32768, 131072,
                                                                                  131072)
    assert spec.weight_dtype is DType.bf16  # the top-level torch_dtype, read under text_config
    assert spec.params_total == 24_011_361_280  # keras-hub's published count
    assert spec.params_encoder == 403_305_472 + 35_652_608
    assert spec.moe is None


def test_kvplan_import_cli_and_size(runner, tmp_path):
    out = tmp_path / "m.yaml"
    got = invoke(runner, "import", str(REAL), "-o", str(out))
    assert got.exit_code == 0, got.output
    sized = invoke(runner, "size", str(out), "--gpu", "h100", "--kv-dtype", "fp16",
                   "--context", "4096", "--format", "json")
    assert sized.exit_code == 0, sized.output
    row = json.loads(sized.stdout)["results"][0]
    assert row["kv_bytes_per_token"] == 2 * 40 * 8 * 128 * 2 == 163_840
    assert row["weights_bytes"] == 24_011_361_280 * 2  # bf16


def test_text_config_without_model_type_is_read_as_mistral(tmp_path):
    # Mistral3Config's sub_configs_defaults build text_config as model_type "mistral"
    cfg = _real()
    del cfg["text_config"]["model_type"]
    spec = import_model(config_file(tmp_path, cfg), name="m")
    assert spec.params_total == 24_011_361_280


def test_a_windowed_text_config_windows_every_layer_as_mistral_does(tmp_path):
    cfg = _real()
    cfg["text_config"]["sliding_window"] = 4096
    spec = import_model(config_file(tmp_path, cfg), name="m")
    assert spec.attention.layer_pattern == [LayerKind.sliding]
    assert spec.attention.sliding_window_tokens == 4096


@pytest.mark.parametrize(("change", "message"), [
    # Mistral 4 and Ministral 3 checkpoints put other text types under mistral3
    (lambda c: c["text_config"].update(model_type="mistral4"),
     "text_config.model_type 'mistral4' under model_type 'mistral3' is not handled"),
    (lambda c: c.pop("text_config"), "model_type 'mistral3' without a text_config"),
    (lambda c: c["vision_config"].update(model_type="siglip_vision_model"),
     "vision_config.model_type 'siglip_vision_model': only the pixtral tower is counted"),
    (lambda c: c.update(vision_feature_layer="last"),
     "vision_feature_layer 'last' must be a layer index or a list of them"),
])
def test_what_is_not_read_is_refused_in_one_line(runner, tmp_path, change, message: str):
    cfg = _real()
    change(cfg)
    path = config_file(tmp_path, cfg)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_model(path)
    got = invoke(runner, "import", path)
    assert got.exit_code == 2, got.output
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], got.stderr


def test_projector_options_change_the_count(tmp_path):
    # multimodal_projector_bias adds linear_1's and linear_2's biases (2 x 5,120); two feature
    # layers widen linear_1's input to 2 x 1,024 (1,024 x 5,120 more)
    base = import_model(str(REAL), name="m").params_total
    cfg = _real() | {"multimodal_projector_bias": True}
    assert import_model(config_file(tmp_path, cfg), name="m").params_total == base + 2 * 5120
    cfg = _real() | {"vision_feature_layer": [-1, -2]}
    assert import_model(config_file(tmp_path, cfg), name="m").params_total == base + 1024 * 5120

