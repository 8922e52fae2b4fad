"""A notebook's engine release (task h61pyleft): an exact pin in a `pip install` the notebook
runs (`!pip install vllm==0.6.3`, `%pip install "sglang[all]==0.4.1"`, a %%bash cell, the `!`
lines of a %%capture cell) is the release it plans with, read by the launchers' pip_pins
(kvplan.check.manifests.launcher_sites); an unpinned or ranged install, a comment, or a pin of
another engine keeps the note that the release is the one installed."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app

START = 'from vllm import LLM\nllm = LLM(model="Qwen/Qwen2.5-7B-Instruct", max_model_len=4096)'
INSTALLED = "the vllm release is the one installed, which the script does not name"


def _book(tmp_path: Path, *cells: str) -> Path:
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": c} for c in cells]}))
    return path


def _one(tmp_path: Path, *cells: str):  # noqa: ANN202
    [t] = read_targets(_book(tmp_path, *cells), {})
    return t


def test_a_pinned_install_is_the_release(tmp_path: Path) -> None:
    t = _one(tmp_path, "!pip install -q vllm==0.10.1.1", START)
    assert t.deployment.engine.version == "0.10.1.1"
    assert "code cell 1, its line 1 installs vllm==0.10.1.1: vllm 0.10.1.1" in t.notes
    assert not any(INSTALLED in n for n in t.notes)
    sgl = _one(tmp_path, '%%capture\n%pip install "sglang[all]==0.4.1"\nimport os',
               'import sglang as sgl\nengine = sgl.Engine(model_path="Qwen/Qwen2.5-7B-Instruct")')
    assert sgl.deployment.engine.version == "0.4.1"
    bash = _one(tmp_path, "%%bash\nset -e\npip install vllm==0.6.3", START)
    assert bash.deployment.engine.version == "0.6.3"


def test_unpinned_ranged_commented_or_another_engine_keeps_the_note(tmp_path: Path) -> None:
    for cells in (("!pip install -U vllm", START), ("# pip install vllm==0.6.3\n" + START,),
                  ("%pip install 'vllm>=0.6'", START)):
        t = _one(tmp_path, *cells)
        assert any(INSTALLED in n for n in t.notes), cells
        assert t.deployment.engine.version is None
    ranged = _one(tmp_path, "%pip install 'vllm>=0.6'", START)
    assert ("code cell 1, its line 1 installs vllm>=0.6: a range, not a release; the vllm "
            "profile's default version is used") in ranged.notes
    other = _one(tmp_path, "!pip install sglang==0.4.1", START)
    assert ("code cell 1, its line 1 installs sglang==0.4.1: not the engine LLM(...) runs, so "
            "not its release") in other.notes


def test_cli_plans_with_the_pinned_release(tmp_path: Path) -> None:
    path = _book(tmp_path, "!pip install vllm==0.6.3", START)
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0
    assert "(qwen2.5-7b, vllm 0.6.3)" in res.output


def test_python_cell_magics_are_read_as_code(tmp_path: Path) -> None:
    """%%capture, %%time and %%timeit run their body as Python (IPython's built-in cell magics):
    an engine constructed there is read, its line counted in its cell; %%writefile's body is a
    file's text, not run."""
    for magic in ("%%capture", "%%time", "%%timeit -n 1"):
        t = _one(tmp_path, "!pip install vllm==0.6.3", f"{magic}\n{START}")
        assert t.deployment.engine.version == "0.6.3", magic
        assert t.deployment.model == "qwen2.5-7b"
        assert t.deployment.engine.max_model_len == 4096
        assert any("code cell 2, its line 3" in n for n in t.notes), (magic, t.notes)
        assert not any("left out: its cell magic" in n for n in t.notes), magic
    path = _book(tmp_path, f"%%writefile serve.py\n{START}")
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 2
    # what a notebook needs is named (task h71left; was 'nothing that runs vLLM, SGLang or
    # TensorRT-LLM in this file')
    assert "ERROR line 1: no engine started in this file: kvplan reads a Python script or " \
        "notebook that constructs" in res.output


def test_a_later_pin_replaces_an_earlier_one(tmp_path: Path) -> None:
    """pip replaces what an earlier install put there: the last exact pin is the release, said
    with the one it replaces (task h62review: the second pin was passed over in silence and
    the notebook planned with the first)."""
    t = _one(tmp_path, "!pip install vllm==0.8.5\n!pip install vllm==0.10.1", START)
    assert t.deployment.engine.version == "0.10.1"
    assert ("code cell 1, its line 2 installs vllm==0.10.1 after vllm==0.8.5 (code cell 1, its "
            "line 1), which it replaces: vllm 0.10.1") in t.notes
    same = _one(tmp_path, "!pip install vllm==0.8.5 && pip install vllm==0.8.5", START)
    assert same.deployment.engine.version == "0.8.5"
    assert "code cell 1, its line 1 installs vllm==0.8.5: vllm 0.8.5" in same.notes
