"""A notebook's `!` lines and %%bash / %%sh cells that start a server are read as that launch
(task h70walk; kvplan/check/manifests/notebook.py, notebook_shell.py): through the shell-script
reader, with the cell and line named; other shell lines keep their note."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.check.discover import discover
from kvplan.check.manifests.notebook import read_notebook
from kvplan.check.manifests.notebook_shell import expand
from kvplan.cli import app
from tests.conftest import ASSETS

BOOKS = ASSETS / "check" / "notebooks"


def _book(tmp_path: Path, *cells: str, name: str = "nb.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells]}))
    return path


def _check(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["check", *args], env={"COLUMNS": "400"})
    return got.exit_code, got.output


def test_a_bang_line_with_a_python_name_a_pin_and_the_gpus(tmp_path: Path) -> None:
    path = _book(
        tmp_path,
        'MODEL = "Qwen/Qwen3-8B"\nimport os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"',
        "!pip install vllm==0.8.5",
        "%env VLLM_USE_V1=1\n!nohup vllm serve {MODEL} --tensor-parallel-size 2 \\\n"
        "   --max-model-len 16384 > vllm.log 2>&1 &")
    [t] = read_targets(path, {}, "h100")
    assert t.line == 6  # cells of 3, 1 and 3 lines: code cell 3, its line 2
    d = t.deployment
    assert (d.model, d.engine.name, d.engine.version, d.engine.max_model_len,
            d.parallel.tensor) == ("qwen3-8b", "vllm", "0.8.5", 16384, 2)
    assert t.notes[0] == (
        "a notebook: the `!` line of code cell 3, its line 2 (line 6 of its code cells joined in "
        "order), which IPython runs in a shell of its own (a variable another `!` line sets does "
        "not reach it)")
    assert "code cell 2, its line 1 installs vllm==0.8.5: vllm 0.8.5" in t.notes
    assert "CUDA_VISIBLE_DEVICES=0,1: 2 GPU(s)" in t.notes
    # `kvplan explain qwen3-8b -e vllm --engine-version 0.8.5 --tp 2 -c 16384 -g h100`: the same
    # pool as the notebook's server
    code, out = _check(str(path), "--gpu", "h100")
    assert code == 0, out
    assert "holds 49 sequences of 16,384 tokens per replica (812,448 tokens in the pool)" in out


def test_a_bash_cell_and_a_python_engine_are_each_checked(tmp_path: Path) -> None:
    path = _book(
        tmp_path,
        "from vllm import LLM\nllm = LLM(model='Qwen/Qwen3-8B', max_model_len=4096)",
        "# start the server\n%%bash\nexport CUDA_VISIBLE_DEVICES=2\n"
        "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30000 &",
        "%%sh\necho hi",
        "!nvidia-smi")
    targets = read_targets(path, {}, "h100")
    assert [(t.line, t.deployment.engine.name) for t in targets] == [(2, "vllm"), (6, "sglang")]
    python, shell = targets
    # the %%bash cell that starts SGLang is read: its "left out" note goes; the others stay
    assert "code cell 3 left out: its cell magic %%sh makes it no Python" in python.notes
    assert "code cell 4, its line 1: `!nvidia-smi` left out (IPython syntax, not Python)" in \
        python.notes
    assert not any("code cell 2 left out" in n for n in python.notes)
    assert shell.notes[0] == (
        "a notebook: code cell 2, its line 4 (line 6 of its code cells joined in order), in its "
        "%%bash cell, read as a shell script")
    assert "CUDA_VISIBLE_DEVICES=2: 1 GPU(s)" in shell.notes


def test_what_ipython_expands_and_what_kvplan_refuses(tmp_path: Path) -> None:
    bound, literals = {"MODEL", "cfg", "PORT"}, {"MODEL": "Qwen/Qwen3-8B", "PORT": "8000"}
    assert expand("vllm serve {MODEL} --port $PORT", bound, literals) == (
        "vllm serve Qwen/Qwen3-8B --port 8000", None)
    # `{{`, `}}` and `$$` are the characters themselves
    assert expand("echo {{x}} $$HOME {MODEL}", bound, literals) == (
        "echo {x} $HOME Qwen/Qwen3-8B", None)
    # a name the notebook does not bind: IPython's expansion fails and runs the line as written
    assert expand("vllm serve {MODEL} --download-dir $HOME", bound, literals) == (
        "vllm serve {MODEL} --download-dir $HOME", None)
    text, why = expand('vllm serve {cfg["model"]}', bound, literals)
    assert text == 'vllm serve {cfg["model"]}'
    assert why is not None and why.startswith(
        '`{cfg["model"]}`: IPython puts the value of the Python expression cfg["model"] here')
    path = _book(tmp_path, "cfg = load()", '!vllm serve {cfg["model"]}')
    [t] = read_targets(path, {}, "h100")
    assert (t.line, t.problems[0].message) == (2, why)


def test_an_unresolved_shell_variable_is_named_in_the_notebooks_words(tmp_path: Path) -> None:
    path = _book(tmp_path, "!export MODEL=Qwen/Qwen3-8B", "!vllm serve $MODEL")
    [t] = read_targets(path, {}, "h100")
    # each `!` line runs in its own shell: the export of line 1 does not reach line 2
    assert t.line == 2
    # a notebook sets a variable with %env or os.environ, not as a script does (task h71nbpy)
    assert t.problems[0].message.startswith("'$MODEL': the notebook does not set MODEL; set it "
                                            "in the notebook (`%env NAME=value`")
    assert "script" not in t.problems[0].message


def test_a_notebook_whose_shell_starts_nothing_keeps_its_notes(tmp_path: Path) -> None:
    path = _book(tmp_path, "!pip install vllm", "%%bash\ncat > c.yaml <<EOF\nvllm serve x\nEOF",
                 "from vllm import LLM\nllm = LLM(model='Qwen/Qwen3-8B', max_model_len=4096)")
    [t] = read_targets(path, {}, "h100")
    assert t.line == 7  # cells of 1, 4 and 2 lines
    assert t.notes[1:3] == [
        "code cell 1, its line 1: `!pip install vllm` left out (IPython syntax, not Python)",
        "code cell 2 left out: its cell magic %%bash makes it no Python"]


def test_a_walk_reads_a_notebook_whose_only_engine_is_a_shell_line(tmp_path: Path) -> None:
    _book(tmp_path, "!vllm serve Qwen/Qwen3-8B &", name="serve.ipynb")
    _book(tmp_path, "!pip install vllm", name="setup.ipynb")
    skipped: list[tuple[str, str, str]] = []
    files, _ = discover([str(tmp_path)], skipped)
    assert [p.name for p, _ in files] == ["serve.ipynb"]
    assert [(Path(f).name, k) for f, k, _ in skipped] == [("setup.ipynb", "Python")]


def test_continuation_lines_of_a_bang_line_are_not_python(tmp_path: Path) -> None:
    # before: the lines after `!curl ... \` were read as Python: "not Python that parses"
    book = read_notebook(json.dumps({"cells": [{"cell_type": "code", "source": [
        "!curl http://localhost:8001/v1/completions \\\n", '-H "Content-Type: json" \\\n',
        "-d '{}'\n", "x = 1\n"]}]}))
    assert book.code == "\n\n\nx = 1\n"
    assert [(c.line, c.lines) for c in book.chunks] == [
        (1, ["curl http://localhost:8001/v1/completions \\", '-H "Content-Type: json" \\',
             "-d '{}'"])]


def test_the_development_notebooks() -> None:
    # dongukmoon/misc: LLM("gpt2") (not in the catalog) and `!nohup vllm serve ... &`; before,
    # the whole notebook was "not Python that parses" (line 44, a continued `!curl`)
    code, out = _check(str(BOOKS / "dongukmoon-vllm-quickstart-tutorial.ipynb"), "--gpu", "h100")
    assert code == 2
    assert "ERROR line 13: model: 'gpt2' is not in the catalog" in out
    # `kvplan explain qwen2.5-1.5b -e vllm --memory-utilization 0.3 -c 32768 -g h100`:
    # GPU KV cache size 655,008 tokens
    assert ("PASS  line 41  dongukmoon-vllm-quickstart-tutorial.ipynb: starts; holds 19 "
            "sequences of 32,768 tokens per replica (655,008 tokens in the pool)") in out
    # sgl-project/sglang 690AB: `# Launch the server` then %%bash, as Colab runs it
    # (`kvplan explain qwen2.5-1.5b -e sglang -c 32768 -g l4`: 442,264 tokens)
    code, out = _check(str(BOOKS / "sglang-690ab-colab-setup.ipynb"), "--gpu", "l4")
    assert code == 0, out
    assert ("PASS  line 87  sglang-690ab-colab-setup.ipynb: starts; holds 13 sequences of "
            "32,768 tokens per replica (442,264 tokens in the pool)") in out
    assert "code cell 9, its line 4 (line 87 of its code cells joined in order)" in out
    # llama-cookbook's %%bash cells write config files with heredocs: no server, no verdict
    code, out = _check(str(BOOKS / "llama-cookbook-distillation.ipynb"))
    assert "this file mentions vLLM, but none of its commands starts a server" in out


def test_the_held_out_notebooks() -> None:
    # as written in tests/assets/check/notebooks/EXPECTED.md before the run (task h70walk):
    # their servers start in subprocess.Popen, a Python call; their `!` lines and %%bash cells
    # start none. Since task h71nbpy the benchmark notebook's `subprocess.Popen(command,
    # shell=True)` is read: `command` is an f-string of names the notebook binds once to
    # literals, and the server is planned as the same command in a shell script is (489,344
    # tokens on an H100: `VLLM_SKIP_WARMUP=true python -m vllm.entrypoints.openai.api_server
    # --model=meta-llama/Meta-Llama-3.1-8B --swap-space 16 --disable-log-requests --port 8000
    # --block-size 128` checked alone)
    code, out = _check(str(BOOKS / "habana-vllm-benchmark-serving.ipynb"), "--gpu", "h100")
    assert out.splitlines()[1].startswith(
        "PASS  line 15  habana-vllm-benchmark-serving.ipynb: starts; holds 3 sequences of "
        "131,072 tokens per replica (489,344 tokens in the pool)")
    # the other one's Popen never runs: its notebook is not Python that parses (a bash line)
    code, out = _check(str(BOOKS / "habana-understanding-vllm-on-gaudi.ipynb"))
    assert out.splitlines()[1].startswith("ERROR line 7: not Python that parses (invalid syntax)")
    code, out = _check(str(BOOKS), "--gpu", "h100")
    # the two passed over hold server commands kvplan does not read (a bash line in a Python
    # cell; heredocs): counted as mentioning vLLM, as a walk counts such shell scripts
    assert out.splitlines()[-1] == (
        "4 checked in 3 file(s): 3 PASS, 0 FAIL, 1 ERROR; 2 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (2 Python; 2 of "
        "them mention an engine: name one to be told what kvplan found)")


def test_the_sglang_notebooks_logged_pool_against_its_release() -> None:
    # its log (SOURCES.md): SGLang 0.5.6 on an L4, `KV Cache is allocated. #tokens: 570166`;
    # kvplan's 0.5.6 profile gives 565,801, 0.8% under (docs/check.md)
    got = CliRunner().invoke(app, ["explain", "qwen2.5-1.5b", "-e", "sglang", "--engine-version",
                                   "0.5.6", "-g", "l4", "-c", "32768"], env={"COLUMNS": "200"})
    assert "565,801" in got.output
    assert round((570_166 - 565_801) / 570_166 * 100, 1) == 0.8


def test_an_indented_bang_line_is_read_as_if_it_runs_and_said(tmp_path: Path) -> None:
    # before: the blanked line left `if` an empty block, and a notebook importing vllm was
    # "not Python that parses"
    path = _book(tmp_path, "import vllm\nif True:\n    !vllm serve Qwen/Qwen3-8B "
                 "--max-model-len 8192 &")
    [t] = read_targets(path, {}, "h100")
    assert (t.line, t.deployment.engine.max_model_len) == (3, 8192)
    assert t.notes[1] == ("the `!` line is indented inside Python code (an `if`, a loop or a "
                          "function): read as if it runs once; kvplan does not follow the "
                          "Python around it")
