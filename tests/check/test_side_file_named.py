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
