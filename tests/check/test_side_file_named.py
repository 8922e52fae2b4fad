"""A side file named on the command line (a shell glob names it beside its script) is read with
the script it sits beside, not as a document of its own (kvplan.check.discover)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

SCRIPT = "#!/bin/sh\nvllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192\n"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    script = tmp_path / "serve.sh"
    script.write_text(SCRIPT)
    side = tmp_path / "serve.kvplan.yaml"
    side.write_text("gpu: h100\n")
    return script, side


def test_both_named_reads_the_side_file_with_its_script(tmp_path: Path) -> None:
    script, side = _pair(tmp_path)
    res = CliRunner().invoke(app, ["check", str(script), str(side)])
    assert res.exit_code == 0, res.output
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL" in res.output
    assert "(489,616 tokens in the pool)" in res.output  # the side file's gpu: h100 applied
    assert "a side file" not in res.output


def test_side_file_alone_names_the_file_to_check(tmp_path: Path) -> None:
    script, side = _pair(tmp_path)
    res = CliRunner().invoke(app, ["check", str(side)])
    assert res.exit_code == 2
    assert (f"a side file: kvplan reads it with serve.sh, the file beside it, which gives the "
            f"deployment; check {script} (or its folder)") in " ".join(res.output.split())


def test_a_kvplan_file_with_nothing_beside_it_is_read_as_itself(tmp_path: Path) -> None:
    lone = tmp_path / "plan.kvplan.yaml"
    lone.write_text("gpu: h100\n")
    res = CliRunner().invoke(app, ["check", str(lone)])
    assert "a side file" not in res.output


PY = ('from vllm import LLM\nLLM(model="meta-llama/Meta-Llama-3-8B-Instruct", '
      'max_model_len=8192)\n')


def test_a_python_scripts_side_file_named_with_it(tmp_path: Path) -> None:
    # run.py reads run.kvplan.yaml (its gpu: h100 gives 489,616 tokens, as serve.sh's does
    # above), so `kvplan check run*` (run.py and run.kvplan.yaml) reads it with the script; it
    # gave the side file its own ERROR 'no kvplan/v1 deployment and nothing that runs vLLM'
    script = tmp_path / "run.py"
    script.write_text(PY)
    (tmp_path / "run.kvplan.yaml").write_text("gpu: h100\n")
    res = CliRunner().invoke(app, ["check", str(script), str(tmp_path / "run.kvplan.yaml")])
    assert res.exit_code == 0, res.output
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR" in res.output
    assert "(489,616 tokens in the pool)" in res.output
    # a folder walk leaves it out as a side file, not as a YAML file without a deployment
    res = CliRunner().invoke(app, ["check", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR\n" in res.output


def test_a_notebooks_side_file_named_with_it(tmp_path: Path) -> None:
    import json

    book = tmp_path / "serve.ipynb"
    book.write_text(json.dumps({"cells": [{"cell_type": "code", "source": PY}]}))
    side = tmp_path / "serve.kvplan.yaml"
    side.write_text("gpu: h100\n")
    res = CliRunner().invoke(app, ["check", str(book), str(side)])
    assert res.exit_code == 0, res.output
    assert "(489,616 tokens in the pool)" in res.output
    res = CliRunner().invoke(app, ["check", str(side)])
    assert res.exit_code == 2
    assert (f"a side file: kvplan reads it with serve.ipynb, the file beside it, which gives the "
            f"deployment; check {book} (or its folder)") in " ".join(res.output.split())


def test_the_full_name_yml_spelling_is_read(tmp_path: Path) -> None:
    # serve.sh.kvplan.yml was a side file to a glob (left out) but side_file_for never
    # read it: its gpu: h100 was dropped without a word ('no GPU named ... a side file
    # serve.kvplan.yaml'), and the glob serve* checked serve.sh on no GPU
    script = tmp_path / "serve.sh"
    script.write_text(SCRIPT)
    (tmp_path / "serve.sh.kvplan.yml").write_text("gpu: h100\n")
    for paths in ([str(script)], [str(tmp_path / "*")]):
        res = CliRunner().invoke(app, ["check", *paths])
        assert res.exit_code == 0, res.output
        assert "(489,616 tokens in the pool)" in res.output


def test_a_side_file_beside_two_files_is_left_to_the_one_named(tmp_path: Path) -> None:
    # serve.kvplan.yaml sits beside serve.sh and serve.yaml (a ConfigMap here): both read it,
    # but the side file named with serve.sh got 'ERROR ... a side file: kvplan reads it with
    # serve.yaml ...; check serve.yaml', though serve.sh, named, had read it
    script, side = _pair(tmp_path)
    (tmp_path / "serve.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                         "  name: serve\n")
    res = CliRunner().invoke(app, ["check", str(script), str(side)])
    assert res.exit_code == 0, res.output
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR" in res.output
    assert "(489,616 tokens in the pool)" in res.output


def test_a_plan_beside_python_that_runs_no_engine_is_read_as_itself(tmp_path: Path) -> None:
    # a .py or .ipynb beside it makes a .kvplan.yaml a side file only when it starts an engine
    # (python_script.starts_engine, as a folder walk reads Python): a kvplan/v1 plan beside a
    # client script is the deployment itself, checked in a folder walk, not dropped
    (tmp_path / "client.py").write_text("import requests\nrequests.get('http://x:8000/health')\n")
    (tmp_path / "client.kvplan.yaml").write_text(
        "apiVersion: kvplan/v1\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: 1\n"
        "engine:\n  max_model_len: 8192\n")
    res = CliRunner().invoke(app, ["check", str(tmp_path)])
    assert "1 checked in 1 file(s)" in res.output, res.output
    assert "client.kvplan.yaml" in res.output
