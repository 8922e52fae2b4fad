"""TensorRT-LLM limits files (kvplan/engines/trtllm_config.py): a config.json read as JSON, not
as YAML (they differ on numbers like 8.192e3, which YAML 1.1 reads as a string), and a limit of 1.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/trtllm_config.py.
"""

from __future__ import annotations

from pathlib import Path

from kvplan.engines.trtllm_config import limits_from, read_all


def test_a_config_json_is_read_as_json(tmp_path: Path):
    # json.loads reads 8.192e3 as 8192.0 (a whole number); a YAML 1.1 loader reads it as the
    # string '8.192e3' and the limit would be refused as not a number
    path = tmp_path / "config.json"
    path.write_text('{"build_config": {"max_num_tokens": 8.192e3, "max_batch_size": 1}}')
    assert read_all(path)[0] == {"max_num_seqs": 1, "max_num_batched_tokens": 8192}


def test_a_yaml_options_file_is_read_as_yaml(tmp_path: Path):
    path = tmp_path / "extra.yml"
    path.write_text("max_batch_size: 1\nkv_cache_config:\n  max_tokens: 2048\n")
    assert read_all(path)[0] == {"max_num_seqs": 1, "max_tokens_in_paged_kv_cache": 2048}


def test_one_is_a_positive_whole_number():
    assert limits_from({"max_seq_len": 1, "kv_cache_config": {"tokens_per_block": 1}},
                       "x.yaml") == {"max_model_len": 1, "block_size": 1}
