"""An integer past Python's 4,300-digit limit (task freshuser): yaml's int() raised ValueError
in check's script sniffing (kvplan.check.manifests.shell.is_script, which every size, fleet and
explain of a file runs) and in KAITO's ConfigMap reader, so `kvplan size config.json` with a
5,000-digit num_hidden_layers was "internal error", exit 3. Now the YAML/JSON reader refuses it
in one line, exit 2, and a ConfigMap's value is an ERROR line of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.kaito_files import configmap, workspace
from tests.conftest import ROOT, invoke

RUNNER = CliRunner()
LLAMA = ROOT / "tests" / "assets" / "hf_configs" / "llama-3-8b.json"  # the official config
DIGITS = "9" * 5000


def _config_with_huge_layers(tmp_path: Path) -> Path:
    """Llama-3-8B's own config.json with num_hidden_layers written as a 5,000-digit number."""
    text = LLAMA.read_text(encoding="utf-8")
    assert '"num_hidden_layers": 32' in text
    path = tmp_path / "config.json"
    path.write_text(text.replace('"num_hidden_layers": 32', f'"num_hidden_layers": {DIGITS}'))
    return path


@pytest.mark.parametrize("command", [("size",), ("fleet", "-n", "5"), ("explain",)])
def test_a_5000_digit_integer_in_a_config_is_one_line(tmp_path: Path,
                                                      command: tuple[str, ...]) -> None:
    path = _config_with_huge_layers(tmp_path)
    result = invoke(RUNNER, command[0], str(path), *command[1:])
    assert result.exit_code == 2, result.output
    assert result.output == (f"error: command line: model: {path}: a number with 5000 digits; "
                             "no count kvplan reads has more than 40\n")


def test_check_reads_the_huge_integer_as_json_not_as_a_script(tmp_path: Path) -> None:
    path = _config_with_huge_layers(tmp_path)
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[1] == (
        "ERROR line 14: a number with 5000 digits; no count kvplan reads has more than 40")


def test_a_kaito_configmap_with_a_5000_digit_value_is_an_error_line(tmp_path: Path) -> None:
    path = workspace(tmp_path, "phi-4", '"Standard_NC24ads_A100_v4"',
                     "  config: cfg\n---\n" + configmap("cfg", f"max-model-len: {DIGITS}"))
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[1] == (
        "ERROR line 10: inference.config: ConfigMap cfg's inference_config.yaml holds a number "
        "of more than 4,300 digits; no value vLLM reads is that long")
