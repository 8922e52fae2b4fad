"""The engine block's references (kvplan/deploy/engine_block.py): a TensorRT-LLM options file's
limits merged into the deployment with a note each, a disagreement refused, a draft model
resolved from the catalog or a spec file beside the deployment, each refusal word for word."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kvplan.deploy import load_deployment
from kvplan.deploy.problems import DeploymentError

ROOT = Path(__file__).resolve().parents[2]
HEAD = ("apiVersion: kvplan/v1\nname: t\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: 1\n"
        "traffic:\n  peak_concurrent_users: 4\nengine:\n")


def write(tmp_path: Path, engine: str) -> Path:
    (tmp_path / "extra.yaml").write_text(
        "max_batch_size: 64\nmax_seq_len: 4096\nkv_cache_config:\n  tokens_per_block: 32\n")
    path = tmp_path / "dep.yaml"
    path.write_text(HEAD + engine)
    return path


@pytest.mark.parametrize("stated", ["", "  max_num_seqs: 64\n"])
def test_a_trtllm_options_file_sets_the_limits(tmp_path: Path, stated: str):
    # relative to the deployment; a value the file repeats is no conflict
    planned = load_deployment(write(tmp_path, "  name: trtllm\n  trtllm_config: extra.yaml\n" + stated))
    e = planned.deployment.engine
    assert (e.max_num_seqs, e.max_model_len, e.block_size) == (64, 4096, 32)
    assert e.trtllm_config == str((tmp_path / "extra.yaml").resolve())
    assert planned.notes == ("engine.max_num_seqs 64 from extra.yaml (max_batch_size)",
                             "engine.max_model_len 4096 from extra.yaml (max_seq_len)",
                             "engine.block_size 32 from extra.yaml (kv_cache_config.tokens_per_block)")
    assert planned.request.context_tokens == 4096 and planned.request.block_size_tokens == 32


def test_an_engine_config_json_is_named_by_its_own_keys(tmp_path: Path):
    (tmp_path / "config.json").write_text('{"build_config": {"max_batch_size": 8}}')
    path = tmp_path / "dep.yaml"
    path.write_text(HEAD + "  name: trtllm\n  trtllm_config: config.json\n")
    planned = load_deployment(path)
    assert planned.deployment.engine.max_num_seqs == 8
    assert planned.notes == ("engine.max_num_seqs 8 from config.json (build_config.max_batch_size)",)


@pytest.mark.parametrize(("engine", "line", "message"), [
    ("  name: trtllm\n  max_num_seqs: 16\n  trtllm_config: extra.yaml\n", 11,
     "engine.max_num_seqs: 16 disagrees with extra.yaml's max_batch_size 64; state one"),
    ("  name: vllm\n  speculative_model: llama-3.2-1b\n", 9,
     "engine.num_speculative_tokens: vLLM needs num_speculative_tokens with a draft model "
     "(--speculative-config '{\"model\": ..., \"num_speculative_tokens\": N}')"),
    ("  name: vllm\n  speculative_model: no-such-draft\n  num_speculative_tokens: 3\n", 11,
     "engine.speculative_model: unknown model 'no-such-draft'; `kvplan models` lists the "
     "catalog; pass a Hugging Face id (org/name), a spec file or a config.json; the draft's "
     "weights and KV cache come from its spec (`kvplan import` one)"),
    ("  name: vllm\n  num_speculative_tokens: 3\n", 11,
     "engine.num_speculative_tokens: kvplan models a draft model only: give speculative_model "
     "(--speculative-model) with it, or drop it"),
])
def test_refusals(tmp_path: Path, engine: str, line: int, message: str):
    path = write(tmp_path, engine)
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert str(err.value) == f"{path}: line {line}: {message}"


def test_a_missing_options_file_is_named_once(tmp_path: Path):
    # the field is named once (the reader's own message starts with it)
    path = write(tmp_path, "  name: trtllm\n  trtllm_config: nope.yaml\n")
    with pytest.raises(DeploymentError) as err:
        load_deployment(path)
    assert str(err.value) == (f"{path}: line 11: engine.trtllm_config: {tmp_path / 'nope.yaml'}: "
                              "no such file")


def test_a_draft_from_the_catalog_or_a_spec_file(tmp_path: Path):
    catalog = load_deployment(write(tmp_path, "  name: vllm\n  speculative_model: llama-3.2-1b\n"
                                              "  num_speculative_tokens: 3\n"))
    assert catalog.deployment.engine.speculative_model == "llama-3.2-1b"
    shutil.copy(ROOT / "model_specs" / "llama-3.2-1b.yaml", tmp_path / "draft.yaml")
    from_file = load_deployment(write(tmp_path, "  name: vllm\n  speculative_model: draft.yaml\n"
                                                "  num_speculative_tokens: 3\n"))
    assert from_file.deployment.engine.speculative_model == str((tmp_path / "draft.yaml").resolve())
    assert from_file.notes == ()
