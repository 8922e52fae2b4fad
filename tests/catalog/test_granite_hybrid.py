"""Granite 4.0 (`granitemoehybrid`): Mamba2 hybrids and all-attention configs through
`kvplan import`, the Mamba2 state and its split over tensor-parallel ranks (vLLM's
MambaStateShapeCalculator.mamba2_state_shape), vLLM's hybrid block arithmetic checked against
the public granite-4.0-h-small start-up log, and the parameter count against transformers.

No Granite 4.0 spec ships (docs/catalog.md: no complete config.json was found); the configs
below carry the sourced shapes and are test inputs only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.capacity.kv import (
    Precision,
    mamba2_groups_per_gpu,
    stage_caches,
    state_bytes_per_layer,
    state_elements_per_gpu,
)
from kvplan.engines.vllm_hybrid import hybrid_block_size, padding_note
from kvplan.errors import InputError
from kvplan.specs.hf_import import import_model, spec_yaml
from kvplan.specs.schema import LayerKind, LinearState, Mamba2State, ModelSpec
from kvplan.units import DType
from tests.conftest import GRANITE_ATTENTION_AT as ATTENTION_AT
from tests.conftest import GRANITE_H_SMALL as H_SMALL
from tests.conftest import config_file, invoke

# granite-4.0-micro's shapes: 40 attention layers of 8 KV heads x 64 (2,560 / 40 heads); its
# vLLM log (tests/assets/logs/52, held out) prints 463,136 tokens in 35.34 GiB: 81,920 B a token
MICRO: dict[str, Any] = {
    **H_SMALL, "hidden_size": 2560, "num_attention_heads": 40, "num_local_experts": 0,
    "num_experts_per_tok": 0, "intermediate_size": 8192, "shared_intermediate_size": 8192,
    "mamba_d_state": 256, "mamba_d_head": 40, "position_embedding_type": "rope",
    "layer_types": ["attention"] * 40,
}


def _spec(tmp_path: Path, cfg: dict[str, Any]) -> ModelSpec:
    return import_model(config_file(tmp_path, cfg), name="granite-test")


def test_hybrid_import_reads_layers_state_and_experts(tmp_path):
    spec = _spec(tmp_path, H_SMALL)
    kinds = spec.layer_kinds()
    assert [i for i, k in enumerate(kinds) if k is LayerKind.full] == list(ATTENTION_AT)
    assert kinds.count(LayerKind.linear) == 36
    att = spec.attention
    assert (att.num_kv_heads, att.head_dim) == (8, 128)
    # periodic here (every 10th layer from 5): the 10-layer prefix repeats
    assert len(att.layer_pattern) == 10
    linear = att.linear
    assert linear is not None and linear.mamba2 is not None
    assert (linear.mamba2.n_heads, linear.mamba2.head_dim, linear.mamba2.d_state,
            linear.mamba2.n_groups, linear.mamba2.conv_kernel) == (128, 64, 128, 1, 4)
    # conv 3 x (128 x 64 + 2 x 1 x 128) = 3 x 8,448 = 25,344; SSM 128 x 64 x 128 = 1,048,576
    assert linear.state_elements_per_layer == 25_344 + 1_048_576 == 1_073_920
    assert spec.moe is not None
    assert (spec.moe.num_experts, spec.moe.experts_per_token, spec.moe.moe_intermediate_size,
            spec.moe.num_shared_experts) == (72, 10, 768, 1)
    assert spec.intermediate_size == 1536  # the shared MLP every layer has
    assert spec.max_context_tokens == 131072 and spec.weight_dtype is DType.bf16
    assert spec.attention_kind == "GQA hybrid (linear)"
    assert "36 Mamba2 and 4 attention layers" in (spec.notes or "")


def test_irregular_layer_types_are_kept_exactly(tmp_path):
    # Granite-4.0-H-350M-shaped order (attention at 10, 13, 17, 27 of 32): the shortest prefix
    # that repeats into the whole list is 28 layers long (layers 28-31 are Mamba2 like 0-3)
    at = (10, 13, 17, 27)
    cfg = {**H_SMALL, "num_hidden_layers": 32,
           "layer_types": ["attention" if i in at else "mamba" for i in range(32)]}
    spec = _spec(tmp_path, cfg)
    assert len(spec.attention.layer_pattern) == 28
    cfg["layer_types"][31] = "attention"  # no shorter period at all: the whole list
    assert len(_spec(tmp_path, cfg).attention.layer_pattern) == 32
    assert [i for i, k in enumerate(spec.layer_kinds()) if k is LayerKind.full] == list(at)
    # pipeline stages follow the positions: PP 2 splits 16 + 16 layers, attention 10 and 13 in
    # the first stage, 17 and 27 in the second
    stages = stage_caches(spec, Precision(DType.bf16), 1, 2)
    assert [s.full_layers for s in stages] == [2, 2]
    assert [s.linear_layers for s in stages] == [14, 14]


def test_attention_only_granite_is_plain_gqa(tmp_path):
    spec = _spec(tmp_path, MICRO)
    assert spec.attention.layer_pattern == [LayerKind.full]
    assert spec.attention.linear is None and spec.moe is None
    assert (spec.attention.num_kv_heads, spec.attention.head_dim) == (8, 64)
    assert spec.intermediate_size == 8192
    stage = stage_caches(spec, Precision(DType.bf16), 1, 1)[0]
    # 40 layers x 2 (K, V) x 8 heads x 64 x 2 B = 81,920 B a token; log 52 (held out) prints
    # 463,136 tokens in 35.34 GiB: 463,136 x 81,920 = 37,940,101,120 B = 35.334 GiB
    assert stage.bytes_per_token == 40 * 2 * 8 * 64 * 2 == 81_920
    assert stage.state_bytes_per_sequence == 0
    assert "all 40 layers attention" in (spec.notes or "")


@pytest.mark.parametrize(
    ("tp", "elements"),
    [
        (1, 3 * (8192 + 2 * 128) + 128 * 64 * 128),  # 1,073,920
        (2, 3 * (4096 + 2 * 128) + 64 * 64 * 128),  # 537,344: the one group on both ranks
        (4, 3 * (2048 + 2 * 128) + 32 * 64 * 128),  # 269,056
        (8, 3 * (1024 + 2 * 128) + 16 * 64 * 128),  # 134,912
    ],
)
def test_mamba2_state_split_over_tp_as_vllm(tmp_path, tp, elements):
    spec = _spec(tmp_path, H_SMALL)
    linear = spec.attention.linear
    assert linear is not None
    assert state_elements_per_gpu(linear, tp) == elements
    # not the even split (1,073,920 / tp) Gated DeltaNet gets: the groups are replicated
    assert (tp == 1) == (elements == -(-1_073_920 // tp))
    assert state_bytes_per_layer(spec, tp) == elements * 2  # bf16 weights


@pytest.mark.parametrize(("groups", "tp", "per_gpu"), [(1, 1, 1), (1, 4, 1), (8, 4, 2),
                                                        (8, 8, 1), (2, 8, 1), (4, 2, 2)])
def test_groups_per_rank(groups, tp, per_gpu):
    # extra_groups_for_head_shards: 0 when tp divides the groups, else tp - groups (so tp in all)
    assert mamba2_groups_per_gpu(groups, tp) == per_gpu


def test_vllm_block_and_padding_match_the_h_small_log(tmp_path):
    """vLLM 0.11.1rc6 serving granite-4.0-h-small at TP 1, bf16 (ROCm/ROCm issue 5590, code
    index id 57002958791) prints "Setting attention block size to 528 tokens" and "Padding
    mamba page size by 0.69%"; the log stops before the KV cache size (a GPU hang), so it is
    not a calibration log."""
    spec = _spec(tmp_path, H_SMALL)
    linear = spec.attention.linear
    assert linear is not None
    state_page = state_elements_per_gpu(linear, 1) * 2  # conv and SSM state both bf16 ("auto")
    assert state_page == 2_147_840
    per_token = 2 * 8 * 128 * 2  # one attention layer: K and V, 8 heads x 128, bf16
    # 16 x ceil(2,147,840 / (16 x 4,096)) = 16 x 33 = 528
    assert hybrid_block_size(per_token, state_page, 16, 16) == 528
    # (528 x 4,096 - 2,147,840) / 2,147,840 = 14,848 / 2,147,840 = 0.691%
    assert padding_note(528 * per_token, state_page).startswith("state page padded by 0.69%")


def test_size_and_explain_show_the_state(tmp_path, runner):
    spec_path = tmp_path / "granite-test.yaml"
    spec_path.write_text(spec_yaml(_spec(tmp_path, H_SMALL)))
    result = invoke(runner, "size", str(spec_path), "--gpu", "h100", "--engine", "vllm")
    assert result.exit_code == 0, result.output
    assert "528-token blocks" in result.output
    # 36 Mamba2 layers x 2,147,840 B (bf16) = 77,322,240 B
    assert "of which state       73.74 MiB (77,322,240 B)" in result.output
    result = invoke(runner, "size", str(spec_path), "--gpu", "h100", "--engine", "vllm",
                    "--tp", "2", "--format", "json")
    data = json.loads(result.stdout)["results"][0]
    # TP 2: 36 x 537,344 x 2 B = 38,688,768 B; vLLM's pages: the same elements, model dtype
    assert data["state_bytes_per_sequence"] == 36 * 537_344 * 2 == 38_688_768
    plain = invoke(runner, "size", str(spec_path), "--gpu", "h100", "--tp", "2", "--format",
                   "json")
    assert any("36 linear/Mamba2 layer(s) x 1,074,688 B (bf16, split over TP 2) = 38,688,768 B"
               in a for a in json.loads(plain.stdout)["results"][0]["assumptions"])
    assert any("fixed state per sequence 36 layer(s) x 1,074,688 B = 38,688,768 B" in a
               for a in data["assumptions"])
    result = invoke(runner, "explain", str(spec_path), "--gpu", "h100", "--engine", "vllm",
                    "--tp", "2")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert ("Mamba2 on one GPU: conv 3 x (8,192 / TP 2 + 2 x 1 group(s) x 128) + SSM 128 / TP 2 "
            "x 64 x 128 = 537,344 elements x 2 B") in text


def test_mamba2_total_must_match_its_shape():
    shape = Mamba2State(n_heads=128, head_dim=64, d_state=128, n_groups=1, conv_kernel=4)
    assert shape.conv_elements + shape.ssm_elements == 1_073_920
    with pytest.raises(ValueError, match="does not match the mamba2 shape"):
        LinearState.model_validate({"state_elements_per_layer": 1_073_919, "formula": "x",
                                    "mamba2": shape.model_dump()})


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"layer_types": None}, "layer_types with one entry per layer"),
        ({"layer_types": ["mamba"] * 39}, "layer_types with one entry per layer"),
        ({"layer_types": ["mamba"] * 39 + ["shortconv"]}, "shortconv"),
        ({"mamba_d_head": 32}, "mamba_d_head 32"),
        ({"mamba_n_heads": None}, "mamba_n_heads"),
        ({"mamba_d_conv": 1}, "mamba_d_conv"),
        ({"num_experts_per_tok": None}, "num_experts_per_tok"),
        ({"shared_intermediate_size": 0}, "shared_intermediate_size"),
        ({"sliding_window": 4096}, "sliding_window"),
        ({"num_key_value_heads": 3}, "num_kv_heads"),
    ],
)
def test_malformed_granite_hybrid_is_refused_on_one_line(tmp_path, runner, changes, reason):
    cfg = {k: v for k, v in {**H_SMALL, **changes}.items() if v is not None}
    path = config_file(tmp_path, cfg)
    with pytest.raises(InputError, match=reason):
        import_model(path)
    result = invoke(runner, "import", path)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def _transformers_count(cfg: dict[str, Any]) -> int:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = transformers.AutoConfig.for_model(**cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(
    "changes",
    [
        {},  # routed experts + shared MLP, tied embeddings
        {"tie_word_embeddings": False, "mamba_n_groups": 2},
        {"num_local_experts": 0, "num_experts_per_tok": 0},  # dense hybrid (H-Micro's kind)
        {"mamba_proj_bias": True, "mamba_conv_bias": False, "attention_bias": True},
        {"layer_types": ["attention"] * 4},  # all attention (Micro's kind)
        {"mamba_d_head": "auto"},
    ],
)
def test_parameter_count_matches_transformers(tmp_path, changes):
    # H-Small's layout, narrowed so the meta-device build is quick; every tensor kind is built
    cfg = {**H_SMALL, "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 2,
           "num_hidden_layers": 4, "intermediate_size": 64, "shared_intermediate_size": 96,
           "num_local_experts": 6, "num_experts_per_tok": 2, "vocab_size": 1000,
           "mamba_n_heads": 16, "mamba_d_head": 32, "mamba_d_state": 24,
           "layer_types": ["mamba", "attention", "mamba", "mamba"], **changes}
    spec = _spec(tmp_path, cfg)
    assert spec.params_total == _transformers_count(cfg)


def test_h_small_parameter_count(tmp_path):
    spec = _spec(tmp_path, H_SMALL)
    hidden, conv_dim, inner, heads = 4096, 8192 + 2 * 128, 8192, 128
    mamba = (hidden * (inner + conv_dim + heads) + conv_dim * 4 + conv_dim + 3 * heads + inner
             + inner * hidden)  # in_proj, conv1d + bias, dt_bias/A_log/D, gated norm, out_proj
    attention = hidden * 4096 + 2 * hidden * 1024 + 4096 * hidden
    shared = 3 * hidden * 1536
    expert = 3 * hidden * 768
    base = 100352 * hidden + hidden + 40 * (2 * hidden + shared + 72 * hidden) + 4 * attention \
        + 36 * mamba
    assert spec.params_total == base + 40 * 72 * expert == 32_207_337_984
    assert spec.params_active == base + 40 * 10 * expert == 8_803_121_664
