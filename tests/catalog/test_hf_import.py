"""`kvplan import`: each fixture gives the shipped spec; unknown layouts are refused."""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model, spec_yaml
from kvplan.specs.hf_layers import compress_pattern
from kvplan.specs.schema import LayerKind
from kvplan.units import DType
from tests.catalog.catalog_sources import OFFICIAL
from tests.conftest import invoke

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
SHIPPED = sorted(p.stem for p in CONFIGS.glob("*.json"))
# the copies read of these two carry no torch_dtype; the shipped spec says bf16 and why
WEIGHT = {"mistral-nemo-12b": DType.bf16, "mistral-small-24b": DType.bf16,
          "llama-3.1-70b-instruct-fp8": DType.fp8}
# ModelOpt checkpoints state their quantization in hf_quant_config.json beside config.json: these
# are imported from the snapshot folder holding both (its config.json is the fixture byte for byte,
# tests/catalog/test_fp8_releases.py), with --weight-dtype fp8, as the shipped spec was built
FOLDER = {"llama-3.1-70b-instruct-fp8": CONFIGS / "quantization" / "nvidia--llama-3.1-70b-instruct-fp8"}
# shipped counts that are official and exact: the estimate must equal them
EXACT_OFFICIAL = {
    "llama-2-7b",
    "llama-3-8b",
    "qwen2.5-72b",
    "deepseek-v2-lite",
    "gpt-oss-20b",
    "qwen3-coder-30b-a3b",
    "qwen2.5-0.5b",
    "qwen2-7b",
    "gemma-3-1b",
    *OFFICIAL,
}
PROVENANCE = {"source", "notes", "params_total", "params_active", "params_estimated", "aliases"}


@pytest.mark.parametrize("name", SHIPPED)
def test_import_equals_shipped(name: str):
    shipped = load_model(name)
    imported = import_model(
        str(FOLDER.get(name, CONFIGS / f"{name}.json")), name=name, hf_id=shipped.hf_id,
        weight=WEIGHT.get(name)
    )
    assert imported.model_dump(exclude=PROVENANCE) == shipped.model_dump(exclude=PROVENANCE)
    assert imported.params_estimated
    if shipped.params_estimated or name in EXACT_OFFICIAL:
        assert imported.params_total == shipped.params_total
    else:  # the model card's rounded figure (DeepSeek-V3/R1: 671B)
        assert abs(imported.params_total - shipped.params_total) < shipped.params_total // 1000


def test_output_is_deterministic():
    path = str(CONFIGS / "gemma-3-27b.json")
    assert spec_yaml(import_model(path)) == spec_yaml(import_model(path))


def test_cli_import_writes_a_spec_size_accepts(runner, tmp_path):
    out = tmp_path / "qwen3-32b-mine.yaml"
    result = invoke(runner, "import", str(CONFIGS / "qwen3-32b.json"), "-o", str(out))
    assert result.exit_code == 0, result.output
    spec = load_model(str(out))
    assert spec.name == "qwen3-32b-mine"
    assert spec.attention.head_dim == 128  # explicit, not 5120 / 64 = 80
    sized = invoke(runner, "size", str(out), "--gpu", "h200", "--context", "8192", "-f", "json")
    assert sized.exit_code == 0, sized.output
    assert json.loads(sized.stdout)["results"][0]["kv_bytes_per_token"] == 262_144


def test_size_takes_a_config_json(runner):
    result = invoke(runner, "size", str(CONFIGS / "falcon-7b.json"), "-c", "2048", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["kv_bytes_per_token"] == 8_192


def _safetensors(path: Path, tensors: dict[str, list[int]], dtype: str = "BF16") -> None:
    header, offset = {}, 0
    for key, shape in tensors.items():
        n = 2
        for d in shape:
            n *= d
        header[key] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + bytes(offset))


def test_snapshot_folder_counts_parameters_from_headers(tmp_path):
    snap = tmp_path / "SmolLM2-135M"
    snap.mkdir()
    (snap / "config.json").write_text((CONFIGS / "tiny-test-model.json").read_text())
    _safetensors(snap / "model.safetensors", {"a": [576, 49152], "b": [30, 576]})
    spec = import_model(str(snap))
    assert spec.name == "smollm2-135m"
    assert spec.params_total == 576 * 49152 + 30 * 576
    assert not spec.params_estimated
    assert "safetensors" in spec.source


def test_snapshot_with_quantized_tensors_falls_back_to_estimate(tmp_path):
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "config.json").write_text((CONFIGS / "tiny-test-model.json").read_text())
    _safetensors(snap / "model.safetensors", {"a": [4, 4]}, dtype="U8")
    spec = import_model(str(snap))
    assert spec.params_estimated and spec.params_total == load_model("tiny-test-model").params_total


def _refused(tmp_path: Path, cfg: dict, match: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(InputError, match=match):
        import_model(str(path))


def _cfg(name: str, **change: object) -> dict:
    cfg = json.loads((CONFIGS / f"{name}.json").read_text())
    cfg.update(change)
    return {k: v for k, v in cfg.items() if v is not ...}


def test_refuses_unknown_model_type(tmp_path):
    _refused(tmp_path, _cfg("llama-3-8b", model_type="jamba"), "'jamba' is not supported")


def test_llama4_chunked_layers_are_sliding_and_nope_layers_full(runner):
    # Llama4TextConfig default: every 4th layer (3, 7, ...) is NoPE/global, the others attend
    # within 8192-token chunks, so they never hold more than one chunk
    result = invoke(runner, "import", str(CONFIGS / "llama-4-scout.json"))
    assert result.exit_code == 0, result.output
    assert "layer_pattern: [sliding, sliding, sliding, full]" in result.output
    assert "sliding_window_tokens: 8192" in result.output


def test_llama4_explicit_no_rope_layers_are_followed(tmp_path):
    cfg = _cfg("llama-4-scout")
    cfg["text_config"] = {**cfg["text_config"], "no_rope_layers": [0, 1] * 24}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    kinds = import_model(str(path)).layer_kinds()
    assert kinds[:4] == [LayerKind.full, LayerKind.sliding, LayerKind.full, LayerKind.sliding]
    assert kinds.count(LayerKind.full) == 24


def test_llama4_without_chunking_is_all_full(tmp_path):
    cfg = _cfg("llama-4-scout")
    cfg["text_config"] = {**cfg["text_config"], "attention_chunk_size": None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    spec = import_model(str(path))
    assert spec.attention.layer_pattern == [LayerKind.full]
    assert spec.attention.sliding_window_tokens is None


def test_refuses_unknown_layer_type(tmp_path):
    cfg = _cfg("gpt-oss-20b")
    cfg["layer_types"] = ["chunked_attention"] * 24
    _refused(tmp_path, cfg, "chunked_attention")


def test_refuses_window_it_cannot_place(tmp_path):
    _refused(tmp_path, _cfg("llama-3-8b", sliding_window=4096), "which layers")


def test_refuses_missing_dtype(tmp_path):
    _refused(tmp_path, _cfg("llama-3-8b", torch_dtype=...), "--weight-dtype")


def test_refuses_falcon_new_architecture(tmp_path):
    _refused(tmp_path, _cfg("falcon-7b", new_decoder_architecture=True), "new_decoder_architecture")


def test_mha_when_kv_heads_absent(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_cfg("llama-2-7b", num_key_value_heads=...)))
    spec = import_model(str(path))
    assert spec.attention.num_kv_heads == 32
    assert "multi-head" in (spec.notes or "")


def test_qwen_window_switched_on_uses_max_window_layers(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_cfg("qwen2.5-7b", use_sliding_window=True, max_window_layers=21)))
    spec = import_model(str(path))
    kinds = spec.layer_kinds()
    assert kinds.count(LayerKind.full) == 21 and kinds[21:] == [LayerKind.sliding] * 7


def test_hub_id_without_huggingface_hub(monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(InputError, match=r"needs huggingface_hub: pip install huggingface_hub"):
        import_model("Qwen/Qwen3-8B")


def test_hub_id_offline_says_so(monkeypatch, tmp_path):
    """An unreachable hub with nothing cached: one line at once, no retries."""
    pytest.importorskip("huggingface_hub")
    from kvplan.specs import hub

    monkeypatch.setattr(hub, "reachable", lambda *_a, **_k: False)
    with pytest.raises(InputError, match="cannot be reached and the hub cache has no copy"):
        import_model("acme/not-in-any-cache-" + tmp_path.name)


def test_not_a_path_nor_hub_id():
    with pytest.raises(InputError, match="no such file"):
        import_model("missing.json")


def test_bad_json(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        import_model(str(path))


@given(st.lists(st.sampled_from(list(LayerKind)), min_size=1, max_size=64))
def test_compressed_pattern_cycles_back_to_every_layer(kinds):
    pattern = compress_pattern(kinds)
    assert [pattern[i % len(pattern)] for i in range(len(kinds))] == kinds
    assert len(kinds) % len(pattern) == 0 or len(pattern) <= len(kinds)


def test_hub_cache_snapshot_names_the_model(tmp_path):
    snap = tmp_path / "models--HuggingFaceTB--SmolLM2-135M" / "snapshots" / "0123abc"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text((CONFIGS / "tiny-test-model.json").read_text())
    spec = import_model(str(snap))
    assert (spec.name, spec.hf_id) == ("smollm2-135m", "HuggingFaceTB/SmolLM2-135M")


@pytest.mark.parametrize("name", SHIPPED)
def test_yaml_round_trip(name: str):
    import yaml

    from kvplan.specs import validate
    from kvplan.specs.schema import ModelSpec

    spec = import_model(str(CONFIGS / f"{name}.json"), weight=WEIGHT.get(name))
    assert validate(ModelSpec, yaml.safe_load(spec_yaml(spec)), name) == spec


def test_shipped_files_are_what_spec_yaml_writes():
    # the catalog files are the importer's own output format, byte for byte
    root = Path(__file__).parents[2] / "model_specs"
    for name in SHIPPED:
        text = (root / f"{name}.yaml").read_text()
        assert spec_yaml(load_model(name)) == text, name


def test_cli_weight_dtype_fills_a_missing_torch_dtype(runner):
    path = str(CONFIGS / "mistral-nemo-12b.json")
    refused = invoke(runner, "import", path)
    assert refused.exit_code == 2 and "--weight-dtype" in refused.output
    result = invoke(runner, "import", path, "--weight-dtype", "bf16", "--name", "nemo")
    assert result.exit_code == 0, result.output
    assert "weight_dtype: bf16" in result.output and "head_dim: 128" in result.output
    bad = invoke(runner, "import", path, "--weight-dtype", "fp5")
    assert bad.exit_code == 2 and "unknown precision" in bad.output


def test_gemma3_text_only_config(tmp_path):
    # a text-only Gemma 3 checkpoint: the same text shapes at the top level, no vision tower
    full = json.loads((CONFIGS / "gemma-3-27b.json").read_text())
    text = {**full["text_config"], "model_type": "gemma3_text", "torch_dtype": "bfloat16"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(text))
    spec, shipped = import_model(str(path)), load_model("gemma-3-27b")
    assert spec.attention == shipped.attention
    # SigLIP: patch + position embeddings, 27 encoder layers, final LayerNorm; projector
    h, i = 1152, 4304
    vision = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * (4 * (h * h + h) + 2 * h * i + i + h + 4 * h)
    vision += 2 * h + h * 5376 + h
    assert shipped.params_total - spec.params_total == vision


def test_refuses_chunked_attention_key_on_a_known_type(tmp_path):
    _refused(tmp_path, _cfg("llama-3-8b", attention_chunk_size=8192), "chunked local attention")


def test_size_takes_a_snapshot_folder(runner, tmp_path):
    snap = tmp_path / "qwen3-8b"
    snap.mkdir()
    (snap / "config.json").write_text((CONFIGS / "qwen3-8b.json").read_text())
    result = invoke(runner, "size", str(snap), "--gpu", "l40s", "-c", "4096", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["kv_bytes_per_token"] == 147_456
