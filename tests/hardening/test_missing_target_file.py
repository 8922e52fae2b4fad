"""A target named as a file that is not there (task freshuser): `kvplan fleet
examples/support-chatbot.yaml` run outside a checkout, as README's tour shows it, said "no such
file" and then asked for the traffic the file would have given ("command line: traffic (...):
give peak_concurrent_users"). Now the missing file is the whole refusal, as for size."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import invoke

RUNNER = CliRunner()


@pytest.mark.parametrize("args", [("fleet", "examples/nope.yaml"),
                                  ("fleet", "examples/nope.yaml", "-n", "5"),
                                  ("size", "nope/config.json")])
def test_a_missing_file_is_refused_as_a_file_alone(tmp_path: Path, args: tuple[str, ...],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # as from /tmp, outside a checkout
    result = invoke(RUNNER, *args)
    assert result.exit_code == 2, result.output
    assert result.output == f"error: command line: model: {args[1]}: no such file\n"
