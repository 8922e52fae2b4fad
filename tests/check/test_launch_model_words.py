"""How vLLM's launchers take the model, release by release (task h60leftovers).

Sources (the wheels, pip download --no-deps, read for this task):
- `vllm serve --model M`: FlexibleArgumentParser.parse_args raises ValueError("With `vllm
  serve`, you should provide the model as a positional argument or in a config file instead of
  via the `--model` option.") on the exact word `--model` (vllm/utils.py:1340 in 0.8.5,
  vllm/utils/__init__.py:1475 in 0.9.2, :1776 in 0.10.1, :1858 in 0.11.0; the same in 0.8.3,
  0.8.4 and 0.10.0; vLLM PR #17944's description shows the traceback); before 0.8.3 model_tag is
  a required positional word (vllm/scripts.py in 0.5.4, 0.5.5, 0.6.6.post1, 0.7.1;
  entrypoints/cli/serve.py:46 in 0.7.3), so `--model M` alone stops argparse (vLLM issue
  #13150); from 0.11.1 it warns and moves the value to the model's place
  (utils/argparse_utils.py:199-229 in 0.11.1 and 0.11.2, :193 in 0.12.0, :324-354 in 0.34.0).
- `python -m vllm.entrypoints.openai.api_server MODEL`: 0.8.5 and 0.9.2 add model_tag on `vllm
  serve`'s sub-parser only (cli/serve.py:40 / :68), so the module's argparse stops
  ("unrecognized arguments"); from 0.10.0 make_arg_parser adds it (entrypoints/openai/
  cli_args.py:214 in 0.10.0, :241 in 0.11.0; common/cli_args.py:440 in 0.34.0) and only `vllm
  serve` copies it to --model (cli/serve.py:47-48 in 0.11.0): the module never reads it.
- SGLang's `python -m sglang.launch_server MODEL`: prepare_server_args' parser has no positional
  argument in 0.4.6.post5 (srt/server_args.py:1482), 0.5.2 (:2565) or 0.5.23: refused as before.
Inputs are synthetic, written inline (the public `vllm serve --model` launches found through the
search index name no release; tests/assets/check/context_spellings/SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns

Q = "Qwen/Qwen3-8B"
API = "python -m vllm.entrypoints.openai.api_server"


def _row(tmp: Path, line: str) -> dict:
    path = tmp / "serve.sh"
    path.write_text(f"#!/bin/sh\ndocker run --gpus all {line}\n")
    res = CliRunner().invoke(app, ["check", str(path), "-f", "json", "--gpu", "h100"])
    (row,) = json.loads(res.output)["results"]
    return row


def _said(row: dict) -> str:
    return " ".join(" ".join(str(v) for v in row.get(k) or []) for k in
                    ("notes", "problems", "reasons", "errors"))


@pytest.mark.parametrize("release", ["0.8.3", "0.8.5", "0.9.2", "0.10.1", "0.11.0"])
def test_vllm_serve_dash_dash_model_is_refused_through_0_11_0(tmp_path: Path,
                                                              release: str) -> None:
    row = _row(tmp_path, f"--entrypoint vllm vllm/vllm-openai:v{release} serve "
                         f"--model {Q} --max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"the engine refuses it: vLLM {release} stops on `vllm serve --model` (ValueError "
            "\"With `vllm serve`, you should provide the model as a positional argument or in a "
            "config file instead of via the `--model` option.\": FlexibleArgumentParser."
            "parse_args, 0.8.3 to before 0.11.1); write the model as the first word after "
            "serve") in _said(row)


@pytest.mark.parametrize("release", ["0.11.1", "0.12.0", "0.25.1"])
def test_vllm_serve_dash_dash_model_is_served_with_the_warning_from_0_11_1(
        tmp_path: Path, release: str) -> None:
    row = _row(tmp_path, f"--entrypoint vllm vllm/vllm-openai:v{release} serve "
                         f"--model {Q} --max-model-len 8192")
    assert row["verdict"] == "PASS" and row["model"] == "qwen3-8b"
    assert (f"--model: vLLM {release} warns \"With `vllm serve`, you should provide the model "
            "as a positional argument") in _said(row)


@pytest.mark.parametrize("release", ["0.6.6", "0.7.3"])
def test_vllm_serve_without_its_model_word_stops_argparse_before_0_8_3(tmp_path: Path,
                                                                       release: str) -> None:
    """model_tag is a required positional word there (no nargs): `--model M` alone leaves it
    empty, and argparse stops."""
    row = _row(tmp_path, f"--entrypoint vllm vllm/vllm-openai:v{release} serve "
                         f"--model {Q} --max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"the engine refuses it: vLLM {release}'s `vllm serve` takes the model as a required "
            "positional word (model_tag; vllm/scripts.py in 0.5.4-0.7.1, "
            "entrypoints/cli/serve.py:46 in 0.7.3), so argparse stops (\"the following arguments "
            "are required: model_tag\")") in _said(row)


def test_model_equals_is_argparse_s_own_before_0_11_1(tmp_path: Path) -> None:
    """0.11.0 matches the word `--model` exactly: `--model=M` reaches argparse and is served."""
    row = _row(tmp_path, f"--entrypoint vllm vllm/vllm-openai:v0.11.0 serve --model={Q} "
                         "--max-model-len 8192")
    assert row["verdict"] == "PASS" and "--model:" not in _said(row)


def test_the_images_own_entrypoint_takes_dash_dash_model(tmp_path: Path) -> None:
    """The vllm/vllm-openai image's entrypoint was `python3 -m vllm.entrypoints.openai.
    api_server` in these releases (kvplan.check.manifests.compose): --model is its option."""
    row = _row(tmp_path, f"vllm/vllm-openai:v0.10.1 --model {Q} --max-model-len 8192")
    assert row["verdict"] == "PASS" and "--model:" not in _said(row)


@pytest.mark.parametrize("release", ["0.8.5", "0.9.2"])
def test_a_word_after_the_api_server_module_stops_argparse_before_0_10(tmp_path: Path,
                                                                       release: str) -> None:
    row = _row(tmp_path, f"--entrypoint python vllm/vllm-openai:v{release} -m "
                         f"vllm.entrypoints.openai.api_server {Q} --max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"the engine refuses it: {API} takes no positional word (model_tag came to its "
            f"parser in 0.10.0); `{Q}` is left over: argparse stops (\"unrecognized arguments: "
            f"{Q}\"); write it as --model {Q}") in _said(row)


def test_a_word_beside_model_before_0_10_is_removed_and_two_words_name_the_first(
        tmp_path: Path) -> None:
    """With --model written, the word left over is removed; of two words, the first is the
    model and the rest go (task h62review: 'remove it' alone left the server with no model)."""
    row = _row(tmp_path, f"--entrypoint python vllm/vllm-openai:v0.8.5 -m "
                         f"vllm.entrypoints.openai.api_server {Q} --model {Q} "
                         "--max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert f"(\"unrecognized arguments: {Q}\"); remove it" in _said(row)
    row = _row(tmp_path, f"--entrypoint python vllm/vllm-openai:v0.8.5 -m "
                         f"vllm.entrypoints.openai.api_server {Q} extra --max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"(\"unrecognized arguments: {Q} extra\"); write it as --model {Q} and remove the "
            "rest") in _said(row)


@pytest.mark.parametrize(("extra", "serves", "fix"), [
    ("", "the default --model (ModelConfig.model, Qwen/Qwen3-0.6B in vLLM 0.34.0's "
         "config/model.py:161)", f"write it as --model {Q}"),
    (f" --model {Q}", "--model's model", "remove it"),
])
def test_a_word_after_the_api_server_module_is_never_read_from_0_10(
        tmp_path: Path, extra: str, serves: str, fix: str) -> None:
    row = _row(tmp_path, f"--entrypoint python vllm/vllm-openai:v0.10.1 -m "
                         f"vllm.entrypoints.openai.api_server {Q}{extra} --max-model-len 8192")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"`{Q}` is not served: {API} takes one positional word (model_tag, in its parser "
            "since 0.10.0) and never reads it (only `vllm serve` copies it to --model, "
            f"entrypoints/cli/serve.py), so the server loads {serves}; {fix}") in _said(row)


@pytest.mark.parametrize("release", ["0.4.6.post5", "0.5.2"])
def test_a_word_after_sglang_launch_server_stops_argparse(tmp_path: Path, release: str) -> None:
    row = _row(tmp_path, f"lmsysorg/sglang:v{release} python3 -m sglang.launch_server {Q}")
    assert (row["verdict"], row["line"]) == ("FAIL", 2)
    assert (f"python -m sglang.launch_server takes no positional word; `{Q}` is left over: "
            f"argparse stops (\"unrecognized arguments: {Q}\")") in _said(row)


def test_a_kvplan_file_s_sglang_length_names_sglang_s_spellings(tmp_path: Path) -> None:
    """kvplan/v1 takes digits; the refusal of `32K` under engine.name sglang names SGLang's own
    parser (human_readable_int from 0.5.10: k/M/G/T and Ki/Mi/Gi/Ti, case-sensitive,
    kvplan.check.manifests.context_spellings), not vLLM's 32K."""
    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: d\nmodel: llama-3.1-8b\nhardware:\n  gpu: a10\n"
                    "  count: 1\nengine:\n  name: sglang\n  max_model_len: 32K\n"
                    "traffic:\n  peak_concurrent_users: 1\n")
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    assert res.output.splitlines()[1] == (
        "ERROR line 9: engine.max_model_len: '32K' is not a whole number of tokens: kvplan/v1 "
        "takes digits (SGLang's --context-length spellings, from 0.5.10, are read from command "
        "lines: SI suffixes k, M, G, T (powers of 1000: 32k = 32,000) and IEC Ki, Mi, Gi, Ti "
        "(powers of 1024: 32Ki = 32,768), case-sensitive, so 32K is no SGLang spelling "
        "(human_readable_int, srt/utils/common.py:2229 in 0.5.10))")
