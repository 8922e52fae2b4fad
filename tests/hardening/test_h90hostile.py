"""Task h90hostile's findings left at the last stop: a notebook of thousands of `!vllm serve`
lines, and (below) the other slow or silent paths. Each reproducer under tests/assets/hostile
names the real file it came from here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke
from tests.hardening.limited import assert_bounded, run_limited

RUNNER = CliRunner()
ASSETS = Path(__file__).resolve().parents[1] / "assets"
HOSTILE = ASSETS / "hostile"
REAL_NOTEBOOK = ASSETS / "check" / "notebooks" / "dongukmoon-vllm-quickstart-tutorial.ipynb"


def _serving_notebook(tmp_path: Path, n: int) -> Path:
    """The real dongukmoon notebook with its one `!nohup vllm serve ... --port 8001 &` line
    (code cell 5, its line 6) written n times, ports 8001 up (as notebook-vllm-serve-200.ipynb)."""
    nb = json.loads(REAL_NOTEBOOK.read_text(encoding="utf-8"))
    cell = nb["cells"][12]
    at = next(i for i, line in enumerate(cell["source"]) if "vllm serve" in line)
    line = cell["source"][at]
    cell["source"][at:at + 1] = [line.replace("--port 8001", f"--port {8001 + k}")
                                 for k in range(n)]
    path = tmp_path / f"serve-{n}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_a_notebook_of_200_server_lines_is_one_error_past_the_limit() -> None:
    """notebook-vllm-serve-200.ipynb: the real dongukmoon-vllm-quickstart-tutorial.ipynb's
    `!nohup vllm serve Qwen/Qwen2.5-1.5B-Instruct --port 8001 ...` line (code cell 5, its line
    6) written 200 times. Each server start is planned (about 4 ms of CPU each once read in
    linear time), so a file of a few MB of them took minutes: the shell readers now take at
    most 64 server starts in one file (a Python script's 64 engine constructions, docs/
    limits.md), and past that the file is one ERROR on the line of the 65th: code cell 5 holds
    5 comment lines, so the 65th start is its line 70, line 105 of the code cells joined."""
    path = HOSTILE / "notebook-vllm-serve-200.ipynb"
    result = invoke(RUNNER, "check", str(path), "--gpu", "h100")
    assert result.exit_code == 2, result.output
    out = result.output
    assert ("ERROR line 105: 200 server starts, over the 64 kvplan reads in one file "
            "(docs/limits.md); describe the deployments in a kvplan/v1 file\n") in out, out
    assert ("note: a notebook: the `!` line of code cell 5, its line 70 (line 105 of its code "
            "cells joined in order)") in out, out
    assert "vllm serve Qwen/Qwen2.5-1.5B-Inst` left out" not in out, out  # said by the ERROR
    assert not [line for line in out.splitlines() if line.startswith("PASS")], out


def test_a_notebook_of_3000_server_lines_is_bounded(tmp_path: Path) -> None:
    """The brief's case: 3,000 `!vllm serve` lines took 74 s (cProfile: 82 s of 168 in reading,
    each line's script padded with the blank lines above it, the rest planning every server).
    Now well under the hardening bound of 5 CPU seconds (0.65 s measured)."""
    out = run_limited("check", str(_serving_notebook(tmp_path, 3000)), "--gpu", "h100")
    assert out.code == 2, out.stdout + out.stderr
    assert "ERROR line 105: 3,000 server starts, over the 64 kvplan reads" in out.stdout
    assert_bounded(out)


def test_each_notebook_shell_line_is_read_alone_not_after_the_lines_above_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear reading, counted: every physical line the shell reader walks. 60 `!` lines (under
    the limit) at joined lines 41-100 of the real notebook. Each is read twice (does it start a
    server; then its targets), one line each time: 120 lines, and 9 for the notebook's other
    shell lines (pip, nvidia-smi, curl): 129. Padded with the blank lines above it, as before,
    the second read of each walked 40 + 41 + ... + 99 = 4,170 more: 4,299 (run on main)."""
    from kvplan.check.manifests import shell_lex

    walked = [0]
    real = shell_lex._logical_lines

    def counting(text: str, *args: object, **kw: object) -> object:
        walked[0] += len(text.splitlines())
        return real(text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(shell_lex, "_logical_lines", counting)
    result = invoke(RUNNER, "check", str(_serving_notebook(tmp_path, 60)), "--gpu", "h100")
    passed = [line.split()[2] for line in result.output.splitlines() if line.startswith("PASS")]
    assert passed == [str(n) for n in range(41, 101)], result.output  # the notebook's own lines
    assert walked[0] == 129


def test_a_shell_script_of_65_server_starts_is_one_error(tmp_path: Path) -> None:
    """The same limit in a launch script: the real notebook's server line as a script's line, 65
    times (one past the limit); the ERROR is on the 65th start, line 66 after the `#!` line."""
    line = "nohup vllm serve Qwen/Qwen2.5-1.5B-Instruct --port {} --gpu-memory-utilization 0.3 &"
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\n" + "".join(line.format(8001 + k) + "\n" for k in range(65)))
    for command in ("check", "size"):
        result = invoke(RUNNER, command, str(script), "--gpu", "h100")
        assert result.exit_code == 2, result.output
        assert ("line 66: 65 server starts, over the 64 kvplan reads in one file (docs/limits.md); "
                "describe the deployments in a kvplan/v1 file") in result.output, result.output
    script.write_text("#!/bin/bash\n" + "".join(line.format(8001 + k) + "\n" for k in range(64)))
    result = invoke(RUNNER, "check", str(script), "--gpu", "h100")
    assert result.exit_code == 0 and "64 checked in 1 file(s): 64 PASS" in result.output, \
        result.output


def test_an_empty_list_in_an_sglang_config_file_is_said_and_gives_no_option(
        tmp_path: Path) -> None:
    """sglang-config-empty-list/: the real sglang-v045.sh on the v0.5.23 image with --config
    /code/config.yaml (mounted from the script's folder), whose `cuda-graph-bs: []` passed in
    silence and was counted among "2 option(s) read". SGLang 0.5.23 writes a list key only when
    the list holds an item (srt/utils/server_args_config_parser.py:202-206, _add_list_arg; the
    same line in 0.5.8 to 0.5.21): no --cuda-graph-bs reaches argparse (which 0.5.23 would
    refuse: the option is gone since 0.5.20), and its default applies. kvplan applies that and
    says so; the pool is the one without the key."""
    folder = HOSTILE / "sglang-config-empty-list"
    result = invoke(RUNNER, "check", str(folder / "serve.sh"), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    out = result.output
    assert ("note: config.yaml (mounted at /code/config.yaml)'s cuda-graph-bs: [] gives no "
            "option: SGLang writes a list key only when the list holds an item (sglang 0.5.23 "
            "srt/utils/server_args_config_parser.py:202-206, _add_list_arg: \"Only add if list is "
            "not empty\"), so --cuda-graph-bs is not given and its default applies; write its "
            "values, or remove the key") in out, out
    assert "1 option(s) read from config.yaml" in out, out
    without = tmp_path / "without"
    without.mkdir()
    (without / "serve.sh").write_text((folder / "serve.sh").read_text(encoding="utf-8"))
    (without / "config.yaml").write_text("mem-fraction-static: 0.8\n")
    alone = invoke(RUNNER, "check", str(without / "serve.sh"), "--gpu", "h100").output
    pool = next(line for line in alone.splitlines() if line.startswith("PASS"))
    assert pool.split(": starts; ")[1] in out, (pool, out)
    assert "--config /code/config.yaml: 1 option(s) read" in alone, alone


V034 = ("auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, nvfp4_ds_mla, "
        "turboquant_k8v4, turboquant_4bit_nc, turboquant_k3v4_nc, turboquant_3bit_nc, "
        "octave_k3v4, octave_k3v3, octave_k3v3_compact, ultraquant_4bit, int4_per_token_head, "
        "int8_per_token_head, fp8_per_token_head, nvfp4, nvfp4_4over6")


def test_a_cache_dtype_int_in_a_python_launcher_names_the_engines_values() -> None:
    """python-kv-cache-dtype-int.py: the real vllm-mistral-7b-half.py's LLM() given
    kv_cache_dtype=5 (line 8). The ERROR's fix offered kvplan's precision names ("use one of
    fp32, fp16, bf16, fp8, int8, int4"), which vLLM's CacheConfig does not take but fp8. Now
    vLLM 0.34.0's own (vllm/config/cache.py:44-67, CacheDType, read in the wheel), the release
    kvplan plans with when the script names none."""
    result = invoke(RUNNER, "check", str(HOSTILE / "python-kv-cache-dtype-int.py"), "--gpu",
                    "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 8: --kv-cache-dtype: '5' is not a cache dtype vLLM takes: vLLM 0.34.0, "
            f"the release kvplan plans with, takes {V034} (vllm/config/cache.py:44-67 in the "
            "vllm 0.34.0 wheel); give one of them\n") in result.output, result.output
    assert "fp32" not in result.output, result.output


@pytest.mark.parametrize(("image", "said"), [
    # add_argument('--kv-cache-dtype', ...) to its choices, in the 0.4.1 wheel
    ("vllm/vllm-openai:v0.4.1", "vLLM 0.4.1 takes auto, fp8 (vllm/engine/arg_utils.py:175-178 "
     "in the vllm 0.4.1 wheel)"),
    # read in task vllmleft: CacheDType = Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"]
    ("vllm/vllm-openai:v0.8.5", "vLLM 0.8.5 takes auto, fp8, fp8_e4m3, fp8_e5m2 "
     "(vllm/config.py:1291 in the vllm 0.8.5 wheel)"),
    # a release past the newest read
    ("vllm/vllm-openai:v0.40.0", f"vLLM 0.40.0's values were not read; vLLM 0.34.0, the newest "
     f"read, takes {V034} (vllm/config/cache.py:44-67 in the vllm 0.34.0 wheel)"),
])
def test_the_values_named_are_the_stated_releases(tmp_path: Path, image: str, said: str) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\ndocker run --gpus all " + image + " --model "
                      "mistralai/Mistral-7B-Instruct-v0.1 --kv-cache-dtype 5\n")
    out = invoke(RUNNER, "check", str(script), "--gpu", "h100").output
    assert (f"ERROR line 2: --kv-cache-dtype: '5' is not a cache dtype vLLM takes: {said}; give "
            "one of them\n") in out, out


def test_an_engine_value_kvplan_does_not_model_is_not_called_foreign(tmp_path: Path) -> None:
    """nvfp4 is one of vLLM 0.34.0's values: the ERROR says kvplan does not model it and which of
    vLLM's values it plans (auto, the ones kvplan.units reads; since task kvspell not fp8_inc,
    fp8_ds_mla or fp8_per_token_head, which are no plain fp8 cache)."""
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\nvllm serve mistralai/Mistral-7B-Instruct-v0.1 "
                      "--kv-cache-dtype nvfp4\n")
    out = invoke(RUNNER, "check", str(script), "--gpu", "h100").output
    assert ("ERROR line 2: --kv-cache-dtype: 'nvfp4': vLLM 0.34.0, the release kvplan plans with, "
            "takes it (vllm/config/cache.py:44-67 in the vllm 0.34.0 wheel), but kvplan does not "
            "model a cache of that kind; of vLLM's values kvplan plans auto, float16, bfloat16, "
            "fp8, fp8_e4m3, fp8_e5m2\n") in out, out


def test_sglang_names_its_own_release_values(tmp_path: Path) -> None:
    """SGLang's come from its option history (sglang_releases.json, read from the wheels): the
    0.5.23 wheel's --kv-cache-dtype choices when the script names no release."""
    script = tmp_path / "engine.py"
    script.write_text("import sglang as sgl\nllm = sgl.Engine(model_path="
                      "\"meta-llama/Llama-3.1-8B-Instruct\", kv_cache_dtype=5)\n")
    out = invoke(RUNNER, "check", str(script), "--gpu", "h100").output
    assert ("ERROR line 2: --kv-cache-dtype: '5' is not a cache dtype SGLang takes: SGLang 0.5.23, "
            "the release kvplan plans with, takes auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, "
            "bfloat16, nvfp4, fp4_mx_block16 (sglang/srt/server_args.py and "
            "srt/arg_groups/fields/*.py in sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl); "
            "give one of them") in out, out


ARITH = HOSTILE / "script-arith-hex.sh"


def _arith(tmp_path: Path, expansion: str) -> str:
    """`kvplan check --gpu h100` of script-arith-hex.sh with its $((0x2000)) (line 12) replaced."""
    text = ARITH.read_text(encoding="utf-8").replace("$((0x2000))", expansion)
    path = tmp_path / "serve.sh"
    path.write_text(text, encoding="utf-8")
    return invoke(RUNNER, "check", str(path), "--gpu", "h100").output


def test_bash_integer_constants_are_read_as_bash_reads_them(tmp_path: Path) -> None:
    """script-arith-hex.sh: the real zeuscsc start_vllm.sh (bitsandbytes dropped, a catalog
    model) with --max_model_len $((0x2000)). kvplan read `x2000` as an unset variable and refused
    the script; bash 5 evaluates 0x2000 to 8192 (run here: `echo $((0x2000))`), and 020000,
    16#2000 and 2#10000000000000 alike. Now hexadecimal, octal (a leading 0) and base#n constants
    are read: the plan is the one of 8,192 written out (47 sequences, 385,696 tokens on an H100,
    vLLM 0.7.2)."""
    same = "holds 47 sequences of 8,192 tokens per replica (385,696 tokens in the pool)"
    assert same in _arith(tmp_path, "8192")
    for expansion in ("$((0x2000))", "$((020000))", "$((16#2000))", "$((2#10000000000000))",
                      "$(( $(( $(( 4096 * 2 )) )) ))"):
        out = _arith(tmp_path, expansion)
        assert same in out and "PASS" in out, (expansion, out)


@pytest.mark.parametrize(("expansion", "why"), [
    # bash: "08: value too great for base (error token is "08")", run here
    ("$((08192))", "08192: 8 is no digit of base 8, which bash refuses (value too great for base)"),
    ("$((65#1))", "65#1: base 65 is not 2 to 64, which bash refuses (invalid arithmetic base)"),
    ("$((x=5, 8192))", "an assignment or a comma inside, whose effect kvplan does not follow"),
    ("$((" + "(1+" * 400 + "8192" + ")" * 400 + "))",
     "parentheses nested more than one level deep inside `$(( ))`, which kvplan does not read "
     "(or no closing `))`)"),
    ("$((" + "+".join(["1"] * 20000) + "))",
     "an expression longer or more deeply nested than kvplan's parser reads"),
])
def test_an_expansion_kvplan_does_not_evaluate_says_why(tmp_path: Path, expansion: str,
                                                        why: str) -> None:
    """Each said what was not read, where it said "not the integer arithmetic kvplan reads
    (integers, + - * / % ** and parentheses)" of integers, + and parentheses, "x, which the
    script does not set" of an assignment, and "None" of a nested $(( $(( )) ))."""
    out = _arith(tmp_path, expansion)
    assert f"an arithmetic expansion kvplan does not evaluate: {why}; write the value in the " \
        "script" in out, out
    assert "None" not in out, out


GPUS = HOSTILE / "script-docker-gpus-huge.sh"


@pytest.mark.parametrize(("gpus", "said"), [
    ("--gpus=99999999999999999999", "--gpus: docker refuses it (invalid count "
     "(99999999999999999999): value must be either \"all\" or an integer: value out of range; "
     "docker/cli opts/gpus.go parseCount, its Go int is 64 bits); give --gpus N or --gpus all"),
    ("--gpus two", "--gpus: docker refuses it (invalid count (two): value must be either \"all\" "
     "or an integer: invalid syntax; docker/cli opts/gpus.go parseCount, its Go int is 64 bits); "
     "give --gpus N or --gpus all"),
    ("--gpus count=-2", "--gpus: a count of -2: docker reads it, and what the daemon hands over "
     "for a count under -1 (-1 is every GPU, as `all`) kvplan does not know; give --gpus N or "
     "--gpus all"),
])
def test_a_gpus_count_docker_refuses_is_an_error(tmp_path: Path, gpus: str, said: str) -> None:
    """script-docker-gpus-huge.sh: the real zeuscsc start_vllm.sh (bitsandbytes dropped, a
    catalog model) with --gpus=99999999999999999999 (line 3). It PASSed, noting '99999999999999999999
    GPU(s)'; docker/cli opts/gpus.go (commit 29e34aba) parseCount reads the count with
    strconv.Atoi, a 64-bit Go int, and `docker run` stops on what it cannot read."""
    text = GPUS.read_text(encoding="utf-8").replace("--gpus=99999999999999999999", gpus)
    path = tmp_path / "serve.sh"
    path.write_text(text, encoding="utf-8")
    out = invoke(RUNNER, "check", str(path), "--gpu", "h100").output
    assert f"ERROR line 3: {said}\n" in out, out


def test_gpus_minus_one_is_every_gpu_as_docker_reads_it(tmp_path: Path) -> None:
    """parseCount returns -1 for "all", so `--gpus -1` is every GPU; kvplan said the run hands
    the container no GPU. Now the plan is --gpus all's."""
    outs = []
    for gpus in ("--gpus all", "--gpus -1"):
        path = tmp_path / "serve.sh"
        path.write_text(GPUS.read_text(encoding="utf-8").replace(
            "--gpus=99999999999999999999", gpus), encoding="utf-8")
        out = invoke(RUNNER, "check", str(path), "--gpu", "h100").output
        outs.append(next(line for line in out.splitlines() if line.startswith("PASS")))
    assert outs[0] == outs[1] and "holds 47 sequences of 8,192 tokens" in outs[0], outs


def test_set_args_doubled_in_a_sh_c_script_is_bounded() -> None:
    """k8s-set-args-doubled.yaml: the real llm-deployment-vllm.yaml (its `bash -lc` builds the
    server's words with `set -- serve "$MODEL_ID" ...` and runs `exec vllm "$@"`, task h82shell)
    with twenty lines of `set -- "$@" "$@"`. kvplan.check.set_args followed each, doubling the
    list: 16 lines ran past 60 s and 300 MB, 20 past 800 MB. Now the positional parameters are
    held to 64 KiB, as one command of a launch script, and past that the Deployment (its
    document starts on line 15) is one ERROR, in well under the hardening bound."""
    out = run_limited("check", str(HOSTILE / "k8s-set-args-doubled.yaml"))
    assert out.code == 2, out.stdout + out.stderr
    assert ("ERROR line 15: command: `set --` and \"$@\" make a command of more than 65,536 "
            "characters (106,503 at least), over what kvplan reads in one command "
            "(docs/limits.md); write the server's options out\n") in out.stdout, out.stdout
    assert_bounded(out)


def test_a_server_args_value_calibrate_cannot_read_is_said() -> None:
    """log-server-args-fraction-word.log: the real log 361 (SGLang 0.5.17, Qwen3-VL-8B on an H200,
    mem_fraction_static 0.8388) with mem_fraction_static=abc in its ServerArgs line (line 34).
    The regex read no number and the run was planned at SGLang's default fraction without a
    word: +9.92% against the log's 729,076 tokens, where the real log is +0.42% (732,143).
    Found by benchmarks/sweep.py (silent). Now the run says which field it set aside."""
    path = HOSTILE / "log-server-args-fraction-word.log"
    result = invoke(RUNNER, "calibrate", str(path))
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert ("line 34: ServerArgs mem_fraction_static=abc is not a value kvplan reads there: "
            "planned as if the log did not state it") in out, out
    assert "729,076 801,377 +9.92%" in out, out
