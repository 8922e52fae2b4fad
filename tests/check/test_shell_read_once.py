"""kvplan.check.manifests.shell.targets reads a script once (task h80shell): it read it in
sites() for the server starts and again in _pins() for the `pip install` pins. The pins are now
read from the same reading, with the same results: `kvplan check --format json` of each of the
663 files under tests/assets/check was byte-identical before and after (the commit says so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kvplan.check.manifests import shell, shell_lex

SCRIPT = """#!/bin/bash
VLLM_VERSION=0.8.5
pip install vllm==${VLLM_VERSION}
vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192
"""


def test_a_script_is_read_once_and_its_pin_still_read(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = shell_lex.read_script

    def counted(text: str, given: Any = None, first_line: int = 1) -> Any:
        calls.append(text)
        return real(text, given, first_line)

    monkeypatch.setattr(shell_lex, "read_script", counted)
    monkeypatch.setattr(shell, "read_script", counted)
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT)
    [target] = shell.targets(path, SCRIPT, {}, "h100")
    assert len(calls) == 1
    # the pin through a variable set in the script, read as before (test_script_pip_pins.py)
    assert any(n.startswith("line 3 installs vllm==0.8.5") for n in target.notes), target.notes


def test_a_script_too_large_is_refused_once_with_no_pins(tmp_path: Path) -> None:
    path = tmp_path / "big.sh"
    text = "#!/bin/bash\n" + "# pad\n" * (shell_lex.MAX_SCRIPT_BYTES // 6)
    [target] = shell.targets(path, text, {}, "h100")
    assert target.problems[0].message.endswith(
        "kvplan reads in a launch script (docs/limits.md); describe the deployment in a "
        "kvplan/v1 file")
    assert target.notes == []
