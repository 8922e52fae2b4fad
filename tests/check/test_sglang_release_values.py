"""SGLang's option values release by release (task h71sglfix): the choices of the pool-moving
options and the multi-value options, read from the same 119 sglang wheels as the option sets
(kvplan/check/engine_flags/sglang_releases.json, made by benchmarks/extract_sglang_flags.py);
a value a release's argparse refuses is refused naming that release's choices, a fix offers only
what the stated release takes, and a model-path ERROR no longer hides an option refusal.

Golden values were read by hand (grep) from each wheel's sglang/srt/server_args.py, not by the
extraction script:
- 0.4.1 :327-330 `"--kv-cache-dtype" ... choices=["auto", "fp8_e5m2"]`; 0.5.5 :2041-2044
  `choices=["auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"]`;
- 0.4.1 :646 `--attention-backend` `choices=["flashinfer", "triton", "torch_native"]`;
- 0.5.4.post2 :3390-3393 `--debug-tensor-dump-layers` `type=int, default=-1` (one value); 0.5.5
  :3460-3462 `type=int, nargs="+"`;
- 0.5.7 :4025-4027 `--piecewise-cuda-graph-tokens` `type=json_list_type` (one word); nargs="+"
  from 0.5.8 (kvplan.check.argv.OLD_MULTI_VALUE's comment);
- vLLM (vllm/engine/arg_utils.py): no --kv-cache-dtype in 0.2.7; 0.3.0 :127-129 and 0.4.0.post1
  :154-156 `choices=['auto', 'fp8_e5m2']`; 0.4.1 :176-178 `choices=['auto', 'fp8']`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.check.argv import Invocation, Word, parse
from kvplan.check.discover import read_targets
from kvplan.check.engine_flags import OPTION_TABLES, sglang
from kvplan.check.fix_flags import kv_value, lacked
from kvplan.check.formats import render_github, render_text
from kvplan.check.manifests.release_options import option_flags, option_multi
from kvplan.engine_traits import traits
from tests.check.test_check_multi_value import sglang_pod
from tests.conftest import ASSETS, invoke

HISTORY = OPTION_TABLES["sglang"].history
assert HISTORY is not None
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("release", "option", "choices"), [
    ("0.4.1", "--kv-cache-dtype", ("auto", "fp8_e5m2")),
    ("0.5.5", "--kv-cache-dtype", ("auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16",
                                   "fp4_e2m1")),
    ("0.4.1", "--attention-backend", ("flashinfer", "triton", "torch_native")),
    ("0.3.0", "--attention-backend", None),  # 0.3.0 has no --attention-backend
])
def test_choices_are_the_wheels(release: str, option: str, choices: tuple[str, ...] | None
                                ) -> None:
    assert HISTORY.choices(release, option) == choices


def test_first_release_of_a_cache_dtype() -> None:
    assert HISTORY.first_with_choice("--kv-cache-dtype", "fp8_e4m3") == "0.4.1.post6"
    assert HISTORY.choices("0.4.1.post5", "--kv-cache-dtype") == ("auto", "fp8_e5m2")
    assert HISTORY.first_with_choice("--kv-cache-dtype", "fp9") is None


def test_dtype_choices_are_the_compute_dtypes_in_every_release() -> None:
    """--dtype is not refused here: kvplan.check.compute_dtype refuses a value outside
    traits' compute_dtypes (0.5.23's), which every release read takes alike."""
    allowed = tuple(traits("sglang").compute_dtypes)
    assert {HISTORY.choices(r, "--dtype") for r in HISTORY.releases} == {allowed}


def test_multi_value_per_release() -> None:
    multi = HISTORY.multi
    assert "--debug-tensor-dump-layers" in HISTORY.sets["0.5.4.post2"]
    assert "--debug-tensor-dump-layers" not in multi["0.5.4.post2"]
    assert "--debug-tensor-dump-layers" in multi["0.5.5"]
    assert "--piecewise-cuda-graph-tokens" not in multi["0.5.7"]
    assert "--piecewise-cuda-graph-tokens" in multi["0.5.8"]
    # the newest release's multi-value options, read alike by task h43nargs's script
    assert multi["0.5.23"] == frozenset(sglang.MULTI_VALUE)


def _parse(release: str, *words: str) -> tuple[dict[str, list[str]], list[str]]:
    inv = Invocation("sglang", "python -m sglang.launch_server",
                     [Word(w, 1) for w in ("--model-path", "m", *words)])
    parsed = parse(inv, option_flags("sglang", release, False),
                   option_multi("sglang", release, False))
    return parsed.several, [w.text for w in parsed.positional]


def test_a_single_valued_release_takes_one_word() -> None:
    assert _parse("0.5.4.post2", "--debug-tensor-dump-layers", "1", "2") == ({}, ["2"])
    assert _parse("0.5.5", "--debug-tensor-dump-layers", "1", "2") == (
        {"--debug-tensor-dump-layers": ["1", "2"]}, [])


def test_a_single_valued_release_refuses_the_second_word(tmp_path: Path) -> None:
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.4.post2",
                                  "--debug-tensor-dump-layers", "1", "2"), {})
    assert [r.message for r in t.refusals] == [
        "the engine refuses it: python -m sglang.launch_server takes no positional word; `2` is "
        "left over: argparse stops (\"unrecognized arguments: 2\"); remove it"]
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.5",
                                  "--debug-tensor-dump-layers", "1", "2"), {})
    assert t.refusals == []


def _reasons(tmp_path: Path, image: str, *args: str) -> tuple[list[str], list[str]]:
    [t] = read_targets(sglang_pod(tmp_path, image, *args), {})
    return [r.message for r in t.refusals], t.notes


def test_a_value_outside_the_release_choices_is_refused(tmp_path: Path) -> None:
    refused, _ = _reasons(tmp_path, "lmsysorg/sglang:v0.4.1", "--kv-cache-dtype", "fp8_e4m3")
    assert refused == [
        "the engine refuses it (argparse: invalid choice): SGLang 0.4.1 takes --kv-cache-dtype "
        "auto, fp8_e5m2, not fp8_e4m3 (sglang/srt/server_args.py in "
        "sglang-0.4.1-py3-none-any.whl); fp8_e4m3 came in SGLang 0.4.1.post6: give one of these, "
        "or serve SGLang 0.4.1.post6 or newer"]
    assert _reasons(tmp_path, "lmsysorg/sglang:v0.4.1.post6", "--kv-cache-dtype",
                    "fp8_e4m3")[0] == []
    assert _reasons(tmp_path, "lmsysorg/sglang:v0.4.1", "--kv-cache-dtype", "fp8_e5m2")[0] == []


def test_a_value_a_later_release_removed_names_both(tmp_path: Path) -> None:
    refused, _ = _reasons(tmp_path, "lmsysorg/sglang:v0.5.21", "--kv-cache-dtype", "fp4_e2m1")
    assert len(refused) == 1
    assert refused[0].endswith("SGLang 0.5.20 took it, 0.5.21 removed it")


def test_an_attention_backend_is_refused_unless_a_plugin_may_add_it(tmp_path: Path) -> None:
    refused, _ = _reasons(tmp_path, "lmsysorg/sglang:v0.4.1", "--attention-backend", "fa3")
    assert len(refused) == 1
    assert "SGLang 0.4.1 takes --attention-backend flashinfer, triton, torch_native, not fa3" \
        in refused[0] and "fa3 came in SGLang 0.4.4.post2" in refused[0]
    # 0.5.5 server_args.py:179 add_attention_backend_choices: a plugin's backend may be valid
    refused, notes = _reasons(tmp_path, "lmsysorg/sglang:v0.5.5", "--attention-backend",
                              "my_backend")
    assert refused == []
    assert any("a plugin may add backends to these choices" in n for n in notes)


def test_a_release_between_two_read_ones_is_noted(tmp_path: Path) -> None:
    refused, notes = _reasons(tmp_path, "lmsysorg/sglang:v0.5.3rc1", "--kv-cache-dtype",
                              "mxfp8")
    assert refused == []
    assert ("SGLang 0.5.3rc1 was not read: neither SGLang 0.5.3rc0 nor 0.5.3rc2 takes "
            "--kv-cache-dtype mxfp8: not checked") in notes


@pytest.mark.parametrize(("engine", "release", "offered"), [
    ("sglang", "0.4.1", ("fp8_e5m2", " (SGLang 0.4.1 has no fp8_e4m3, which came in "
                         "0.4.1.post6; fp8_e5m2 is 8 bits a value too)")),
    ("sglang", "0.4.1.post6", ("fp8_e4m3", "")),
    ("sglang", "0.5.3rc1", ("fp8_e4m3", "")),  # 0.5.3rc0 and 0.5.3rc2 both take it
    ("sglang", None, None),  # no release stated: FLAG_NAMES' value, as before
    ("vllm", "0.4.0", ("fp8_e5m2", " (vLLM 0.4.0 has no fp8, which came in 0.4.1; fp8_e5m2 is "
                       "8 bits a value too)")),
    ("vllm", "0.2.7", ("fp8", " (serve vLLM 0.4.1 or newer: vLLM 0.2.7 has no "
                       "--kv-cache-dtype)")),
    ("vllm", "0.4.1", ("fp8", "")),
    ("trtllm", "1.0.0", None),
])
def test_the_cache_value_a_fix_offers(engine: str, release: str | None,
                                      offered: tuple[str, str] | None) -> None:
    usual = "fp8_e4m3" if engine == "sglang" else "fp8"
    assert kv_value(engine, release, usual) == offered


def test_a_fix_flag_the_release_lacks_is_said() -> None:
    assert lacked("sglang", "0.3.0", "--page-size") == \
        "(SGLang 0.3.0 has no --page-size: it came in 0.4.4)"
    assert lacked("sglang", "0.4.4", "--page-size") is None
    assert lacked("sglang", "0.4.1", "--tp-size") is None


CORPUS = ASSETS / "check" / "sglang-releases"


def test_a_model_path_error_no_longer_hides_a_refusal() -> None:
    """k8s-v041-llama3.yaml: two Deployments whose --model-path is a container path (ERROR),
    each with --enable-radix-cache, which SGLang 0.4.1 refuses (EXPECTED.yaml): before task
    h71sglfix the text, JSON and GitHub output said only the ERROR."""
    report = check_paths([str(CORPUS / "k8s-v041-llama3.yaml")])
    assert [o.verdict for o in report.outcomes] == ["ERROR", "ERROR"]
    assert [[(p.field, p.line) for p in o.refused] for o in report.outcomes] == [
        [("--enable-radix-cache", 37)], [("--enable-radix-cache", 128)]]
    text = render_text(report)
    assert ("      refused too, line 37: --enable-radix-cache: the engine refuses it: SGLang "
            "0.4.1 has no option --enable-radix-cache") in text
    assert "      note: image tag 'v0.4.1-cu124': sglang release 0.4.1 (PEP 440)" in text
    github = render_github(report)
    assert github.count("title=kvplan check FAIL%3A sglang-llama3-8b::--enable-radix-cache") == 1
    result = invoke(CliRunner(), "check", str(CORPUS / "k8s-v041-llama3.yaml"), "-f", "json")
    records = json.loads(result.stdout)["results"]
    assert [[r["line"] for r in rec["refused"]] for rec in records] == [[37], [128]]
    assert all(rec["reasons"][0].startswith("the engine refuses it: SGLang 0.4.1 has no option "
                                            "--enable-radix-cache") for rec in records)


def test_the_release_data_is_read_only_when_a_release_is_stated(tmp_path: Path) -> None:
    """The generated JSON is loaded on first use: a check that states no SGLang release (or
    runs no SGLang) never reads it."""
    code = (
        "import sys\n"
        "from kvplan.check import check_paths\n"
        "from kvplan.check.engine_flags import OPTION_TABLES\n"
        "h = OPTION_TABLES['sglang'].history\n"
        "check_paths([sys.argv[1]])\n"
        "print('_read' in h.__dict__)\n"
        "check_paths([sys.argv[2]])\n"
        "print('_read' in h.__dict__)\n")
    unstated = sglang_pod(tmp_path, "lmsysorg/sglang:latest", "--tp", "1")
    stated = str(CORPUS / "sglang-v045.sh")
    out = subprocess.run([sys.executable, "-c", code, str(unstated), stated], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
