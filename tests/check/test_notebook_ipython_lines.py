"""A notebook's IPython lines are left out of its Python as IPython rewrites them
(IPython/core/inputtransformer2.py, ipython/ipython 9.16.1-46-g7f0ee5568): the rest of the cell
stays Python that parses, and the pins those lines hold are read (task h70review;
kvplan.check.manifests.notebook)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

START = ('from vllm import LLM\n'
         'llm = LLM(model="meta-llama/Meta-Llama-3-8B-Instruct", max_model_len=8192)')
# Llama-3-8B at 8,192 tokens on an H100: the newest vLLM's pool, and vllm 0.8.5's (the figures of
# tests/check/test_script_pip_pins.py)
NEWEST, V085 = "(489,616 tokens in the pool)", "(420,528 tokens in the pool)"


def _check(tmp_path: Path, *cells: str) -> tuple[int, str]:
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": c} for c in cells]}))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, " ".join(res.output.split())


def test_an_indented_shell_line_keeps_its_block(tmp_path: Path) -> None:
    # Colab's `if IN_COLAB:` then an indented `!pip install`: IPython keeps the line's indent
    # (EscapedCommand.transform, `new_line = indent + call`, :574), so the block is not empty;
    # kvplan blanked the line and read 'expected an indented block after 'if' statement'
    code, out = _check(tmp_path, "IN_COLAB = True\nif IN_COLAB:\n    !pip install vllm==0.8.5",
                       START)
    assert code == 0, out
    assert V085 in out
    assert "note: code cell 1, its line 3 installs vllm==0.8.5: vllm 0.8.5" in out
    # a cell indented as a whole is dedented first (leading_indent, :41, textwrap.dedent), so
    # its indented shell line is a top-level one
    code, out = _check(tmp_path, "  !pip install vllm==0.8.5", START)
    assert code == 0, out
    assert V085 in out


def test_a_shell_line_continued_by_a_backslash(tmp_path: Path) -> None:
    # IPython reads `!pip install \` and the lines a trailing backslash continues as one command
    # (find_end_of_continued_line, :254, in EscapedCommand.transform); kvplan read the second line
    # as Python ('unexpected indent') and lost the pin
    code, out = _check(tmp_path, "!pip install -q \\\n    vllm==0.8.5 \\\n    openai", START)
    assert code == 0, out
    assert V085 in out
    assert "note: code cell 1, its line 1 installs vllm==0.8.5: vllm 0.8.5" in out


def test_only_a_help_line_is_read_as_one(tmp_path: Path) -> None:
    # a line whose comment ends in '?' is Python: IPython's help line is `name?` / `name??` at the
    # end of the code (HelpEnd looks at the last token before the newline, a comment being one
    # token, and its _help_end_re); kvplan left the whole LLM(...) line out as 'x?' and read
    # 'nothing that runs vLLM, SGLang or TensorRT-LLM in this file'
    code, out = _check(tmp_path, START + "  # which GPU does it need?")
    assert code == 0, out
    assert NEWEST in out
    # `?LLM` (IPython's leading help escape, ESC_HELP in ESCAPE_SINGLES) and `llm.generate??`
    # are help lines, left out with a note
    code, out = _check(tmp_path, "?LLM", START, "llm.generate??")
    assert code == 0, out
    assert "code cell 1, its line 1: `?LLM` left out (IPython syntax, not Python)" in out
    assert "code cell 3, its line 1: `llm.generate??` left out" in out


def test_a_cell_magic_after_blank_lines(tmp_path: Path) -> None:
    # IPython drops a cell's leading blank lines before it looks for a cell magic
    # (leading_empty_lines :27, first of TransformerManager's cleanup_transforms :706, then
    # cell_magic :223): a %%bash cell that starts with a blank line runs as bash; kvplan read
    # `pip install vllm==0.8.5` as Python ('not Python that parses (invalid syntax)')
    code, out = _check(tmp_path, "\n%%bash\npip install vllm==0.8.5", START)
    assert code == 0, out
    assert V085 in out
    assert "note: code cell 1, its line 3 installs vllm==0.8.5: vllm 0.8.5" in out
    assert "code cell 1 left out: its cell magic %%bash makes it no Python" in out


def test_an_assignment_from_a_shell_line_or_a_magic(tmp_path: Path) -> None:
    # `gpus = !nvidia-smi -L` and `home = %env HOME` are IPython's SystemAssign (:383) and
    # MagicAssign: the name is bound to the command's output; kvplan read the line as Python and
    # stopped ('not Python that parses (invalid syntax)')
    code, out = _check(tmp_path, "gpus = !nvidia-smi -L\nhome = %env HOME", START)
    assert code == 0, out
    assert NEWEST in out
    assert "code cell 1, its line 1: `gpus = !nvidia-smi -L` left out (IPython syntax, not " \
        "Python)" in out
    # the name is bound to a call kvplan does not make, so an engine keyword given it says so
    code, out = _check(tmp_path, 'from vllm import LLM\nn = !nvidia-smi -L | wc -l\n'
                       'llm = LLM(model="meta-llama/Meta-Llama-3-8B-Instruct", max_model_len=8192,'
                       ' tensor_parallel_size=n)')
    assert code == 2, out
    assert ("ERROR line 3: tensor_parallel_size: get_ipython().getoutput('nvidia-smi -L | wc -l'): "
            "a value computed when the script runs (a call kvplan does not make)") in out


def test_a_line_inside_brackets_or_a_string_is_python(tmp_path: Path) -> None:
    # `% name)` continuing a bracketed expression is Python's % operator: IPython looks for its
    # escapes at the start of a logical line only (EscapedCommand.find on tokens_by_line); kvplan
    # left the line out as a magic and read "'(' was never closed"
    code, out = _check(tmp_path, 'name = "x"\nmsg = ("hello %s"\n       % name)', START)
    assert code == 0, out
    assert NEWEST in out
    # a string open over lines, and a backslash after a comment (which continues nothing)
    code, out = _check(tmp_path, 'prompt = """Answer this:\n% of what?\n"""\nx = 1  # a \\\n'
                       '!pip install vllm==0.8.5', START)
    assert code == 0, out
    assert V085 in out
