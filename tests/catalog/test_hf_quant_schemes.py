"""The quantization schemes of the third-party re-exports that tests/assets/model_ids/ids.tsv
refuses: the importer (the hub path those ids would take) prices none of them yet, and says so.

Each fragment in tests/assets/hf_configs/quantization/ is the `quantization_config` (or
`compression_config`) block of a public config.json, copied as read (sources in
tests/assets/hf_configs/SOURCES.md, "The eighth pass"); it is set on the shipped fixture whose
shapes that config.json prints. When one of these schemes is priced exactly, its test here
fails, and the ids.tsv rows that cite it are to be looked at again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model, spec_from_config
from kvplan.specs.hf_layers import ImportRefused
from kvplan.units import DType
from tests.conftest import invoke

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
FRAGMENTS = CONFIGS / "quantization"

# fragment -> (the shipped fixture with the shapes its config.json prints, the refusal)
CASES = {
    # transformers' re-save of hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4 (ids.tsv)
    "patronusai--llama-3.1-70b-instruct-awq-int4": (
        "llama-3.1-70b", "quantization_config quant_method 'awq' is not handled"),
    # AutoRound's GPTQ export, the format of kaitchup/Phi-4-AutoRound-GPTQ-4bit (ids.tsv)
    "intel--gemma-2b-int4-inc": ("gemma-2b", "quantization_config quant_method 'gptq' is not handled"),
    # unsloth's own bnb-4bit export: nf4, double-quantized absmax (unsloth/*-bnb-4bit in ids.tsv)
    "unsloth--deepseek-r1-distill-llama-70b-bnb-4bit": (
        "llama-3.3-70b", "quantization_config quant_method 'bitsandbytes' is not handled"),
    # compressed-tensors FP8 per channel under the older key (neuralmagic's 2024 FP8 exports)
    "nousresearch--hermes-3-llama-3.1-405b-fp8": (
        "llama-3.1-405b", "compressed-tensors quantization_config: set on a model without routed "
        "experts"),
}


def _config(fragment: str) -> dict[str, Any]:
    base, _ = CASES[fragment]
    cfg = json.loads((CONFIGS / f"{base}.json").read_text())
    cfg.update(json.loads((FRAGMENTS / f"{fragment}.json").read_text()))
    return cfg


def test_every_fragment_is_a_case():
    assert {p.stem for p in FRAGMENTS.glob("*.json")} == set(CASES)


@pytest.mark.parametrize("fragment", sorted(CASES))
def test_scheme_is_refused_with_its_reason(tmp_path: Path, fragment: str):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config(fragment)))
    with pytest.raises(InputError, match=f"cannot import: {CASES[fragment][1]}"):
        import_model(str(path))


def test_refusal_is_one_line_exit_2(tmp_path: Path, runner):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config("patronusai--llama-3.1-70b-instruct-awq-int4")))
    result = invoke(runner, "import", str(path))
    assert result.exit_code == 2
    assert "'awq' is not handled" in result.output and "Traceback" not in result.output


def test_compression_config_is_read_not_ignored():
    # before this pass the importer read only `quantization_config`: the 405B FP8 export imported
    # as bf16 weights, 2 x 405,853,388,800 bytes, twice what it stores, with no word of it
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    with pytest.raises(ImportRefused, match="without routed experts"):
        spec_from_config(cfg, name="h", hf_id="x/h", origin="test")
    # a stated --weight-dtype still prices the whole model in it, as for any quantization_config
    spec = spec_from_config(cfg, name="h", hf_id="x/h", origin="test", weight=DType.fp8)
    assert spec.weight_dtype is DType.fp8
    assert spec.params_total == load_model("llama-3.1-405b").params_total == 405_853_388_800


def test_nested_compression_config_is_read():
    # the older vLLM reading: the scheme under compression_config.quantization_config
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["compression_config"] = {"quantization_config": cfg["compression_config"],
                                 "sparsity_config": None}
    with pytest.raises(ImportRefused, match="without routed experts"):
        spec_from_config(cfg, name="h", hf_id="x/h", origin="test")


@pytest.mark.parametrize("block", ["fp8", ["fp8"], {"quantization_config": "fp8"}])
def test_malformed_compression_config_is_refused(block: object):
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["compression_config"] = block
    with pytest.raises(ImportRefused, match="compression_config: the quantization scheme is"):
        spec_from_config(cfg, name="h", hf_id="x/h", origin="test")


def test_quantization_config_wins_over_compression_config():
    # both keys: quantization_config is what vLLM reads first; the fp8 one prices as fp8
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    spec = spec_from_config(cfg, name="h", hf_id="x/h", origin="test")
    assert spec.weight_dtype is DType.fp8
    assert "compression_config" not in (spec.notes or "")
