"""vLLM's automatic --max-model-len (`auto`, `-1`, a --config file's `max_model_len: auto`) in
every vLLM reader (kvplan.check.manifests.auto_context, task h58auto), by the image's release as
the wheels read: 0.14.0 on sizes it (human_readable_int_or_auto, engine/arg_utils.py:2121 in
0.14.0; _auto_fit_max_model_len, v1/core/kv_cache_utils.py:1389), 0.13.0 stops on either
spelling (human_readable_int; ModelConfig Field(gt=0), config/model.py:167), 0.12.0 and older
stop on `auto` and keep -1 unchecked (SkipValidation, config/model.py:190 in 0.12.0).

Golden length: Llama-3.1-8B (32 layers, 8 KV heads of 128, bf16: 131,072 B a token) on one A10
at 0.82: 131,072 tokens do not fit; the longest that fits is 23,168 tokens on vLLM 0.25.1, the
figure tests/check/test_check_kaito.py pins for KAITO's own `--max-model-len auto` and for the
same Deployment written with --max-model-len 131072."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.context_spellings import Refused, vllm_length
from kvplan.cli import app
from tests.check.kaito_files import configmap, workspace
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns

L8 = "meta-llama/Llama-3.1-8B-Instruct"
LONGEST_0251 = 23_168  # tests/check/test_check_kaito.py, the 131072 Deployment's longest fit


def _deployment(tmp: Path, image: str, flag: str) -> Path:
    path = tmp / "d.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations:\n"
        "    kvplan.io/gpu: a10\nspec:\n  template:\n    spec:\n      containers:\n"
        f"      - name: v\n        image: {image}\n        command: [vllm, serve, {L8}, "
        f"--dtype=bfloat16, --gpu-memory-utilization=0.82, {flag}]\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    return path


def _row(path: Path, *extra: str) -> tuple[int, dict]:
    res = CliRunner().invoke(app, ["check", str(path), "-f", "json", *extra])
    return res.exit_code, json.loads(res.output)["results"][0]


def _said(row: dict) -> str:
    return " ".join(" ".join(str(v) for v in row.get(k) or []) for k in
                    ("notes", "problems", "reasons", "errors"))


@pytest.mark.parametrize("flag", ["--max-model-len=auto", "--max-model-len=AUTO",
                                  "--max-model-len=-1"])
def test_a_release_that_takes_it_is_checked_at_the_auto_fit_length(tmp_path: Path,
                                                                   flag: str) -> None:
    _, row = _row(_deployment(tmp_path, "vllm/vllm-openai:v0.25.1", flag))
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == LONGEST_0251
    spelled = flag.split("=", 1)[1]
    assert (f"--max-model-len {spelled} (vLLM 0.25.1, from 0.14.0): vLLM starts with the model's "
            "own context where one sequence fits the KV pool") in " ".join(row["notes"])
    assert ("131,072 tokens do not fit the KV pool, so vLLM shortens the context to the longest "
            "that fits, 23,168 tokens (checked at that length)") in " ".join(row["notes"])


@pytest.mark.parametrize(("image", "flag", "verdict", "words"), [
    ("vllm/vllm-openai:v0.13.0", "--max-model-len=auto", "FAIL",
     "vLLM 0.13.0 parses --max-model-len with human_readable_int"),
    ("vllm/vllm-openai:v0.10.2", "--max-model-len=auto", "FAIL",
     "argparse stops on 'auto'"),
    ("vllm/vllm-openai:v0.13.0", "--max-model-len=-1", "FAIL",
     "Field(gt=0), config/model.py:167 in 0.13.0"),
    ("vllm/vllm-openai:v0.12.0", "--max-model-len=-1", "ERROR",
     "vLLM 0.12.0 takes --max-model-len -1 unchecked"),
])
def test_a_release_without_it_refuses_it(tmp_path: Path, image: str, flag: str, verdict: str,
                                         words: str) -> None:
    _, row = _row(_deployment(tmp_path, image, flag))
    assert row["verdict"] == verdict
    assert words in json.dumps(row)


def test_an_unnamed_release_is_read_as_kvplans_default(tmp_path: Path) -> None:
    _, row = _row(_deployment(tmp_path, "vllm/vllm-openai:latest", "--max-model-len=auto"))
    assert row["verdict"] == "PASS"
    assert ("--max-model-len auto: the image does not name its vLLM release; read as kvplan's "
            "default release, vLLM 0.34.0, which takes it (from 0.14.0)") in " ".join(
                row["notes"])
    assert row["max_model_len_tokens"] < 131_072  # shortened: the model's length does not fit


def test_a_script_and_its_config_file_take_the_same_path(tmp_path: Path) -> None:
    """A shell script's `vllm serve --config cfg.yaml` whose file says `max_model_len: auto`:
    vLLM turns the key into --max-model-len auto (the same parser); the script names no release,
    so it is checked as the Deployment on an unnamed image is: the same auto-fit length."""
    _, unnamed = _row(_deployment(tmp_path, "vllm/vllm-openai:latest", "--max-model-len=auto"))
    (tmp_path / "cfg.yaml").write_text("max_model_len: auto\ngpu-memory-utilization: 0.82\n"
                                       "dtype: bfloat16\n")
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/sh\nvllm serve {L8} --config cfg.yaml\n")
    _, row = _row(script, "--gpu", "a10")
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == unnamed["max_model_len_tokens"] < 131_072
    assert ("--config cfg.yaml: max_model_len: --max-model-len auto: the script does not name "
            "the installed vLLM release; read as kvplan's default release, vLLM 0.34.0"
            ) in " ".join(row["notes"])


def test_human_readable_lengths_as_vllm_reads_them() -> None:
    """human_readable_int (utils/argparse_utils.py:29-72 in 0.25.1): k/m/g powers of 1000, a
    decimal before them (25.6k), K/M/G powers of 1024 and no decimal before those."""
    assert [vllm_length(t, "0.25.1") for t in ("32k", "25.6k", "32K", "1M", "0.5m")] == [
        32_000, 25_600, 32_768, 1_048_576, 500_000]
    with pytest.raises(Refused):
        vllm_length("1.5K", "0.25.1")


def _kaito(tmp: Path, *keys: str) -> Path:
    return workspace(tmp, "llama-3.1-8b-instruct", "Standard_NV36ads_A10_v5", "  config: cfg\n",
                     configmap("cfg", *keys) + "---\n")


def test_kaito_booleans_reach_vllm_as_words_after_the_option(tmp_path: Path) -> None:
    """kaito-project/kaito 056b8280 presets/workspace/inference/vllm/inference_api.py
    parse_args: `runtime_args.append(f"--{key}"); runtime_args.append(str(value))`, so YAML
    false is `--enable-prefix-caching False`. The option is a BooleanOptionalAction (no value,
    vllm 0.25.1 engine/arg_utils.py:347): on either way; the word fills the optional model_tag
    (entrypoints/openai/cli_args.py:346-351), which inference_api.py does not serve. A second
    such word: argparse's "unrecognized arguments", the server does not start."""
    _, one = _row(_kaito(tmp_path, "enable-prefix-caching: false"))
    assert one["verdict"] == "PASS"
    assert ("ConfigMap vllm: enable-prefix-caching: false reaches vLLM as "
            "`--enable-prefix-caching False`: --enable-prefix-caching takes no value, so it is on "
            "either way (`false` does not turn it off: --no-enable-prefix-caching would)"
            ) in " ".join(one["notes"])
    _, two = _row(_kaito(tmp_path, "enable-prefix-caching: false", "enforce-eager: true"))
    assert two["verdict"] == "FAIL"
    assert ('argparse stops on the next ("unrecognized arguments: True")'
            in " ".join(two["reasons"]))


def test_kaitos_configmap_max_model_len_auto_is_vllms_auto(tmp_path: Path) -> None:
    """`max-model-len: auto` in the ConfigMap is KAITO's own default spelled out: vLLM 0.25.1
    (KAITO's base image) sizes it, the same 23,168 tokens as the Workspace without the key."""
    _, row = _row(_kaito(tmp_path, "max-model-len: auto"))
    assert row["verdict"] == "PASS" and row["max_model_len_tokens"] == LONGEST_0251
