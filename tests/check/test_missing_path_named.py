"""A path named on `kvplan check`'s command line that names nothing is named in its ERROR line
(task uxfix): the text format said `ERROR file: no such file or folder` under the path's
heading, which read as if some other file were missing."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app


def test_a_missing_path_and_an_empty_glob_are_named(tmp_path: Path
) -> None:
    (tmp_path / "ok.txt").write_text("x\\n", encoding="utf-8")
    missing = tmp_path / "deploy" / "vllm.yaml"
    glob = str(tmp_path / "*.yaml")
    res = CliRunner().invoke(app, ["check", str(missing), glob])
    assert res.exit_code == 2, res.output
    lines = res.output.splitlines()
    assert f"ERROR {missing}: no such file or folder" in lines
    assert f"ERROR {glob}: no file matches" in lines
    assert not any(line.startswith("ERROR file:") for line in lines)
    assert lines[-1] == "2 checked in 2 file(s): 0 PASS, 0 FAIL, 2 ERROR"
