"""Context lengths as each engine's release parses them, a kvplan/v1 file's `engine.max_model_len:
auto`, and positional words a server's parser has no place for (task h59maxlen).

Sources (the wheels, read for this task): vLLM --max-model-len is `int` through 0.8.3
(engine/arg_utils.py:369 in 0.8.3), human_readable_int from 0.8.4 (:1749; k/m/g decimal with
float arithmetic, K/M/G binary, whole numbers only), with t / T from 0.13.0 (:2042-2048), wrapped
in human_readable_int_or_auto from 0.14.0; SGLang --context-length is `int` through 0.5.9
(srt/server_args.py:2962) and its own SI / IEC human_readable_int from 0.5.10
(srt/utils/common.py:2229: k/M/G/T powers of 1000 by Decimal, Ki/Mi/Gi/Ti powers of 1024,
case-sensitive). Synthetic inputs are written inline; public ones are in
tests/assets/check/context_spellings (SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.context_spellings import Refused, sglang_length, vllm_length
from kvplan.cli import app
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns

ASSETS = Path(__file__).parents[1] / "assets" / "check" / "context_spellings"
L8 = "meta-llama/Llama-3.1-8B-Instruct"
LONGEST_0251 = 23_168  # tests/check/test_max_model_len_auto.py: Llama-3.1-8B on one A10 at 0.82


def _rows(path: Path, *extra: str) -> tuple[int, list[dict]]:
    res = CliRunner().invoke(app, ["check", str(path), "-f", "json", *extra])
    return res.exit_code, json.loads(res.output)["results"]


def _said(row: dict) -> str:
    return " ".join(" ".join(str(v) for v in row.get(k) or []) for k in
                    ("notes", "problems", "reasons", "errors"))


# ---- the parsers, release by release ----

@pytest.mark.parametrize(("text", "release", "tokens"), [
    ("32768", "0.8.3", 32_768), ("32_768", "0.8.3", 32_768),   # int(): `_` separators
    ("32k", "0.8.4", 32_000), ("32K", "0.8.4", 32_768), ("1M", "0.10.2", 1_048_576),
    ("25.6k", "0.12.0", 25_600), ("0.5m", "0.25.1", 500_000),
    ("1.001k", "0.25.1", 1_000),  # int(float("1.001") * 1000) = int(1000.999...) = 1000
    ("1t", "0.13.0", 10**12), ("1T", "0.29.0", 2**40),
    ("32K", None, 32_768),  # an unnamed release: kvplan's default, 0.34.0
])
def test_vllm_reads_a_length_as_its_release_does(text: str, release: str | None,
                                                 tokens: int) -> None:
    assert vllm_length(text, release) == tokens


@pytest.mark.parametrize(("text", "release", "words"), [
    ("32k", "0.8.3", "vLLM 0.8.3 parses --max-model-len with int"),
    ("1.5K", "0.25.1", "Decimals are not allowed with binary suffixes like K. Did you mean to "
                       "use 1.5k instead?"),
    ("1t", "0.12.0", "vLLM 0.12.0 parses --max-model-len with human_readable_int, which has no "
                     "multiplier for 't' (t and T came in 0.13.0"),
    ("1_0k", "0.25.1", "takes a suffix only after plain digits (no sign, no `_`)"),
    ("+8k", "0.14.0", "vLLM 0.14.0 parses --max-model-len with human_readable_int_or_auto, "
                      "which takes a suffix only"),
    ("32kb", "0.25.1", "human_readable_int_or_auto, which does not take '32kb'"),
    ("1.5K", None, "(the image names no release: read as kvplan's default, 0.34.0)"),
])
def test_vllm_refuses_what_its_release_refuses(text: str, release: str | None,
                                               words: str) -> None:
    with pytest.raises(Refused) as why:
        vllm_length(text, release)
    assert words in str(why.value)
    assert str(why.value).startswith("the engine refuses it: vLLM ")


@pytest.mark.parametrize(("text", "release", "tokens"), [
    ("32768", "0.5.9", 32_768), ("32k", "0.5.10", 32_000), ("32Ki", "0.5.23", 32_768),
    ("1M", "0.5.23", 1_000_000),  # SI: not vLLM's 1,048,576
    ("1.001k", "0.5.23", 1_001),  # Decimal: exact, unlike vLLM's float
    ("2Mi", None, 2_097_152),
])
def test_sglang_reads_a_length_as_its_release_does(text: str, release: str | None,
                                                   tokens: int) -> None:
    assert sglang_length(text, release) == tokens


@pytest.mark.parametrize(("text", "release", "words"), [
    ("32k", "0.5.9", "SGLang 0.5.9 parses --context-length with int"),
    ("32K", "0.5.23", "case-sensitive, so argparse stops on '32K' (\"Invalid integer value\")"),
    ("1m", "0.5.10", "argparse stops on '1m'"),
    ("1.5Ki", "0.5.23", "Decimals are not allowed with IEC suffixes like 'Ki'"),
])
def test_sglang_refuses_what_its_release_refuses(text: str, release: str, words: str) -> None:
    with pytest.raises(Refused) as why:
        sglang_length(text, release)
    assert words in str(why.value)


# ---- the same spellings through a reader ----

def _script(tmp: Path, line: str) -> Path:
    path = tmp / "serve.sh"
    path.write_text(f"#!/bin/sh\ndocker run --gpus all {line}\n")
    return path


@pytest.mark.parametrize(("line", "verdict", "tokens", "words"), [
    (f"vllm/vllm-openai:v0.25.1 --model {L8} --max-model-len 1.5K", "FAIL", None,
     "the engine refuses it: vLLM 0.25.1 parses --max-model-len with human_readable_int_or_auto, "
     "which takes no decimal before a binary suffix"),
    (f"vllm/vllm-openai:v0.8.3 --model {L8} --max-model-len 32k", "FAIL", None,
     "vLLM 0.8.3 parses --max-model-len with int"),
    (f"vllm/vllm-openai:v0.12.0 --model {L8} --max-model-len 1t", "FAIL", None,
     "t and T came in 0.13.0"),
    (f"vllm/vllm-openai:v0.25.1 --model {L8} --max-model-len 25.6k", "PASS", 25_600, ""),
    (f"lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path {L8} "
     "--context-length 32K", "FAIL", None,
     "SGLang 0.5.23 parses --context-length with human_readable_int (srt/utils/common.py), which "
     "takes a whole number"),
    (f"lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server --model-path {L8} "
     "--context-length 32Ki", "PASS", 32_768, ""),
    (f"lmsysorg/sglang:v0.5.9 python3 -m sglang.launch_server --model-path {L8} "
     "--context-length 32k", "FAIL", None, "SGLang 0.5.9 parses --context-length with int"),
])
def test_a_script_reads_the_length_as_the_image_does(tmp_path: Path, line: str, verdict: str,
                                                     tokens: int | None, words: str) -> None:
    _, (row,) = _rows(_script(tmp_path, line), "--gpu", "h100")
    assert row["verdict"] == verdict
    if tokens is not None:
        assert row["max_model_len_tokens"] == tokens
    assert words in _said(row)


def test_sglangs_1m_is_a_million_tokens(tmp_path: Path) -> None:
    """SGLang's M is 10^6 (si_multiplier), so 1M is above Llama-3.1-8B's 131,072 tokens: the
    shape refusal names 1,000,000, where vLLM's 1M would be 1,048,576."""
    _, (row,) = _rows(_script(tmp_path, f"lmsysorg/sglang:v0.5.23 python3 -m "
                              f"sglang.launch_server --model-path {L8} --context-length 1M"),
                      "--gpu", "h100")
    assert row["verdict"] == "FAIL"
    assert "max_model_len 1,000,000 is above llama-3.1-8b's limit of 131,072 tokens" in _said(row)


def test_the_public_32K_script_is_read_as_32768_tokens() -> None:
    """qwen3-30b-a3b-fp8-32K.sh (SOURCES.md): vLLM 0.10.2 said "Maximum concurrency for 32,768
    tokens per request: 17.27x" and 566,016 tokens in its pool on 2 x L40S; kvplan (its default
    release, 0.34.0) checks 32,768 tokens and holds 17 such sequences, 575,296 tokens."""
    _, (row,) = _rows(ASSETS / "qwen3-30b-a3b-fp8-32K.sh")
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == 32_768
    assert "holds 17 sequences of 32,768 tokens per replica (575,296 tokens in the pool)" in \
        row["summary"]


def test_the_held_out_auto_script_is_checked_at_the_models_own_context() -> None:
    """gpt-oss-20b-auto.sh (held out: no code changed for it): the figures SOURCES.md records."""
    _, (row,) = _rows(ASSETS / "gpt-oss-20b-auto.sh", "--gpu", "h100")
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == 131_072
    assert "--max-model-len auto: the model's own 131,072 tokens fit the KV pool" in _said(row)


# ---- kvplan/v1: engine.max_model_len auto / -1 ----

def _record(tmp: Path, value: str, engine: str = "vllm", version: str | None = "0.25.1") -> Path:
    path = tmp / "d.yaml"
    pinned = f"  version: \"{version}\"\n" if version else ""
    path.write_text("apiVersion: kvplan/v1\nname: d\nmodel: llama-3.1-8b\nhardware:\n  gpu: a10\n"
                    f"  count: 1\nengine:\n  name: {engine}\n{pinned}  max_model_len: {value}\n"
                    "  gpu_memory_utilization: 0.82\ntraffic:\n  peak_concurrent_users: 1\n")
    return path


@pytest.mark.parametrize("value", ["auto", "AUTO", "-1", '"-1"'])
def test_a_kvplan_file_auto_takes_the_flags_path(tmp_path: Path, value: str) -> None:
    """The same auto-fit length as `vllm serve ... --max-model-len auto` on vLLM 0.25.1 (the
    Deployment of tests/check/test_max_model_len_auto.py): 23,168 tokens on one A10 at 0.82."""
    _, (row,) = _rows(_record(tmp_path, value))
    assert row["verdict"] == "PASS"
    assert row["max_model_len_tokens"] == LONGEST_0251
    spelled = value.strip('"')
    assert (f"engine.max_model_len {spelled} (vLLM 0.25.1, from 0.14.0): vLLM starts with the "
            "model's own context where one sequence fits the KV pool") in _said(row)


@pytest.mark.parametrize(("value", "version", "verdict", "words"), [
    ("auto", "0.13.0", "FAIL", "argparse stops on 'auto'"),
    ("-1", "0.13.0", "FAIL", "Field(gt=0), config/model.py:167 in 0.13.0"),
    ("-1", "0.12.0", "ERROR", "vLLM 0.12.0 takes --max-model-len -1 unchecked"),
    ("auto", None, "PASS", "engine.max_model_len auto: engine.version is not set; read as "
                           "kvplan's default release, vLLM 0.34.0"),
])
def test_a_kvplan_file_auto_by_release(tmp_path: Path, value: str, version: str | None,
                                       verdict: str, words: str) -> None:
    _, (row,) = _rows(_record(tmp_path, value, version=version))
    assert row["verdict"] == verdict
    assert words in _said(row)
    if verdict != "PASS":
        assert row["line"] == 10  # engine.max_model_len's line


@pytest.mark.parametrize("engine", ["sglang", "trtllm", "ideal"])
def test_a_kvplan_file_auto_on_another_engine_is_one_line(tmp_path: Path, engine: str) -> None:
    code, (row,) = _rows(_record(tmp_path, "auto", engine=engine, version=None))
    assert code == 2 and row["verdict"] == "ERROR" and row["line"] == 9  # no version line
    (problem,) = row["errors"]
    assert problem["field"] == "engine.max_model_len"
    assert problem["message"] == (
        "'auto' is vLLM's automatic context (engine.name vllm, vLLM 0.14.0 on); engine.name "
        f"{engine} takes a number of tokens: give one, or leave the key out for the model's own "
        "context")


@pytest.mark.parametrize(("value", "words"), [
    ("auto", "'auto' is vLLM's automatic context (--max-model-len auto, vLLM 0.14.0 on), which "
             "`kvplan check` reads for engine.name vllm; this command plans a stated length"),
    ("32k", "'32k' is not a whole number of tokens: kvplan/v1 takes digits"),
])
def test_other_commands_say_what_the_spelling_is(tmp_path: Path, value: str, words: str) -> None:
    res = CliRunner().invoke(app, ["size", str(_record(tmp_path, value))])
    assert res.exit_code == 2
    assert f"line 10: engine.max_model_len: {words}" in " ".join(res.output.split())


# ---- stray positional words ----

@pytest.mark.parametrize(("line", "words"), [
    (f"--entrypoint vllm vllm/vllm-openai:v0.25.1 serve {L8} extra-word "
     "--tensor-parallel-size 1", "vllm serve takes one positional word, the model; `extra-word` "
     f"is left over: `{L8}` fills it and argparse stops on the next (\"unrecognized arguments: "
     "extra-word\")"),
    (f"vllm/vllm-openai:v0.25.1 --model {L8} --enforce-eager True",
     "`True` after --enforce-eager (which takes no value) is left over"),
    (f"lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server {L8}",
     "python -m sglang.launch_server takes no positional word"),
    (f"nvcr.io/nvidia/tensorrt-llm/release:1.0.0 trtllm-serve {L8} extra",
     "click stops on the next (\"Got unexpected extra argument (extra)\")"),
])
def test_a_word_the_parser_has_no_place_for_is_refused(tmp_path: Path, line: str,
                                                       words: str) -> None:
    code, (row,) = _rows(_script(tmp_path, line), "--gpu", "h100")
    assert (code, row["verdict"], row["line"]) == (1, "FAIL", 2)
    assert words in _said(row)


def test_an_old_releases_optional_boolean_takes_its_word(tmp_path: Path) -> None:
    """vLLM 0.8.3's --enable-chunked-prefill is StoreBoolean (nargs="?"): `False` is its value
    there, not a stray word; 0.8.5 dropped StoreBoolean, so the same word is left over."""
    line = f"{L8} --enable-chunked-prefill False --max-model-len 8192"
    _, (old,) = _rows(_script(tmp_path, f"vllm/vllm-openai:v0.8.3 --model {line}"),
                      "--gpu", "h100")
    assert old["verdict"] == "PASS"
    _, (new,) = _rows(_script(tmp_path, f"vllm/vllm-openai:v0.8.5 --model {line}"),
                      "--gpu", "h100")
    assert new["verdict"] == "FAIL"
    assert "`False` after --enable-chunked-prefill (which takes no value)" in _said(new)


def test_the_model_where_vllm_serve_expects_it_is_no_stray_word(tmp_path: Path) -> None:
    _, (row,) = _rows(_script(tmp_path, f"--entrypoint vllm vllm/vllm-openai:v0.25.1 serve "
                              f"--tensor-parallel-size 1 {L8} --max-model-len 8192"),
                      "--gpu", "h100")
    assert row["verdict"] == "PASS"


# ---- Python-typed engine arguments: Ray Serve LLM's engine_kwargs ----

RAY = Path(__file__).parents[1] / "assets" / "check" / "corpus" / "kuberay" / \
    "ray-service.llm-serve.yaml"  # engine_kwargs max_model_len: 1024 on its line 18


@pytest.mark.parametrize(("value", "verdict", "tokens"), [
    ("auto", "FAIL", None), ("32k", "FAIL", None),  # pydantic int: no argparse spellings
    ("-1", "PASS", 17_024),  # auto-fit (0.34.0): Qwen2.5-7B's longest on one L4
    ('"8192"', "PASS", 8_192),  # a numeric string: pydantic's lax int
])
def test_ray_engine_kwargs_take_the_length_as_python_does(tmp_path: Path, value: str,
                                                          verdict: str, tokens: int | None) -> None:
    path = tmp_path / "ray.yaml"
    path.write_text(RAY.read_text().replace("max_model_len: 1024", f"max_model_len: {value}"))
    _, (row,) = _rows(path, "--gpu", "l4")
    assert row["verdict"] == verdict
    if tokens is None:
        assert row["line"] == 18
        assert (f"so the engine stops on {value!r} (\"Input should be a valid integer\"): write "
                "-1 for vLLM's auto-fit (0.14.0 on) or a number of tokens") in _said(row)
    else:
        assert row["max_model_len_tokens"] == tokens
