"""The quantization schemes of the third-party re-exports that tests/assets/model_ids/ids.tsv
refuses, and the two the importer now prices exactly (GPTQ, AWQ: `weight_quant`).

Each fragment in tests/assets/hf_configs/quantization/ is the `quantization_config` (or
`compression_config`) block of a public config.json, copied as read (sources in
tests/assets/hf_configs/SOURCES.md, "The eighth pass"); it is set on the shipped fixture whose
shapes that config.json prints. CASES are refused with their reason; PRICED are imported and
their weights derived by hand below (kvplan.capacity.linear_quant, as vLLM 0.11.0's gptq.py and
awq.py `create_weights` register the tensors).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.specs.hf_import import import_model, spec_from_config
from kvplan.specs.hf_layers import ImportRefused
from kvplan.units import DType
from tests.conftest import invoke
from tests.hub_offline import hub_cache, run_kvplan

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
FRAGMENTS = CONFIGS / "quantization"

# fragment -> (the shipped fixture with the shapes its config.json prints, the refusal)
CASES = {
    # unsloth's own bnb-4bit export: nf4, double-quantized absmax (unsloth/*-bnb-4bit in ids.tsv)
    "unsloth--deepseek-r1-distill-llama-70b-bnb-4bit": (
        "llama-3.3-70b", "quantization_config.quant_method 'bitsandbytes' is not handled"),
}


# fragment -> the shipped fixture with the shapes its config.json prints (priced exactly)
PRICED = {
    # transformers' re-save of hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4 (ids.tsv)
    "patronusai--llama-3.1-70b-instruct-awq-int4": "llama-3.1-70b",
    # AutoRound's GPTQ export, the format of kaitchup/Phi-4-AutoRound-GPTQ-4bit (ids.tsv)
    "intel--gemma-2b-int4-inc": "gemma-2b",
    # compressed-tensors W8A8 (task h59fp8; tests/catalog/test_dense_8bit.py prices them):
    # FP8 per channel under the older key (neuralmagic's 2024 FP8 exports)
    "nousresearch--hermes-3-llama-3.1-405b-fp8": "llama-3.1-405b",
    "neuralmagic--llama-3.2-3b-instruct-quantized.w8a8": "llama-3.2-3b",  # int8 per channel
    "nm-testing--meta-llama3-8b-instruct-quant-fp8": "llama-3-8b",  # fp8 per tensor, static
    "nm-testing--meta-llama-3-8b-instruct-w8a8-static-per-tensor-asym": "llama-3-8b",
}


def _config(fragment: str) -> dict[str, Any]:
    base = PRICED[fragment] if fragment in PRICED else CASES[fragment][0]
    cfg = json.loads((CONFIGS / f"{base}.json").read_text())
    cfg.update(json.loads((FRAGMENTS / f"{fragment}.json").read_text()))
    return cfg


def test_every_fragment_is_a_case():
    assert {p.stem for p in FRAGMENTS.glob("*.json")} == set(CASES) | set(PRICED)


@pytest.mark.parametrize("fragment", sorted(CASES))
def test_scheme_is_refused_with_its_reason(tmp_path: Path, fragment: str):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config(fragment)))
    with pytest.raises(InputError, match=f"cannot import: {CASES[fragment][1]}"):
        import_model(str(path))


def test_refusal_is_one_line_exit_2(tmp_path: Path, runner):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_config("unsloth--deepseek-r1-distill-llama-70b-bnb-4bit")))
    result = invoke(runner, "import", str(path))
    assert result.exit_code == 2
    assert "'bitsandbytes' is not handled" in result.output and "Traceback" not in result.output


def test_compression_config_is_read_not_ignored():
    # before this pass the importer read only `quantization_config`: the 405B FP8 export imported
    # as bf16 weights, 2 x 405,853,388,800 bytes, twice what it stores, with no word of it; now
    # read, and priced as compressed-tensors fp8 (task h59fp8)
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    read = spec_from_config(cfg, name="h", hf_id="x/h", origin="test")
    assert read.weight_quant is not None and read.weight_quant.weight_dtype is DType.fp8
    assert "quantization read from compression_config" in (read.notes or "")
    # a stated --weight-dtype still prices the whole model in it, as for any quantization_config
    spec = spec_from_config(cfg, name="h", hf_id="x/h", origin="test", weight=DType.fp8)
    assert spec.weight_dtype is DType.fp8
    assert spec.params_total == load_model("llama-3.1-405b").params_total == 405_853_388_800


def test_nested_compression_config_is_read():
    # the older vLLM reading: the scheme under compression_config.quantization_config
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["compression_config"] = {"quantization_config": cfg["compression_config"],
                                 "sparsity_config": None}
    spec = spec_from_config(cfg, name="h", hf_id="x/h", origin="test")
    assert spec.weight_quant is not None and spec.weight_quant.method == "compressed-tensors"


@pytest.mark.parametrize("block", ["fp8", ["fp8"], {"quantization_config": "fp8"}])
def test_malformed_compression_config_is_refused(block: object):
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["compression_config"] = block
    with pytest.raises(ImportRefused,
                       match=r"compression_config(\.quantization_config)?: the quantization scheme is"):
        spec_from_config(cfg, name="h", hf_id="x/h", origin="test")


def test_quantization_config_wins_over_compression_config():
    # both keys: quantization_config is what vLLM reads first; the fp8 one prices as fp8
    cfg = _config("nousresearch--hermes-3-llama-3.1-405b-fp8")
    cfg["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    spec = spec_from_config(cfg, name="h", hf_id="x/h", origin="test")
    assert spec.weight_dtype is DType.fp8
    assert "compression_config" not in (spec.notes or "")


# ------------------------------------------------ ModelOpt: hf_quant_config.json beside config.json

MODELOPT = FRAGMENTS / "nvidia--llama-3.1-70b-instruct-fp8"  # config.json + hf_quant_config.json
MODELOPT_REASON = (r"hf_quant_config.json \(modelopt 0.23.0; quant_algo 'FP8', kv_cache_quant_algo "
                   r"'FP8', 1 module pattern\(s\) excluded\) quantizes the weights")


def test_modelopt_config_alone_looks_bf16():
    # what the refusal guards against: config.json has no quantization_config, torch_dtype bf16
    spec = spec_from_config(json.loads((MODELOPT / "config.json").read_text()), name="n",
                            hf_id="x/n", origin="test")
    assert spec.weight_dtype is DType.bf16
    assert spec.params_total == load_model("llama-3.1-70b").params_total == 70_553_706_496


@pytest.mark.parametrize("where", ["folder", "config.json"])
def test_modelopt_snapshot_is_refused(where: str):
    source = MODELOPT if where == "folder" else MODELOPT / "config.json"
    with pytest.raises(InputError, match=MODELOPT_REASON):
        import_model(str(source))


def test_modelopt_with_a_stated_weight_dtype_says_so():
    spec = import_model(str(MODELOPT), weight=DType.fp8)
    assert spec.weight_dtype is DType.fp8
    assert "hf_quant_config.json (modelopt 0.23.0" in (spec.notes or "")
    assert "weights priced in the stated fp8" in (spec.notes or "")


def test_a_config_not_named_config_json_ignores_no_sibling(tmp_path: Path):
    # only a snapshot's own config.json takes the file beside it; a renamed copy is a lone file
    (tmp_path / "hf_quant_config.json").write_text((MODELOPT / "hf_quant_config.json").read_text())
    lone = tmp_path / "llama-70b-fp8.json"
    lone.write_text((MODELOPT / "config.json").read_text())
    assert import_model(str(lone)).weight_dtype is DType.bf16


def _hub_run(home: Path, repo: str, with_quant_file: bool, *args: str) -> subprocess.CompletedProcess[str]:
    """`kvplan ARGS REPO` offline, the hub cache holding the repository's files."""
    names = ["config.json", "hf_quant_config.json"] if with_quant_file else ["config.json"]
    hub_cache(home, repo, {name: (MODELOPT / name).read_text() for name in names})
    return run_kvplan([args[0], repo, *args[1:]], {"HF_HOME": str(home), "HF_HUB_OFFLINE": "1"})


def test_modelopt_through_the_hub_cache_is_refused(tmp_path: Path):
    pytest.importorskip("huggingface_hub")
    r = _hub_run(tmp_path, "acme/llama-70b-fp8-modelopt", True, "size", "--gpu", "h100", "-c", "8192")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "hf_quant_config.json (modelopt 0.23.0" in lines[0], r.stderr


def test_hub_cache_without_the_file_offline_says_it_was_not_asked(tmp_path: Path):
    pytest.importorskip("huggingface_hub")
    r = _hub_run(tmp_path, "acme/llama-70b-plain", False, "import")
    assert r.returncode == 0, r.stderr
    assert "weight_dtype: bf16" in r.stdout
    note = "the hub was not asked for hf_quant_config.json (offline or unreachable) and the cache has none"
    assert note in " ".join(r.stdout.split())


def test_hub_online_asks_for_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    hf = pytest.importorskip("huggingface_hub")
    from huggingface_hub import errors

    from kvplan.specs import hub

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub, "reachable", lambda *_a, **_k: True)
    asked: list[str] = []

    def download(repo_id: str, filename: str, **_: object) -> str:
        asked.append(filename)
        if filename == hub.QUANT_FILE and "plain" in repo_id:
            raise errors.EntryNotFoundError(f"{repo_id} has no {filename}")
        return str(MODELOPT / filename)

    def no_headers(*_a: object, **_k: object) -> None:
        raise OSError("no safetensors here")

    monkeypatch.setattr(hf, "hf_hub_download", download)
    monkeypatch.setattr(hf, "get_safetensors_metadata", no_headers)
    with pytest.raises(InputError, match=MODELOPT_REASON):
        import_model("acme/llama-70b-fp8")
    assert asked == ["config.json", hub.QUANT_FILE]
    spec = import_model("acme/llama-70b-plain")
    assert spec.weight_dtype is DType.bf16 and hub.QUANT_FILE not in (spec.notes or "")
