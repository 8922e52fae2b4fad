"""Files kvplan writes (-o, --save) get the mode a new file gets (0o666 less the umask), or
keep an existing file's mode (task freshuser): they were written by mkstemp and renamed into
place, so every one was 0o600, readable by its owner alone. A --save to a folder named --output."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()


def test_output_files_get_the_umask_mode_and_keep_their_own(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        new, saved, kept = tmp_path / "plan.json", tmp_path / "plan.yaml", tmp_path / "kept.csv"
        assert invoke(RUNNER, "size", "llama-3-8b", "-f", "json", "-o", str(new)).exit_code == 0
        assert invoke(RUNNER, "fleet", "llama-3-8b", "-n", "10", "--save", str(saved)).exit_code == 0
        kept.write_text("old")
        kept.chmod(0o640)
        assert invoke(RUNNER, "size", "llama-3-8b", "-f", "csv", "-o", str(kept)).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    assert stat.S_IMODE(saved.stat().st_mode) == 0o644
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert json.loads(new.read_text())["results"][0]["kv_bytes_per_token"] == 131_072
    assert kept.read_text().startswith("model,")


def test_save_to_a_folder_names_save(tmp_path: Path) -> None:
    result = invoke(RUNNER, "fleet", "llama-3-8b", "-n", "10", "--save", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == (
        f"error: {tmp_path}: is a folder; give a file name for --save")
