"""Defects found by task h80review's fresh-eyes review of stop 62's code (0ffff5b..987a124),
each by a user's input run through the installed CLI; one test (or a few) per defect."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

REPO = Path(__file__).resolve().parents[2]
SERVE = "#!/bin/bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &\n"


def _check(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["check", *args], env={"COLUMNS": "400"})
    return got.exit_code, got.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO needs os.mkfifo")
def test_a_fifo_in_a_walked_folder_is_not_opened(tmp_path: Path) -> None:
    # before: `kvplan check FOLDER` hung for ever on a FIFO in the folder (killed at 20 s): the
    # walk opened it to look for a `#!` line (suffix-less, since task h70walk), read it as a
    # launch script (.sh) or as YAML / Python. Run as a process, so a hang fails the test.
    (tmp_path / "serve.sh").write_text(SERVE)
    for name in ("pipe", "pipe.sh", "pipe.py", "pipe.yaml"):
        os.mkfifo(tmp_path / name)
    got = subprocess.run([sys.executable, "-m", "kvplan", "check", str(tmp_path), "--gpu", "h100"],
                         cwd=REPO, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "400"})
    out = got.stdout
    assert got.returncode == 2, out + got.stderr  # the FIFO pipe.yaml's ERROR
    # serve.sh as when named: Qwen2.5-7B on one H100 at 8,192 tokens, vLLM's default profile
    assert "serve.sh: starts; holds 136 sequences of 8,192 tokens per replica (1,120,080 tokens" \
        in out
    assert (f"{tmp_path / 'pipe.yaml'}\nERROR file: not a regular file (a FIFO, socket or device),"
            " not opened; replace it with the YAML file, or move it out of the folder") in out
    assert out.splitlines()[-1] == (
        "2 checked in 2 file(s): 1 PASS, 0 FAIL, 1 ERROR; 2 script(s) in the folders walked "
        "skipped: 2 not read as text (1 shell, 1 Python: pipe.py, pipe.sh)")


def _notebook(path: Path, *cells: str) -> Path:
    import json

    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
        for c in cells]}))
    return path


@pytest.mark.parametrize("line", ["obj?", "obj.attr??", "%timeit?", "print(x?", "f(9abc?",
                                  "x???", "9?", "a.b.", "M = 'x'", "é?", "x?  ", "*?"])
def test_help_end_is_ipythons_pattern(line: str) -> None:
    from kvplan.check.manifests.notebook import _HELP_END, help_end

    assert help_end(line) is (_HELP_END.search(line) is not None)


def test_a_notebook_line_of_200000_word_characters_is_read_in_seconds(tmp_path: Path) -> None:
    # before: the help-line test searched such a line with a pattern that tried every start to
    # the line's end: 30,000 characters took 69 s, 100,000 over 100 s (killed), so 200,000 runs
    # past the 60 s the process is given. Run as a process, so a hang fails the test.
    nb = _notebook(tmp_path / "big.ipynb", "TOKEN = '" + "x" * 200_000 + "'\n",
                   "!vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &")
    got = subprocess.run([sys.executable, "-m", "kvplan", "check", str(nb), "--gpu", "h100"],
                         cwd=REPO, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "400"})
    assert got.returncode == 0, got.stdout + got.stderr
    assert "big.ipynb: starts; holds 136 sequences of 8,192 tokens per replica (1,120,080 " \
        "tokens in the pool)" in got.stdout


FOREIGN = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: box}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: s
        image: {image}
        command: ["bash", "-c", "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
DIGEST = "sha256:" + "0123456789abcdef" * 4


def _image(tmp_path: Path, image: str) -> str:
    path = tmp_path / "box.yaml"
    path.write_text(FOREIGN.format(image=image))
    code, out = _check(str(path), "--gpu", "h100")
    assert code == 0, out
    return out


def test_a_registry_host_naming_the_engine_does_not_make_the_tag_its_release(tmp_path: Path
                                                                             ) -> None:
    # before: 'vllm 1.2' with no note: the engine's word was looked for in the whole name, the
    # registry's host included (073b4d4 meant the repository)
    out = _image(tmp_path, "vllm-registry.internal:5000/acme/llm-box:1.2")
    # vLLM's default profile: Llama-3-8B on one H100 at 8,192 tokens, as
    # tests/check/test_foreign_image_tag.py reads acme/llm-box:1.2
    assert "(llama-3-8b, vllm (default version))" in out, out
    assert "489,616 tokens in the pool" in out
    assert "its repository names no vllm, so its tag is that image's own version" in out
    assert "vllm 1.2" not in out


def test_a_mirror_of_the_engines_image_keeps_its_tag(tmp_path: Path) -> None:
    out = _image(tmp_path, "registry.local:5000/vllm/vllm-openai:v0.8.5")
    assert "(llama-3-8b, vllm 0.8.5)" in out, out
    assert "its repository names no" not in out


def test_an_image_pinned_by_digest_alone_is_said_to_be_a_digest(tmp_path: Path) -> None:
    # before: "image acme/box@sha256:...: its repository names no vllm, so its tag is that
    # image's own version": there is no tag; 0ffff5b said the digest note, as for vllm's image
    out = _image(tmp_path, f"acme/box@{DIGEST}")
    assert "(llama-3-8b, vllm (default version))" in out, out
    assert ("note: image pinned by digest sha256:0123456789ab…: a digest names no vllm release; "
            "the vllm profile's default version is used") in out
    assert "its tag" not in out


FORMATTED = ('import subprocess\nMODEL = "Qwen/Qwen2.5-7B-Instruct"\nsubprocess.Popen('
             '"vllm serve {} --max-model-len 8192 --gpu-memory-utilization {%s}".format(MODEL, '
             '0.95), shell=True)\n')


def test_a_format_spec_in_a_format_call_is_not_applied_to_the_text(tmp_path: Path) -> None:
    # before: '{:.3}' was applied to the text '0.95' (giving '0.9') where Python applies it to
    # the float 0.95 (giving '0.95'): PASS at 1,005,408 tokens, the pool at 0.9, in silence
    script = tmp_path / "serve.py"
    script.write_text(FORMATTED % ":.3")
    code, out = _check(str(script), "--gpu", "h100")
    assert code == 2, out
    assert ("ERROR line 3: 0.95 in the command of subprocess.Popen(...) (line 3) is not read: a "
            "formatted value (an index or attribute, a format spec or !r / !a conversion) kvplan "
            "does not apply") in out
    assert "1,005,408" not in out


def test_a_plain_format_field_is_still_read(tmp_path: Path) -> None:
    # '{}' is Python's str() of the value: the command as written out in a launch script
    # (`vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.95`
    # gives 1,079,552 tokens on an H100 under vLLM's default profile)
    script = tmp_path / "serve.py"
    script.write_text(FORMATTED % "")
    written = tmp_path / "serve.sh"
    written.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 "
                       "--gpu-memory-utilization 0.95\n")
    for path in (script, written):
        code, out = _check(str(path), "--gpu", "h100")
        assert code == 0, out
        assert "holds 131 sequences of 8,192 tokens per replica (1,079,552 tokens in the pool)" \
            in out


def test_an_indexed_format_field_is_not_read_as_its_placeholder(tmp_path: Path) -> None:
    # before: '{0[0]}' of a list kvplan does not read indexed the hole's text '${KVPLAN_PY_1}':
    # the served model was '$' ("'$' is not in the catalog")
    script = tmp_path / "serve.py"
    script.write_text('import subprocess\nsubprocess.Popen("vllm serve {0[0]} --max-model-len '
                      '8192".format(["Qwen/Qwen2.5-7B-Instruct"]), shell=True)\n')
    code, out = _check(str(script), "--gpu", "h100")
    assert code == 2, out
    assert "'$'" not in out
    assert ("['Qwen/Qwen2.5-7B-Instruct'] in the command of subprocess.Popen(...) (line 2) is not "
            "read: a formatted value (an index or attribute") in out


def test_check_help_says_a_folder_walk_reads_shell_scripts() -> None:
    # before: "a launch script is read when named", untrue since task h70walk (8199b23), whose
    # walk reads the shell scripts that start an engine and counts the others in the footer
    got = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "400"})
    assert got.exit_code == 0
    text = " ".join(got.output.split())
    assert "read when named" not in text
    assert ("folders (searched recursively: YAML, and the shell scripts and .py / .ipynb files "
            "that start an engine; the others are counted) or globs") in text


def test_a_flag_over_what_a_script_or_side_file_states_says_it_overrides(tmp_path: Path) -> None:
    # before: "--max-model-len sets engine.max_model_len (the file does not state it)" where the
    # script says --max-model-len 8192, and "--peak-users sets traffic.peak_concurrent_users (the
    # file does not state it)" where its side file says 500: plan.record._apply took only a
    # kvplan/v1 file's fields ("file") as stated, and a manifest's, script's or notebook's are
    # "manifest" (explain, size and fleet read scripts since task h71left)
    script = tmp_path / "serve.sh"
    script.write_text(SERVE)
    (tmp_path / "serve.kvplan.yaml").write_text(
        "traffic:\n  peak_concurrent_users: 500\n  context_tokens: {p50: 2000, p95: 8000}\n")
    got = CliRunner().invoke(app, ["fleet", str(script), "--gpu", "h100", "--max-model-len",
                                   "4096", "--peak-users", "600"], env={"COLUMNS": "400"})
    assert got.exit_code == 0, got.output
    assert "--max-model-len overrides engine.max_model_len (was 8192)" in got.stderr
    assert "--peak-users overrides traffic.peak_concurrent_users (was 500)" in got.stderr
    assert "--gpu sets hardware.gpu (the file does not state it)" in got.stderr  # it does not
    assert "(the file does not state it)" not in got.stderr.replace(
        "--gpu sets hardware.gpu (the file does not state it)", "")


def test_a_flag_over_a_manifest_without_traffic_still_sets_it(tmp_path: Path) -> None:
    path = tmp_path / "box.yaml"
    path.write_text(FOREIGN.format(image="vllm/vllm-openai:v0.8.5"))
    got = CliRunner().invoke(app, ["fleet", str(path), "--gpu", "h100", "--peak-users", "600"],
                             env={"COLUMNS": "400"})
    assert got.exit_code == 0, got.output
    assert "--peak-users sets traffic.peak_concurrent_users (the file does not state it)" \
        in got.stderr


SKY = """resources:
  accelerators: H100:1
setup: |
  VLLM_VERSION=0.8.5
  pip install vllm==$VLLM_VERSION
run: |
  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
"""
DSTACK = """type: task
name: t
resources:
  gpu: H100:1
commands:
  - export VLLM_VERSION=0.8.5
  - pip install vllm==$VLLM_VERSION
  - vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
"""
CONTAINER = """apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: x
        image: python:3.11
        command:
        - sh
        - -c
        - >-
          VLLM_VERSION=0.8.5; pip install vllm==$VLLM_VERSION &&
          vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize(("name", "text", "said"), [
    ("sky.yaml", SKY, "setup installs vllm==0.8.5: vllm 0.8.5"),
    ("ds.dstack.yml", DSTACK, "commands (line 7) installs vllm==0.8.5: vllm 0.8.5"),
    ("box.yaml", CONTAINER, "the container's sh -c script installs vllm==0.8.5: vllm 0.8.5"),
])
def test_a_pin_through_a_variable_the_script_sets_is_read(tmp_path: Path, name: str, text: str,
                                                          said: str) -> None:
    # before: "installs vllm==$VLLM_VERSION: a variable kvplan does not know there", the
    # default profile planned (1,120,080 tokens): only the container's env / the launcher's
    # envs were read, where a launch script reads its own assignments (3368d99)
    path = tmp_path / name
    path.write_text(text)
    args = [str(path)] if name != "box.yaml" else [str(path), "--gpu", "h100"]
    code, out = _check(*args)
    assert code == 0, out
    assert said in out
    assert "a variable kvplan does not know there" not in out
    # the same text as a launch script: `VLLM_VERSION=0.8.5; pip install vllm==$VLLM_VERSION &&
    # vllm serve ...` is vLLM 0.8.5, Qwen2.5-7B on one H100 at 8,192 tokens
    script = tmp_path / "same.sh"
    script.write_text("VLLM_VERSION=0.8.5; pip install vllm==$VLLM_VERSION && vllm serve "
                      "Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    for got in (out, _check(str(script), "--gpu", "h100")[1]):
        assert "holds 117 sequences of 8,192 tokens per replica (959,408 tokens in the pool)" \
            in got, got
        assert "(qwen2.5-7b, vllm 0.8.5)" in got


DATABRICKS = """# Databricks notebook source
# MAGIC %pip install vllm==0.8.5

# COMMAND ----------

# MAGIC %sh
# MAGIC vllm serve Qwen/Qwen2.5-7B-Instruct \\
# MAGIC   --max-model-len 8192 &
"""


def test_a_databricks_notebooks_pin_is_named_by_its_command(tmp_path: Path) -> None:
    # before: "code cell 1, its line 2 installs vllm==0.8.5", where the file has no code cells
    # and the note beside it says "command 2, its line 4 (line 7 of the file)"
    path = tmp_path / "nb.py"
    path.write_text(DATABRICKS)
    code, out = _check(str(path), "--gpu", "h100")
    assert code == 0, out
    assert "note: command 1, its line 2 installs vllm==0.8.5: vllm 0.8.5" in out
    assert "code cell" not in out
    # vLLM 0.8.5 pip-installed (no FlashInfer), Qwen2.5-7B on one H100 at 8,192 tokens, as the
    # launch script with the same pin reads it (test_a_pin_through_a_variable_...)
    assert "holds 117 sequences of 8,192 tokens per replica (959,408 tokens in the pool)" in out


def test_a_list_given_with_shell_true_is_named(tmp_path: Path) -> None:
    # POSIX subprocess with shell=True and a list runs ['/bin/sh', '-c', 'vllm', 'serve', ...]:
    # the shell runs `vllm` alone (its usage), and 'serve' ... become $0, $1 (Python's
    # subprocess docs, "Popen constructor", args). Before: "no engine started in this file",
    # nothing said of the call
    script = tmp_path / "serve.py"
    script.write_text('import subprocess\nsubprocess.Popen(["vllm", "serve", '
                      '"Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"], shell=True)\n')
    code, out = _check(str(script), "--gpu", "h100")
    assert code == 2, out
    assert ("ERROR line 2: subprocess.Popen(...) is given a list with shell=True: the shell runs "
            "its first item 'vllm' alone, and the others (serve Qwen/Qwen2.5-7B-Instruct ...) "
            "are the shell's own $0, $1 ..., not the command's words, so no server starts") in out
    assert "no engine started in this file" not in out


def test_size_names_a_notebooks_servers_as_the_notebooks(tmp_path: Path) -> None:
    # before: "the manifest runs 2 servers; planning the first (line 2)" of a .ipynb, beside
    # "the notebook declares no traffic" in the same notes
    nb = _notebook(tmp_path / "two.ipynb",
                   "%%bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &",
                   "!vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 &")
    got = CliRunner().invoke(app, ["size", str(nb), "--gpu", "h100"], env={"COLUMNS": "400"})
    assert got.exit_code == 0, got.output
    assert f"note: {nb}: the notebook runs 2 servers; planning the first (line 2)" in got.stderr
    assert "the manifest" not in got.stderr


def test_a_notebook_of_20000_shell_lines_is_read_in_seconds(tmp_path: Path) -> None:
    # before: each `!` line was read as a script padded with the blank lines above it, so the
    # reading cost grew with the square of the lines: 1,000 lines 21 s, 2,000 lines 71 s, 20,000
    # over 200 s (killed). Run as a process given 60 s, so a hang fails the test.
    nb = _notebook(tmp_path / "many.ipynb", "".join(f"!echo {i}\n" for i in range(20_000))
                   + "!vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &\n")
    got = subprocess.run([sys.executable, "-m", "kvplan", "check", str(nb), "--gpu", "h100"],
                         cwd=REPO, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "400"})
    assert got.returncode == 0, got.stdout + got.stderr
    assert "PASS  line 20001  many.ipynb: starts; holds 136 sequences of 8,192 tokens per " \
        "replica (1,120,080 tokens in the pool)" in got.stdout
