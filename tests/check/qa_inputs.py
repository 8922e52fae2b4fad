"""What the QA tests of public inputs share (tests/check/test_qa_inputs.py, test_qa_inputs_k8s.py,
test_qa_inputs_scripts.py): the folder of files people wrote, tests/assets/check/qa/, and
`kvplan check` of one of them as text (each verdict line with its file) or JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tests.check.no_ci import flat
from tests.conftest import ASSETS, invoke

QA = ASSETS / "check" / "qa"


def check(runner: CliRunner, name: str, *args: str) -> tuple[int, str]:
    result = invoke(runner, "check", str(QA / name), *args)
    return result.exit_code, flat(result).output


def check_json(runner: CliRunner, name: str, *args: str) -> dict:
    result = invoke(runner, "check", str(QA / name), "-f", "json", *args)
    return json.loads(result.output)
