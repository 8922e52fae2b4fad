"""Servers a Python script or notebook starts as another process (task h71nbpy;
kvplan/check/manifests/python_servers.py, python_argv.py): `subprocess.Popen([...])`,
`subprocess.run("...", shell=True)`, `os.system(...)`, SGLang's `launch_server_cmd` and
`popen_launch_server`, `sh.vllm(...)`, each read through the shell-script reader, so each is
planned as the same command in a shell script is (the golden numbers below are those scripts'
verdicts, checked alone)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.check.manifests.python_argv import sglang_split
from kvplan.cli import app
from tests.conftest import ASSETS

SERVERS = ASSETS / "check" / "python_servers"


def _check(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["check", *args], env={"COLUMNS": "400"})
    return got.exit_code, got.output


def _write(tmp_path: Path, text: str, name: str = "serve.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


POPEN = '''import os
import subprocess

MODEL = "Qwen/Qwen3-8B"
LEN = 8192
os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"


def serve(port):
    return subprocess.Popen(["vllm", "serve", MODEL, "--max-model-len", str(LEN),
                             "--tensor-parallel-size", "2", "--port", str(port)])
'''
# the same server in a shell script, checked alone on an H100:
# `CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B --max-model-len 8192
# --tensor-parallel-size 2`: PASS, 114 sequences of 8,192 tokens, 934,816 tokens in the pool
SCRIPT_POOL = "holds 114 sequences of 8,192 tokens per replica (934,816 tokens in the pool)"


def test_an_argument_list_is_planned_as_the_same_command_in_a_script(tmp_path: Path) -> None:
    script = _write(tmp_path, "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B "
                    "--max-model-len 8192 --tensor-parallel-size 2\n", "serve.sh")
    assert SCRIPT_POOL in _check(str(script), "--gpu", "h100")[1]
    code, out = _check(str(_write(tmp_path, POPEN)), "--gpu", "h100")
    assert code == 0
    assert f"PASS  line 10  serve.py: starts; {SCRIPT_POOL}" in out
    assert "subprocess.Popen(...) (line 10) starts this server from Python" in out
    # a port from a parameter: not an option kvplan reads, so noted and passed over
    assert ("--port: str(port) (subprocess.Popen(...), line 10) is not read: port: a parameter "
            "of function serve, whose value comes from its callers (line 9); kvplan's plan does "
            "not read --port, so it is passed over") in out
    assert "CUDA_VISIBLE_DEVICES=0,1: 2 GPU(s)" in out


def test_a_model_the_file_does_not_state_is_an_error_naming_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "import subprocess\n\n\ndef serve_vllm(model):\n"
                  "    subprocess.Popen([\"vllm\", \"serve\", \"--model\", model])\n")
    [t] = read_targets(path, {}, "h100")
    assert t.line == 5
    assert t.problems[0].message.startswith(
        "model in the command of subprocess.Popen(...) (line 5) is not read: model: a parameter "
        "of function serve_vllm, whose value comes from its callers (line 4); it is the model or "
        "an option kvplan reads, so kvplan cannot plan the pool without it")


def test_a_shell_string_and_os_system(tmp_path: Path) -> None:
    path = _write(tmp_path, "import os, subprocess\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
                  "subprocess.run(\"vllm serve Qwen/Qwen3-8B --max-model-len 8192\", "
                  "shell=True)\n"
                  "os.system(\"nohup vllm serve Qwen/Qwen3-8B --max-model-len 8192 "
                  "--gpu-memory-utilization 0.5 > log 2>&1 &\")\n")
    one, half = read_targets(path, {}, "h100")
    assert (one.line, half.line) == (3, 4)
    assert half.deployment.engine.gpu_memory_utilization == 0.5
    # `CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B --max-model-len 8192` checked alone:
    # 52 sequences of 8,192, 428,000 tokens
    code, out = _check(str(path), "--gpu", "h100")
    assert "PASS  line 3  serve.py: starts; holds 52 sequences of 8,192 tokens per replica " \
        "(428,000 tokens in the pool)" in out


def test_what_starts_no_server_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = _write(tmp_path, "import subprocess\n"
                  "subprocess.Popen(\"vllm serve Qwen/Qwen3-8B\")\n"
                  "subprocess.Popen([\"vllm\", \"serve\", \"Qwen/Qwen3-8B\", \"--port\", 8000])\n"
                  "cmd = [\"vllm\", \"serve\", \"Qwen/Qwen3-8B\"]\n"
                  "cmd.append(\"--enforce-eager\")\n"
                  "subprocess.run(cmd)\n"
                  "subprocess.run([\"pip\", \"install\", \"vllm\"])\n")
    no_shell, an_int, changed = read_targets(path, {}, "h100")
    assert "without shell=True: Python runs a program of that whole name (FileNotFoundError)" \
        in no_shell.problems[0].message
    assert an_int.problems[0].message.startswith(
        "subprocess.Popen(...): 8000 in the argument list is not a string: subprocess raises "
        "TypeError")
    assert (changed.line, changed.problems[0].message.split(" (cmd: ")[1].split(")")[0]) == (
        6, "a list changed after it is bound (line 5")


def test_sglang_launch_server_cmd_and_popen_launch_server(tmp_path: Path) -> None:
    path = _write(tmp_path, (
        "from sglang.utils import launch_server_cmd\n"
        "from sglang.test.test_utils import popen_launch_server\n"
        "p, port = launch_server_cmd(\"python -m sglang.launch_server --model-path "
        "Qwen/Qwen2.5-7B-Instruct\")\n"
        "q = popen_launch_server(\"Qwen/Qwen2.5-7B-Instruct\", \"http://127.0.0.1:2157\", "
        "timeout=600, other_args=[\"--context-length\", \"8192\"])\n"))
    code, out = _check(str(path), "--gpu", "h100")
    # `python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 8000` checked
    # alone: 29 sequences of 32,768, 958,099 tokens (tests/assets/check/python_servers/EXPECTED.md)
    assert "PASS  line 3  serve.py: starts; holds 29 sequences of 32,768 tokens per replica " \
        "(958,099 tokens in the pool)" in out
    assert "PASS  line 4  serve.py: starts; holds 116 sequences of 8,192 tokens per replica " \
        "(958,099 tokens in the pool)" in out
    assert "(sglang 0.5.23 test_utils.py:731-813" in out


def test_sglang_splits_its_string_without_a_shell() -> None:
    # sglang 0.5.23 utils.py:473-486: backslashes are spaces, quotes are characters, leading
    # KEY=VALUE words are the environment
    assert sglang_split("A_B=1 python3 -m sglang.launch_server \\\n --model-path 'q/m'") == (
        {"A_B": "1"}, ["python3", "-m", "sglang.launch_server", "--model-path", "'q/m'"])


def test_the_development_files() -> None:
    # sgl-project/sglang's send_request notebook: doc_patch's launch_server_cmd appends
    # --max-total-tokens 20480 (sglang 0.5.23 test/doc_patch.py:51-58): the pool is 20,480
    code, out = _check(str(SERVERS / "sglang-send-request.ipynb"), "--gpu", "h100")
    assert out.splitlines()[1].startswith(
        "WARN  line 7  sglang-send-request.ipynb: starts, but a 32,768-token request cannot be "
        "served: the pool holds 20,480 tokens per replica")
    assert "1 checked in 1 file(s)" in out  # its curl `check_output(..., shell=True)`: no server
    code, out = _check(str(SERVERS / "cml-ray-vllm-os-system.py"), "--gpu", "h100")
    assert out.splitlines()[1].startswith(
        "ERROR line 25: the served model: 'Qwen2-7B-Instruct' is not in the catalog")
    code, out = _check(str(SERVERS / "databricks-ray-vllm-serve.py"), "--gpu", "h100")
    assert out.splitlines()[1].startswith(
        "ERROR line 92: the served model: '/Volumes/brian_ml_dev/hf_models/model_weights/"
        "llama_3_1_70b-instruct' is a path on the machine")


DATABRICKS = '''# Databricks notebook source
# MAGIC %pip install vllm==0.8.5
# MAGIC dbutils.library.restartPython()

# COMMAND ----------

import subprocess
subprocess.Popen(["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "8192"])

# COMMAND ----------

# MAGIC %sh vllm serve Qwen/Qwen3-8B --max-model-len 4096

# COMMAND ----------

# MAGIC %md
# MAGIC vllm serve is started above
'''


def test_a_databricks_notebook_saved_as_source(tmp_path: Path) -> None:
    popen, sh = read_targets(_write(tmp_path, DATABRICKS), {}, "h100")
    assert (popen.line, sh.line) == (8, 12)
    # the `%pip install vllm==0.8.5` of command 1 is the release of both
    assert popen.deployment.engine.version == sh.deployment.engine.version == "0.8.5"
    assert (popen.deployment.engine.max_model_len, sh.deployment.engine.max_model_len) == (
        8192, 4096)
    assert sh.notes[0] == ("a Databricks notebook (source format): command 3, its line 3 (line "
                           "12 of the file), in its %sh cell, read as a shell script")


JUPYTEXT = '''# %% [markdown]
# # Serve a model

# %%
MODEL = "Qwen/Qwen3-8B"

# %%
# !nohup vllm serve {MODEL} --max-model-len 8192 > log 2>&1 &

# %%
!vllm serve $SERVED --max-model-len 8192
'''


def test_a_jupytext_percent_script(tmp_path: Path) -> None:
    commented, raw = read_targets(_write(tmp_path, JUPYTEXT), {}, "h100")
    assert (commented.line, commented.deployment.model) == (8, "qwen3-8b")
    assert commented.notes[0].startswith("a Jupytext percent script: the `!` line of code cell "
                                         "2, its line 2 (line 8 of the file)")
    # a notebook's message in its own words (before: "the script does not set SERVED")
    assert raw.problems[0].message.startswith(
        "'$SERVED': the notebook does not set SERVED; set it in the notebook (`%env NAME=value`")


def test_a_folder_walk_reads_a_script_that_starts_a_server(tmp_path: Path) -> None:
    _write(tmp_path, POPEN)
    _write(tmp_path, "import subprocess\nsubprocess.run(['ls'])\n", "helper.py")
    _write(tmp_path, DATABRICKS, "notebook.py")
    code, out = _check(str(tmp_path), "--gpu", "h100")
    assert out.splitlines()[-1] == (
        "3 checked in 2 file(s): 3 PASS, 0 FAIL, 0 ERROR; 1 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (1 Python)")


def test_sh_keywords_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "import sh\nsh.vllm('serve', 'Qwen/Qwen3-8B', '--max-model-len', "
                  "'8192', _bg=True)\nsh.vllm('serve', 'Qwen/Qwen3-8B', max_model_len=8192)\n")
    code, out = _check(str(path), "--gpu", "h100")
    # as `vllm serve Qwen/Qwen3-8B --max-model-len 8192` checked alone (no GPU list: every GPU)
    assert "PASS  line 2  serve.py: starts; holds 52 sequences of 8,192 tokens per replica " \
        "(428,000 tokens in the pool)" in out
    assert "ERROR line 3: sh.vllm(...): keyword arguments max_model_len become options by the " \
        "sh package's own rules" in out


HELD = SERVERS / "heldout"


def test_the_held_out_files() -> None:
    # as written in tests/assets/check/python_servers/EXPECTED.md before the reader existed;
    # the figures are the equivalent shell commands' verdicts checked alone
    code, out = _check(str(HELD / "databricks-dss-model-load.py"), "--gpu", "h100")
    assert [line[:14] for line in out.splitlines() if line.startswith("ERROR")] == [
        "ERROR line 51:", "ERROR line 52:"]
    assert out.count("whose branches are alternatives") == 2
    code, out = _check(str(HELD / "databricks-custom-vlm-server.py"), "--gpu", "h100")
    assert out.splitlines()[1].startswith("ERROR line 94: `{MODEL_NAME}`: IPython puts the value")
    code, out = _check(str(HELD / "os-system-moondream-cpu.py"), "--gpu", "h100")
    assert "ERROR line 2: --device: the server runs on 'cpu', not a GPU" in out
    code, out = _check(str(HELD / "locahf-sglang-api.py"), "--gpu", "h100")
    assert out.splitlines()[1].startswith(
        "PASS  line 21  locahf-sglang-api.py: starts; holds 29 sequences of 32,768 tokens per "
        "replica (958,099 tokens in the pool)")
    code, out = _check(str(HELD / "sglang-test-lora-publication-overlap.py"), "--gpu", "h100")
    assert "PASS  line 33  sglang-test-lora-publication-overlap.py: starts; holds 24 sequences " \
        "of 4,096 tokens per replica (99,702 tokens in the pool); at most 8 run at once" in out
    code, out = _check(str(HELD / "sglang-separate-reasoning.ipynb"), "--gpu", "h100")
    assert "WARN  line 6  sglang-separate-reasoning.ipynb: starts, but a 131,072-token request " \
        "cannot be served: the pool holds 20,480 tokens per replica" in out
    assert "PASS  line 26  sglang-separate-reasoning.ipynb: starts; holds 7 sequences of " \
        "131,072 tokens per replica (958,099 tokens in the pool)" in out


def test_a_walk_counts_python_that_mentions_an_engine_as_it_counts_scripts(tmp_path: Path) -> None:
    # a command kvplan cannot read whole, in a helper it does not follow: passed over, and said
    # to mention vLLM (as a shell script with a `vllm serve` kvplan does not read is)
    _write(tmp_path, "import subprocess\n\n\ndef run(cmd):\n    subprocess.run(cmd, shell=True)\n"
           "\n\nrun('vllm serve Qwen/Qwen3-8B')\n", "indirect.py")
    _write(tmp_path, "print('hello')\n", "other.py")
    code, out = _check(str(tmp_path), "--gpu", "h100")
    assert "2 script(s) in the folders walked skipped: they start no vLLM, SGLang or " \
        "TensorRT-LLM server or engine (2 Python; 1 of them mentions an engine: name one to be " \
        "told what kvplan found)" in out
    code, out = _check(str(tmp_path / "indirect.py"), "--gpu", "h100")
    assert out.splitlines()[1].startswith("ERROR line 1: this file mentions vLLM, but none of "
                                          "its commands starts a server kvplan reads")


def test_bash_c_format_and_percent_strings(tmp_path: Path) -> None:
    path = _write(tmp_path, (
        "import subprocess\nM = 'Qwen/Qwen3-8B'\n"
        "subprocess.Popen(['bash', '-c', 'vllm serve Qwen/Qwen3-8B --max-model-len 8192'])\n"
        "subprocess.Popen('vllm serve {} --max-model-len {}'.format(M, 8192), shell=True)\n"
        "subprocess.Popen('vllm serve %s --max-model-len %d' % (M, 8192), shell=True)\n"
        "subprocess.Popen('vllm serve %s --max-model-len 8192' % M, shell=True)\n"))
    code, out = _check(str(path), "--gpu", "h100")
    # `bash -c SCRIPT` runs SCRIPT; .format and % of the pieces' text as Python formats them:
    # each is `vllm serve Qwen/Qwen3-8B --max-model-len 8192` (52 sequences, 428,000 tokens);
    # `%d` does not apply to the text kvplan renders: that one is named, not guessed
    for line in (3, 4, 6):
        assert f"PASS  line {line}  serve.py: starts; holds 52 sequences of 8,192 tokens per " \
            "replica (428,000 tokens in the pool)" in out
    assert "ERROR line 5: subprocess.Popen(...) (line 5) runs a command kvplan cannot read whole" \
        in out


def test_too_many_program_calls_are_one_error(tmp_path: Path) -> None:
    # docs/limits.md: 64 calls that run a program, as 64 engine constructions
    path = _write(tmp_path, "import os\n" + "os.system('vllm serve Qwen/Qwen3-8B')\n" * 65)
    [t] = read_targets(path, {}, "h100")
    assert t.problems[0].message.startswith(
        "65 calls that run a program (subprocess, os.system, SGLang's launchers), over the 64 "
        "kvplan reads in one script")
