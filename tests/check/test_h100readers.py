"""Reader and message gaps left at stop 100 and closed in task h100readers, one section per
commit, each asserting what the CLI says (tests/assets/check/readers/SOURCES.md names the public
files used)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check import check_paths

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


# ---- 7. `$(VAR)` is Kubernetes' expansion, a command substitution in a shell script ----


def test_plain_script_dollar_paren_is_a_command_substitution(tmp_path: Path) -> None:
    """bash runs `$(MODEL)` as a command named MODEL: before, kvplan put MODEL's value there and
    planned the server (PASS); now it is refused as a command substitution, naming ${MODEL}."""
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\nMODEL={LLAMA}\nvllm serve $(MODEL) --max-model-len 8192\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.line) == ("ERROR", 3)
    assert o.problems[0].message == (
        "'$(MODEL)': a command substitution kvplan does not run: `$(MODEL)` runs a command named "
        "MODEL (bash(1), \"Command Substitution\"); the variable MODEL the script sets is "
        "${MODEL} (`$(NAME)` is Kubernetes' spelling, expanded only in a container's command "
        "and args)")
    script.write_text("#!/bin/bash\nvllm serve $(cat model.txt) --max-model-len 8192\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert o.problems[0].message == (
        "'$(cat model.txt)': a command substitution kvplan does not run; render it first")
    script.write_text(f"#!/bin/bash\nMODEL={LLAMA}\nvllm serve ${{MODEL}} --max-model-len 8192\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.model) == ("PASS", "llama-3.1-8b")


def test_kubernetes_sh_c_script_is_expanded_by_the_kubelet_first(tmp_path: Path) -> None:
    """In a container's args the kubelet expands `$(VLLM_VERSION)` before `sh -c` runs: the
    pip pin through it is still read (vllm 0.8.5), as before the shell stopped expanding it."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n"
        "  - name: vllm\n    image: python:3.12\n"
        "    env: [{name: VLLM_VERSION, value: '0.8.5'}]\n    command: [sh, -c]\n"
        f"    args: ['V=$(VLLM_VERSION); pip install vllm==$V && vllm serve {LLAMA} "
        "--max-model-len 8192']\n    resources: {limits: {nvidia.com/gpu: 1}}\n")
    [o] = check_paths([str(pod)], default_gpu="h100").outcomes
    assert (o.verdict, o.engine_version) == ("PASS", "0.8.5")
    assert "the container's sh -c script installs vllm==0.8.5: vllm 0.8.5" in o.notes


# ---- 6. `docker run --gpus 0`: a count of 0, no GPU requested ----

ZERO = ("a request for no GPU, so the docker run hands the container none (docker/cli "
        "opts/gpus.go parseCount reads the count 0; the daemon then sets "
        "NVIDIA_VISIBLE_DEVICES=void, moby daemon/nvidia_linux.go setNvidiaGPUs); give --gpus N "
        "or --gpus all (GPU 0 alone is --gpus device=0)")


def test_docker_gpus_zero_is_a_request_for_none(tmp_path: Path) -> None:
    """docker/cli GpuOpts.Set reads `0` (and `count=0`) as Count 0, and moby's setNvidiaGPUs
    sets NVIDIA_VISIBLE_DEVICES=void for it: before, kvplan said "no --gpus" of a line that has
    one. `driver=nvidia` alone is Count 1 (Set: no count and no device IDs is 1); before, 0."""
    script = tmp_path / "run.sh"
    image = f"vllm/vllm-openai:v0.9.2 --model {LLAMA} --max-model-len 8192"
    script.write_text(f"docker run --gpus 0 {image}\ndocker run --gpus '\"count=0\"' {image}\n"
                      f"docker run --gpus driver=nvidia {image}\n")
    zero, count0, driver = check_paths([str(script)], default_gpu="h100").outcomes
    assert [(p.field, p.message) for p in zero.problems] == [("--gpus", f"--gpus 0: {ZERO}")]
    assert [p.message for p in count0.problems] == [f'--gpus "count=0": {ZERO}']
    assert (driver.verdict, driver.line) == ("PASS", 3)
    assert "--gpus driver=nvidia: 1 GPU(s)" in driver.notes
    script.write_text(f"docker run {image}\n")  # no --gpus at all: said as before
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert o.problems[0].message.startswith("the docker run hands the container no GPU (no --gpus")


# ---- 2. a FIFO (or a folder) named by a script's --config: said what it is ----


def test_script_config_fifo_and_folder_say_what_they_are(tmp_path: Path) -> None:
    """Before, both were "... is not a file on this machine (the one running kvplan)"; the FIFO
    is not opened (reading one blocks until a writer comes: task h90hostile)."""
    import os

    os.mkfifo(tmp_path / "serve.yaml")
    (tmp_path / "conf.yaml").mkdir()
    script = tmp_path / "serve.sh"
    head = ("--config serve.yaml: a path on the machine that runs the script, relative to the "
            f"script's folder, and {tmp_path}/serve.yaml ")
    script.write_text(f"#!/bin/bash\nvllm serve {LLAMA} --config serve.yaml\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    said = [n for n in o.notes if n.startswith("--config")]
    assert said == [head + (
        "is a FIFO (named pipe) on this machine (the one running kvplan), not a regular file "
        "(kvplan reads only regular files; not opened); the options set only there "
        "(gpu-memory-utilization, max-model-len, max-num-seqs, kv-cache-dtype ...) are not "
        "checked: give the pool's options as flags, or save its content to a regular file and "
        "name that")]
    script.write_text(f"#!/bin/bash\nvllm serve {LLAMA} --config conf.yaml\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert any(f"{tmp_path}/conf.yaml is a folder on this machine (the one running kvplan), "
               "not a file; the options" in n for n in o.notes)
    script.write_text(f"#!/bin/bash\nvllm serve {LLAMA} --config gone.yaml\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert any(f"{tmp_path}/gone.yaml is not a file on this machine (the one running kvplan); "
               "the options" in n for n in o.notes)


# ---- 3. a model given as a number, a bool or bytes: not a model name ----


def _model_problem(tmp_path: Path, code: str) -> tuple[str, str]:
    script = tmp_path / "run.py"
    script.write_text(code)
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.line) == ("ERROR", 2)
    return o.problems[0].field, o.problems[0].message


def test_model_that_is_no_str_is_not_a_model_name(tmp_path: Path) -> None:
    """Before: `LLM(5)` was "model: '5' is not in the catalog ... `kvplan import 5`", and
    `LLM(b"...")` "a value computed when the script runs"."""
    tail = "takes the model as a str, a Hugging Face id or a local path; write it as one "
    assert _model_problem(tmp_path, "from vllm import LLM\nllm = LLM(5, max_model_len=8192)\n") == (
        "model", f"model=5 (line 2): an int, not a model name: vllm's LLM {tail}"
        "(`model=\"org/name\"`)")
    assert _model_problem(tmp_path, f"from vllm import LLM\nllm = LLM(b\"{LLAMA}\")\n") == (
        "model", f"model=b'{LLAMA}' (line 2): bytes, not a model name: vllm's LLM {tail}"
        "(`model=\"org/name\"`)")
    assert _model_problem(tmp_path, "import sglang as sgl\nllm = sgl.Engine(model_path=7.5)\n") == (
        "model_path", f"model_path=7.5 (line 2): a float, not a model name: sglang's Engine "
        f"{tail}(`model_path=\"org/name\"`)")
    assert _model_problem(tmp_path, "from tensorrt_llm import LLM\nllm = LLM(model=True)\n")[1] \
        .startswith("model=True (line 2): a bool, not a model name: trtllm's LLM takes")
    # a str still plans; a bytes value of another keyword is said as bytes, not as computed
    script = tmp_path / "run.py"
    script.write_text(f"from vllm import LLM\nllm = LLM(\"{LLAMA}\", max_model_len=8192)\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.model) == ("PASS", "llama-3.1-8b")
    script.write_text(f"from vllm import LLM\nllm = LLM(\"{LLAMA}\", max_model_len=b\"8192\")\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert o.problems[0].message.startswith(
        "b'8192': a bytes literal, not a str; kvplan cannot plan the pool without it")


# ---- 1. size / explain / fleet of a script whose cache dtype kvplan cannot read ----

VLLM_KV = ("is not a cache dtype vLLM takes: vLLM 0.34.0, the release kvplan plans with, takes "
           "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, nvfp4_ds_mla, "
           "turboquant_k8v4, turboquant_4bit_nc, turboquant_k3v4_nc, turboquant_3bit_nc, "
           "octave_k3v4, octave_k3v3, octave_k3v3_compact, ultraquant_4bit, "
           "int4_per_token_head, int8_per_token_head, fp8_per_token_head, nvfp4, nvfp4_4over6 "
           "(vllm/config/cache.py:44-67 in the vllm 0.34.0 wheel); give one of them")
SGLANG_KV = ("is not a cache dtype SGLang takes: SGLang 0.5.23, the release kvplan plans with, "
             "takes auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, fp4_mx_block16 "
             "(sglang/srt/server_args.py and srt/arg_groups/fields/*.py in "
             "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl); give one of them")


def test_size_explain_fleet_give_the_engines_cache_dtypes_as_check_does(tmp_path: Path) -> None:
    """Before, size and explain said "engine.kv_cache_dtype: unknown precision 'fp7'; use one of
    fp32, fp16, bf16, fp8, int8, int4, or auto", kvplan's names, where check gave the engine's."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    vllm = tmp_path / "vllm.sh"
    vllm.write_text(f"#!/bin/bash\nvllm serve {LLAMA} --max-model-len 8192 --kv-cache-dtype fp7\n")
    sglang = tmp_path / "sglang.sh"
    sglang.write_text("#!/bin/bash\npython -m sglang.launch_server --model-path "
                      f"{LLAMA} --context-length 8192 --kv-cache-dtype fp7\n")
    py = tmp_path / "run.py"
    py.write_text(f"from vllm import LLM\nllm = LLM(\"{LLAMA}\", kv_cache_dtype=\"int3\")\n")
    runner = CliRunner()
    for path, said in ((vllm, f"'fp7' {VLLM_KV}"), (sglang, f"'fp7' {SGLANG_KV}"),
                       (py, f"'int3' {VLLM_KV}")):
        [o] = check_paths([str(path)], default_gpu="h100").outcomes
        assert o.problems[0].message.startswith(said)  # check, as before (SGLang's adds
        # "(found with the refused option left out ...)": argparse refuses fp7 too)
        for command in ("size", "explain", "fleet"):
            got = runner.invoke(app, [command, str(path), "--gpu", "h100"])
            assert got.exit_code == 2, (command, got.output)
            error = [x for x in got.output.splitlines() if x.startswith("error:")]
            assert error == [f"error: {path}: line 2: --kv-cache-dtype: {said}"], command


# ---- 4. setattr(sa, k, v) in a loop over a literal dict: the dict's assignments ----

SGL_HEAD = ("from sglang.srt.entrypoints.http_server import launch_server\n"
            "from sglang.srt.server_args import ServerArgs\n\n"
            "if __name__ == \"__main__\":\n"
            f"    sa = ServerArgs(model_path=\"{LLAMA}\")\n")


def _sgl(tmp_path: Path, body: str) -> Any:
    script = tmp_path / "launch.py"
    script.write_text(SGL_HEAD + body + "    launch_server(sa)\n")
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    return o


def test_setattr_loop_over_a_literal_dict_sets_its_fields(tmp_path: Path) -> None:
    """Before: noted "the field's name is computed when the script runs" and PASSed on SGLang's
    defaults (131,072-token context, 412,841 tokens in the pool). Now the pool is the one the
    same fields give as ServerArgs keywords (computed by that path, not by the loop's)."""
    keywords = tmp_path / "kw.py"
    keywords.write_text(SGL_HEAD.replace(
        f"model_path=\"{LLAMA}\")", f"model_path=\"{LLAMA}\", context_length=8192, "
        "mem_fraction_static=0.8)") + "    launch_server(sa)\n")
    [want] = check_paths([str(keywords)], default_gpu="h100").outcomes
    assert want.numbers is not None and want.numbers.kv_pool_bytes > 0
    loop = ("    for k, v in {\"context_length\": 8192, \"mem_fraction_static\": 0.8}.items():\n"
            "        setattr(sa, k, v)\n")
    o = _sgl(tmp_path, loop)
    assert o.verdict == "PASS" and o.numbers is not None
    assert o.numbers.kv_pool_bytes == want.numbers.kv_pool_bytes
    assert o.numbers.max_model_len == 8192
    default = _sgl(tmp_path, "")  # the loop's fields move the pool: without them it differs
    assert default.numbers.kv_pool_bytes != want.numbers.kv_pool_bytes
    assert default.numbers.max_model_len == 131072
    assert ("sa.context_length (line 7): set after ServerArgs(...) and before the launch (line "
            "8): read as its keyword") in o.notes
    named = _sgl(tmp_path, "    over = {\"context_length\": 8192, \"mem_fraction_static\": 0.8}\n"
                 + loop.replace("{\"context_length\": 8192, \"mem_fraction_static\": 0.8}",
                                "over"))
    assert named.numbers.kv_pool_bytes == want.numbers.kv_pool_bytes


def test_setattr_loop_not_read_says_exactly_why(tmp_path: Path) -> None:
    head = "    for k, v in {\"context_length\": 8192}.items():\n"
    cases = {
        head + "        if v:\n            break\n        setattr(sa, k, v)\n":
            "the loop of line 6 may stop early or run an `else:` (a break, continue, return or "
            "raise)",
        "    for k, v in {**base}.items():\n        setattr(sa, k, v)\n":
            "the loop of line 6 runs over a dict whose keys are not all written out as str",
        "    over = {\"context_length\": 8192}\n    over[\"x\"] = 1\n"
        "    for k, v in over.items():\n        setattr(sa, k, v)\n":
            "over is changed before the loop (line 7: `over['x']`)",
        "    for k, v in load().items():\n        setattr(sa, k, v)\n":
            "the loop of line 6 runs over load(), not a dict written out",
    }
    for body, why in cases.items():
        o = _sgl(tmp_path, body)
        notes = [n for n in o.notes if "computed when the script runs" in n]
        assert len(notes) == 1 and f"({why}); the field it sets is not followed" in notes[0], \
            (why, notes)


# ---- 5. SGLang's --config: a bool key of a valued option is `--key true|false` (0.5.8+) ----


def test_sglang_config_false_key_of_a_valued_option(tmp_path: Path) -> None:
    """sglang 0.5.23 srt/utils/server_args_config_parser.py:185-200 (_add_boolean_arg): a key
    that is no store_true action gives `--key false`; 0.5.3-0.5.7 drop any false key (their
    boolean_actions list is always empty: 0.5.3 server_args.py:3164-3169). Before, kvplan
    dropped it on every release: the server PASSed with SGLang's default 131,072 tokens."""
    from kvplan.check.manifests.config_file import config_words

    data = {"context-length": False, "enable-mixed-chunk": False, "mem-fraction-static": True,
            "trust_remote_code": True}
    assert config_words("sglang", data, frozenset(), None) == [
        ("context-length", "--context-length"), ("context-length", "false"),
        ("mem-fraction-static", "--mem-fraction-static"), ("mem-fraction-static", "true"),
        ("trust_remote_code", "--trust_remote_code")]
    assert config_words("sglang", data, frozenset(), "0.5.7") == [
        ("mem-fraction-static", "--mem-fraction-static"),
        ("trust_remote_code", "--trust_remote_code")]
    (tmp_path / "serve.yaml").write_text("context-length: false\nmem-fraction-static: 0.8\n")
    run = ("cd \"$(dirname \"$0\")\"\npython -m sglang.launch_server --model-path "
           f"{LLAMA} --config serve.yaml\n")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\n" + run)
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.engine_version) == ("FAIL", None)
    assert o.reasons[0].startswith(  # the file and its key named (task readfix)
        "the engine refuses it: `--context-length false` comes from key context-length of the "
        "--config file serve.yaml: SGLang 0.5.23 parses --context-length with human_readable_int")
    assert "so argparse stops on 'false' (\"Invalid integer value\")" in o.reasons[0]
    script.write_text("#!/bin/bash\npip install sglang==0.5.7\n" + run)
    [o] = check_paths([str(script)], default_gpu="h100").outcomes
    assert (o.verdict, o.engine_version) == ("PASS", "0.5.7")
    assert o.numbers is not None and o.numbers.max_model_len == 131072
    assert ("serve.yaml's context-length: false gives no option: SGLang 0.5.7 writes no word for "
            "a false key of an option that is no switch, so --context-length is not given and "
            "its default applies; write its value, or remove the key") in o.notes
