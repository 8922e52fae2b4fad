"""The cache dtype checked AS WRITTEN against the stated (or defaulted) release (task kvspell,
kvplan.engines.kv_spelling; SGLang's draft option: kvplan.engines.sglang_kv_dtype.draft_kv_dtype).

Before, kvplan check read every `--kv-cache-dtype fp8*` as plain fp8 before asking the release,
so `fp8_inc` on vLLM 0.9.2 and `fp8_e4m3` on vLLM 0.4.2 passed. The values each release takes
were read by hand in the wheels (pip download vllm==X --no-deps), independently of
vllm_kv_dtypes.json: 0.3.0 vllm/engine/arg_utils.py:126-129 choices ['auto', 'fp8_e5m2']; 0.4.2
:186-189 ['auto', 'fp8']; 0.4.3 adds fp8_e5m2 and fp8_e4m3; 0.9.2 vllm/config.py:1477 CacheDType
= Literal['auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2']; 0.10.0 vllm/config.py:1609 adds 'fp8_inc'.
Meta-Llama-3-8B (config.json): 8 KV heads of 128, so an fp8 cache is 8 x (128 + 128) x 1 =
2,048 B per token and layer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.kv_spelling import sglang_refusal, vllm_refusal
from kvplan.engines.sglang_kv_dtype import draft_kv_dtype
from tests.conftest import ASSETS

HERE = ASSETS / "check" / "kvspell"
RUNNER = CliRunner()


def _check(path: Path) -> tuple[int, str]:
    result = RUNNER.invoke(app, ["check", str(path), "--gpu", "h100"])
    return result.exit_code, " ".join(result.output.split())


def _size(*args: str) -> tuple[int, str]:
    result = RUNNER.invoke(app, ["size", "llama-3-8b", "--gpu", "h100", *args])
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize(("script", "said"), [
    ("vllm-0.9.2-fp8_inc.sh", "vLLM 0.9.2 would not start: its --kv-cache-dtype takes auto, fp8, "
     "fp8_e4m3, fp8_e5m2 (vllm/config.py:1477 in the vllm 0.9.2 wheel; argparse: invalid "
     "choice: 'fp8_inc'); fp8_inc first in 0.10.0"),
    ("vllm-0.4.2-fp8_e4m3.sh", "vLLM 0.4.2 would not start: its --kv-cache-dtype takes auto, fp8 "
     "(vllm/engine/arg_utils.py:186-189 in the vllm 0.4.2 wheel; argparse: invalid choice: "
     "'fp8_e4m3'); fp8_e4m3 first in 0.4.3"),
    # fp8 is vLLM's own word here (a manifest), and 0.3.0 does not take it
    ("vllm-0.3.0-fp8.sh", "vLLM 0.3.0 would not start: its --kv-cache-dtype takes auto, fp8_e5m2 "
     "(vllm/engine/arg_utils.py:126-129 in the vllm 0.3.0 wheel; argparse: invalid choice: "
     "'fp8'); fp8 first in 0.4.1: give auto (the model's own dtype) or fp8_e5m2"),
    ("vllm-0.10.0-fp8_inc.sh", "vLLM 0.10.0 --kv-cache-dtype fp8_inc: fp8_inc is Intel Gaudi's"),
    ("vllm-0.11.1-fp8_ds_mla.sh", "vLLM 0.11.1 --kv-cache-dtype fp8_ds_mla: fp8_ds_mla is the "
     "sparse-MLA (DeepSeek V3.2) cache row, 656 bytes a token"),
])
def test_a_spelling_the_release_refuses_fails_the_check(script: str, said: str) -> None:
    code, out = _check(HERE / script)
    assert code == 1 and f"FAIL line 3 {script}: {said}" in out, out
    assert "1 FAIL" in out


def test_fp8_e4m3_on_vllm_0_4_3_starts_with_a_one_byte_cache() -> None:
    code, out = _check(HERE / "vllm-0.4.3-fp8_e4m3.sh")
    assert code == 0 and "PASS line 3" in out, out
    result = RUNNER.invoke(app, ["explain", str(HERE / "vllm-0.4.3-fp8_e4m3.sh"), "--gpu", "h100"])
    text = " ".join(result.output.split())
    assert "engine.kv_cache_dtype fp8_e4m3 manifest" in text
    assert "KV bytes per token per layer 2 KiB (2,048 B)" in text, text


def test_sglang_0_4_0_refuses_fp8_e4m3_once() -> None:
    code, out = _check(HERE / "sglang-0.4.0-fp8_e4m3.sh")
    assert code == 1 and ("FAIL line 3 sglang-0.4.0-fp8_e4m3.sh: the engine refuses it (argparse: "
                          "invalid choice): SGLang 0.4.0 takes --kv-cache-dtype auto, fp8_e5m2, "
                          "not fp8_e4m3") in out, out
    assert out.count("fp8_e4m3 came in SGLang 0.4.1.post6") == 1  # not again in kvplan's words


def test_a_real_sglang_manifest_plans_fp8_e5m2_as_one_byte() -> None:
    """dstack's SGLang example (no release named: 0.5.23, which takes fp8_e5m2): Llama-4-Scout's
    8 KV heads of 128 at TP 2, one byte each: 8 x (128 + 128) / 2 = 1,024 B a token and layer
    (corpus-expected.yaml: 98,304 B/token / 2 over 48 layers)."""
    path = ASSETS / "check" / "corpus" / "dstack" / "llama4-sglang-nvidia.dstack.yml"
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 0 and "PASS" in result.output, result.output
    text = " ".join(RUNNER.invoke(app, ["explain", str(path)]).output.split())
    assert "engine.kv_cache_dtype fp8_e5m2 manifest" in text
    assert "KV bytes per token per layer 1 KiB (1,024 B)" in text, text


@pytest.mark.parametrize(("args", "said"), [
    (("--engine", "vllm", "--engine-version", "0.4.2", "--kv-dtype", "fp8_e4m3"),
     "vLLM 0.4.2 would not start: its --kv-cache-dtype takes auto, fp8 "
     "(vllm/engine/arg_utils.py:186-189"),
    (("--engine", "vllm", "--engine-version", "0.4.2", "--kv-dtype", "fp8_e5m2"),
     "argparse: invalid choice: 'fp8_e5m2'); fp8_e5m2 taken again from 0.4.3"),
    (("--engine", "vllm", "--engine-version", "0.9.2", "--kv-dtype", "fp8_inc"),
     "fp8_inc first in 0.10.0"),
    (("--engine", "vllm", "--kv-dtype", "fp8_inc"),
     "vLLM 0.34.0 (none stated: the release kvplan plans with) --kv-cache-dtype fp8_inc: "
     "fp8_inc is Intel Gaudi's"),
    (("--engine", "sglang", "--engine-version", "0.4.0", "--kv-dtype", "fp8_e4m3"),
     "SGLang 0.4.0 would not start: its --kv-cache-dtype takes auto, fp8_e5m2"),
    (("--engine", "sglang", "--engine-version", "0.5.3", "--kv-dtype", "bfloat16"),
     "bfloat16 came in SGLang 0.5.4"),
])
def test_size_refuses_the_engines_spelling_its_release_lacks(args: tuple[str, ...],
                                                             said: str) -> None:
    code, out = _size(*args)
    assert code == 2 and out.startswith("error: command line: engine.kv_cache_dtype (--kv-dtype): ")
    assert said in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize("args", [
    ("--engine", "vllm", "--engine-version", "0.3.0", "--kv-dtype", "fp8"),  # kvplan's own name
    ("--engine", "vllm", "--engine-version", "0.4.3", "--kv-dtype", "fp8_e4m3"),
    ("--engine", "sglang", "--engine-version", "0.5.4", "--kv-dtype", "bfloat16"),
    ("--engine", "sglang", "--engine-version", "0.4.0", "--kv-dtype", "fp8"),
])
def test_size_plans_a_spelling_the_release_takes(args: tuple[str, ...]) -> None:
    code, out = _size(*args)
    assert code == 0, out
    assert re.search(r"(fp8|bf16) cache", out), out


def test_between_and_unread_releases_are_left_alone() -> None:
    assert vllm_refusal("0.40.0", "fp8_e4m3", True) is None  # after the newest read
    assert vllm_refusal("0.12.5", "fp8_inc", False) is not None  # taken, but Gaudi's
    assert sglang_refusal("0.5.24", "bfloat16") is None  # after the newest read
    assert sglang_refusal("0.4.0", "fp8") is None  # kvplan's own name


def test_the_draft_cache_dtype_is_applied_where_it_is_the_targets() -> None:
    same = HERE / "sglang-draft-kv-same.sh"
    code, out = _check(same)
    assert code == 0 and "PASS line 3" in out, out
    assert ("note: --speculative-draft-kv-cache-dtype fp8_e4m3: the draft's KV pool in the "
            "target's cache dtype (--kv-cache-dtype fp8_e4m3), as kvplan books it") in out
    # the same pool as with the option unset (the draft then follows --kv-cache-dtype)
    pool = re.compile(r"\(([\d,]+) tokens in the pool\)")
    code, unset = _check(HERE / "sglang-draft-kv-unset.sh")
    assert code == 0 and pool.findall(out) == pool.findall(unset) != [], unset


def test_a_draft_cache_dtype_other_than_the_targets_is_refused() -> None:
    code, out = _check(HERE / "sglang-draft-kv-differs.sh")
    assert code == 2 and "0 PASS, 0 FAIL, 1 ERROR" in out, out
    assert ("ERROR line 3: --speculative-draft-kv-cache-dtype: --speculative-draft-kv-cache-dtype "
            "fp8_e4m3 with --kv-cache-dtype auto: SGLang allocates the draft's KV pool at "
            "fp8_e4m3") in out
    assert "drop --speculative-draft-kv-cache-dtype or give it auto" in out


def test_the_draft_options_choices_are_sglangs() -> None:
    code, out = _check(HERE / "sglang-draft-kv-choice.sh")
    assert code == 1 and ("FAIL line 3 sglang-draft-kv-choice.sh: the engine refuses it "
                          "(argparse: invalid choice: 'fp8'): SGLang's "
                          "--speculative-draft-kv-cache-dtype takes auto, fp8_e5m2, fp8_e4m3, "
                          "bf16, bfloat16") in out, out


def test_without_a_draft_the_option_moves_nothing() -> None:
    code, out = _check(HERE / "sglang-draft-kv-no-draft.sh")
    assert code == 0 and "no --speculative-algorithm, so SGLang starts no draft worker" in out


@pytest.mark.parametrize(("draft", "target", "kind"), [
    ("bf16", "bfloat16", "applied"), ("bfloat16", "bf16", "applied"), ("auto", None, "applied"),
    ("auto", "auto", "applied"), ("fp8_e5m2", "fp8_e5m2", "applied"),
    ("fp8_e5m2", "fp8_e4m3", "not modelled"), ("auto", "fp8_e4m3", "not modelled"),
    ("bf16", None, "not modelled"), ("fp4_e2m1", "auto", "argparse"),
])
def test_draft_rule(draft: str, target: str | None, kind: str) -> None:
    assert draft_kv_dtype(draft, target, True)[0] == kind


def test_fp8_per_token_head_is_no_longer_planned_as_plain_fp8(tmp_path: Path) -> None:
    """vLLM 0.20.0's fp8_per_token_head keeps per-token-head scales beside the fp8 values
    (KVQuantMode.FP8_PER_TOKEN_HEAD, its _k_scale_cache / _v_scale_cache: v1/kv_cache_interface.py
    :121-122, v1/worker/utils.py:916-921 in 0.34.0): check planned it as a plain 1-byte cache
    before (915,584 tokens for Llama-3-8B on an H100, a PASS); it is a value kvplan does not
    model."""
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\ndocker run --gpus all vllm/vllm-openai:v0.20.0 --model "
                      "meta-llama/Meta-Llama-3-8B --kv-cache-dtype fp8_per_token_head\n")
    code, out = _check(script)
    assert code == 2 and ("ERROR line 2: --kv-cache-dtype: 'fp8_per_token_head': vLLM 0.20.0 takes "
                          "it (vllm/config/cache.py:18-34 in the vllm 0.20.0 wheel), but kvplan "
                          "does not model a cache of that kind; of vLLM's values kvplan plans "
                          "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2") in out, out
