"""SGLang's and TensorRT-LLM's flags on the command line and in kvplan/v1 files: each sets the
field docs/record.md names (the JSON equals the same edit by hand), moves the plan, is refused
for an engine that does not read it, and `explain` says where each setting came from."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kvplan.cli import app
from tests.conftest import ok_results, step_values

SGLANG: dict[str, Any] = {
    "apiVersion": "kvplan/v1", "name": "sglang", "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100"}, "engine": {"name": "sglang", "max_model_len": 8192},
    "traffic": {"peak_concurrent_users": 300, "context_tokens": {"mean": 2000}},
}
TRTLLM: dict[str, Any] = {**SGLANG, "name": "trt", "engine": {"name": "trtllm",
                                                              "max_model_len": 8192}}

# flag -> (argv, [(dotted field, value)]) on the base of its engine
CASES = {
    "sglang": {
        "--page-size": (["--page-size", "32"], [("engine.block_size", 32)]),
        "--chunked-prefill-size": (["--chunked-prefill-size", "16384"],
                                   [("engine.max_num_batched_tokens", 16384)]),
        "--cuda-graph-max-bs": (["--cuda-graph-max-bs", "1024"],
                                [("engine.cuda_graph_max_bs", 1024)]),
        "--max-running-requests": (["--max-running-requests", "9"], [("engine.max_num_seqs", 9)]),
        "--max-total-tokens": (["--max-total-tokens", "50000"],
                               [("engine.max_total_tokens", 50000)]),
        # task h90sglspec: NGRAM's 48 running requests (no draft model)
        "--speculative-algorithm": (["--speculative-algorithm", "NGRAM"],
                                    [("engine.speculative_algorithm", "NGRAM")]),
    },
    "trtllm": {
        "--page-size": (["--page-size", "64"], [("engine.block_size", 64)]),
        "--tokens-per-block": (["--tokens-per-block", "64"], [("engine.block_size", 64)]),
        "--max-batch-size": (["--max-batch-size", "9"], [("engine.max_num_seqs", 9)]),
        "--max-num-tokens": (["--max-num-tokens", "2048"],
                             [("engine.max_num_batched_tokens", 2048)]),
        "--max-seq-len": (["--max-seq-len", "4096"], [("engine.max_model_len", 4096)]),
        "--free-gpu-memory-fraction": (["--free-gpu-memory-fraction", "0.5"],
                                       [("engine.gpu_memory_utilization", 0.5)]),
        "--max-tokens-in-paged-kv-cache": (["--max-tokens-in-paged-kv-cache", "100000"],
                                           [("engine.max_tokens_in_paged_kv_cache", 100000)]),
    },
}


def _edit(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


@pytest.mark.parametrize(("engine", "flag"),
                         [(e, f) for e, flags in CASES.items() for f in flags])
def test_engine_flag_equals_the_same_edit_and_moves_the_plan(engine: str, flag: str,
                                                             tmp_path: Path) -> None:
    base = SGLANG if engine == "sglang" else TRTLLM
    argv, edits = CASES[engine][flag]
    path = tmp_path / "base.yaml"
    path.write_text(yaml.safe_dump(base))
    data = copy.deepcopy(base)
    for dotted, value in edits:
        _edit(data, dotted, value)
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(data))
    runner = CliRunner()
    got = ok_results(runner.invoke(app, ["size", str(path), *argv, "-f", "json"]))
    want = ok_results(runner.invoke(app, ["size", str(edited), "-f", "json"]))
    assert got == want
    plain = ok_results(runner.invoke(app, ["size", str(path), "-f", "json"]))
    assert got != plain, f"{flag} changed nothing"


def test_explain_says_where_each_engine_setting_came_from(tmp_path: Path) -> None:
    data = copy.deepcopy(SGLANG)
    data["engine"]["cuda_graph_max_bs"] = 512
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["explain", str(path), "--page-size", "16", "-f", "json"])
    [row] = ok_results(res)
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.block_size"] == (16, "--page-size")
    assert record["engine.cuda_graph_max_bs"] == (512, "file")
    assert "engine.max_total_tokens" not in record  # not stated: the engine's default
    steps = step_values(row)
    assert steps["page size"] == 16


def test_a_file_key_of_another_engine_is_noted_not_applied(tmp_path: Path) -> None:
    data = copy.deepcopy(SGLANG)
    data["engine"]["kv_cache_memory_bytes"] = 2**30
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["size", str(path), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert "engine.kv_cache_memory_bytes: only vllm reads it, not sglang, so it is not used" \
        in res.stderr


def test_same_field_twice_is_refused() -> None:
    res = CliRunner().invoke(app, ["size", "llama-3.1-8b", "--engine", "trtllm",
                                   "--max-seq-len", "4096", "--context", "8192"])
    assert res.exit_code == 2
    assert "give --context or --max-seq-len, not both" in res.output


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_trtllm_config_file_sets_the_limits(tmp_path: Path, suffix: str) -> None:
    # an LLM-API YAML and a built engine's config.json that state the same limits
    cfg = tmp_path / f"cfg{suffix}"
    if suffix == ".yaml":
        cfg.write_text("max_batch_size: 9\nmax_seq_len: 4096\n"
                       "kv_cache_config:\n  tokens_per_block: 64\n")
    else:
        cfg.write_text(json.dumps({"build_config": {"max_batch_size": 9, "max_seq_len": 4096,
                                                    "plugin_config": {"tokens_per_block": 64}}}))
    runner = CliRunner()
    got = ok_results(runner.invoke(app, ["size", "llama-3.1-8b", "--engine", "trtllm",
                                    "--trtllm-config", str(cfg), "-f", "json"]))
    want = ok_results(runner.invoke(app, ["size", "llama-3.1-8b", "--engine", "trtllm",
                                     "--max-batch-size", "9", "--max-seq-len", "4096",
                                     "--tokens-per-block", "64", "-f", "json"]))
    assert got == want
    assert got[0]["users_per_replica"] == 9 and got[0]["context_tokens"] == 4096


def test_trtllm_config_that_disagrees_with_the_record_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "extra.yaml"
    cfg.write_text("max_batch_size: 9\n")
    data = copy.deepcopy(TRTLLM)
    data["engine"].update(max_num_seqs=16, trtllm_config="extra.yaml")  # relative to the file
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["size", str(path)])
    assert res.exit_code == 2
    assert "16 disagrees with extra.yaml's max_batch_size 9; state one" in res.output


def test_vllm_file_keys_apply_like_their_flags(tmp_path: Path) -> None:
    data = copy.deepcopy(SGLANG)
    data["engine"] = {"name": "vllm", "max_model_len": 8192, "enforce_eager": True,
                      "cpu_offload_gb": 1.5, "speculative_model": "llama-3.2-1b",
                      "num_speculative_tokens": 3}
    path = tmp_path / "v.yaml"
    path.write_text(yaml.safe_dump(data))
    runner = CliRunner()
    got = ok_results(runner.invoke(app, ["size", str(path), "-f", "json"]))
    flags = ok_results(runner.invoke(app, [
        "size", "llama-3.1-8b", "--engine", "vllm", "--context", "8192", "--kv-dtype", "auto",
        "--avg-context", "2000", "--enforce-eager", "--cpu-offload-gb", "1.5",
        "--speculative-model", "llama-3.2-1b", "--num-speculative-tokens", "3", "-f", "json"]))
    keys = ("kv_cache_bytes", "weights_bytes", "kv_cache_blocks", "cuda_graph_bytes")
    assert [got[0][k] for k in keys] == [flags[0][k] for k in keys]
    assert got[0]["cuda_graph_bytes"] == 0


def test_a_draft_without_num_speculative_tokens_is_refused() -> None:
    res = CliRunner().invoke(app, ["size", "llama-3.1-8b", "--engine", "vllm",
                                   "--speculative-model", "llama-3.2-1b"])
    assert res.exit_code == 2
    assert "vLLM needs num_speculative_tokens with a draft model" in res.output


def test_ep_on_the_command_line_moves_the_weights() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 32,768 positions x 128 x 2 B = 8,388,608 B, and leaves the pool; recomputed: 24,155,262,976 ->
    # 24,163,651,584
    # Mixtral-8x7B at TP 2 with EP 4 (tp 2 x dp 2): 24,155,262,976 B of weights per GPU
    # (tests/engines/test_flag_effects.py has the arithmetic: the 16-bit router, 32 x 4,096 x 8
    # x 2 B = 2,097,152 B, whole on every GPU since task h38router, + 1,048,576 B); without EP
    # 46,703,841,280 B; + torch's whole blocks from vLLM 0.21 (task h51blocks; the arithmetic in
    # test_flag_effects.py): 2,097,152 B -> 24,165,748,736
    runner = CliRunner()
    rows = ok_results(runner.invoke(app, ["size", "mixtral-8x7b", "--engine", "vllm", "--tp", "2",
                                     "--ep", "4", "--context", "8192", "-f", "json"]))
    assert rows[0]["weights_bytes"] == 24_163_651_584 + 2_097_152 == 24_165_748_736
    res = runner.invoke(app, ["size", "mixtral-8x7b", "--engine", "sglang", "--tp", "2",
                              "--ep", "4", "--context", "8192"])
    assert res.exit_code == 2
    assert "sglang's expert-parallel size divides its tensor-parallel size (2)" in res.output


def test_explain_names_the_trtllm_config_as_the_origin_of_what_it_set(tmp_path: Path) -> None:
    cfg = tmp_path / "extra.yaml"
    cfg.write_text("max_batch_size: 9\nkv_cache_config:\n  tokens_per_block: 64\n")
    res = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--engine", "trtllm",
                                   "--trtllm-config", str(cfg), "--context", "8192",
                                   "-f", "json"])
    [row] = ok_results(res)
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.max_num_seqs"] == (9, "extra.yaml")
    assert record["engine.block_size"] == (64, "extra.yaml")
    assert record["engine.trtllm_config"] == (str(cfg.resolve()), "--trtllm-config")
    assert step_values(row)["tokens per block"] == 64


def test_speculative_config_takes_vllms_json_and_refuses_what_is_not_modelled() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["size", "llama-3.1-8b", "--engine", "vllm", "--speculative-config",
                              '{"method": "ngram", "num_speculative_tokens": 3}'])
    assert res.exit_code == 2
    assert "--speculative-config: method 'ngram' is not modelled" in res.output
    res = runner.invoke(app, ["size", "llama-3.1-8b", "--engine", "vllm", "--speculative-config",
                              '{"model": "llama-3.2-1b", "num_speculative_tokens": 3}',
                              "--num-speculative-tokens", "2"])
    assert res.exit_code == 2
    assert "not both" in res.output
