"""A launch script's arithmetic expansion `$(( ... ))` kvplan does not evaluate is named as
arithmetic, with the reason, in one ERROR line (task h80shell): `$((9**9**9))` was called "a
command substitution kvplan does not run", and the option it fed was refused a second time as
"is not a number". Integer arithmetic kvplan reads is evaluated where the value matters."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.check.manifests.shell_arith import why_not
from tests.conftest import invoke

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len {}\n"


@pytest.mark.parametrize(("word", "env", "reason"), [
    ("$((9**9**9))", {}, "a power of a power (a `**` tower)"),  # 9^(9^9): 369 million digits
    ("$(( (10**64)**64 ))", {}, "a power of a power (a `**` tower)"),
    ("$((2**70))", {}, "2**70, past bash's signed 64-bit integers, where bash wraps around"),
    ("$((4611686018427387904*2))", {},  # 2^62 x 2 = 2^63, one past bash's largest
     "a value past bash's signed 64-bit integers (-9,223,372,036,854,775,808 to "
     "9,223,372,036,854,775,807), where bash wraps around"),
    ("$((k*1024))", {}, "k, which the script does not set"),
    ("$((k*1024))", {"k": "abc"}, "k is 'abc', not an integer kvplan reads"),
    ("$((4/0))", {}, "a division by 0, which bash refuses"),
    ("$((1<2))", {}, "not the integer arithmetic kvplan reads (integers, + - * / % ** and "
                     "parentheses)"),
    ("$((8*1024))", {}, None),  # read: 8,192
    ("$((2**62))", {}, None),   # one power, inside 64 bits: read
])
def test_why_an_arithmetic_expansion_is_not_evaluated(word: str, env: dict[str, str],
                                                      reason: str | None) -> None:
    assert why_not(word, env) == reason


def _script(tmp_path: Path, value: str, name: str = "serve.sh") -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/bash\n" + SERVE.format(value))
    return path


@pytest.mark.parametrize(("value", "reason"), [
    ("$((9**9**9))", "a power of a power (a `**` tower)"),
    ("$((2**70))", "2**70, past bash's signed 64-bit integers, where bash wraps around"),
])
def test_an_arithmetic_kvplan_does_not_evaluate_is_one_error_naming_it(
        tmp_path: Path, runner: CliRunner, value: str, reason: str) -> None:
    result = invoke(runner, "check", str(_script(tmp_path, value)), "--gpu", "h100")
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("ERROR")]
    assert errors == [f"ERROR line 2: {value!r}: an arithmetic expansion kvplan does not "
                      f"evaluate: {reason}; write the value in the script"]
    assert "command substitution" not in result.output


def test_a_command_substitution_is_still_said_as_one(tmp_path: Path) -> None:
    [outcome] = check_paths([str(_script(tmp_path, "$(cat len)"))], default_gpu="h100").outcomes
    assert outcome.verdict == "ERROR"
    assert outcome.problems[0].message.startswith(
        "'$(cat len)': a command substitution kvplan does not run")


def test_a_context_written_as_arithmetic_is_the_context_written_out(tmp_path: Path) -> None:
    """`--max-model-len $((8*1024))` plans what `--max-model-len 8192` plans: on an H100 with
    vLLM's default release, Llama-3.1-8B's pool of 489,376 tokens holds 59 sequences of 8,192
    (489,376 / 8,192 = 59.7)."""
    [arith] = check_paths([str(_script(tmp_path, "$((8*1024))"))], default_gpu="h100").outcomes
    [plain] = check_paths([str(_script(tmp_path, "8192", "plain.sh"))],
                          default_gpu="h100").outcomes
    assert arith.verdict == plain.verdict == "PASS"
    assert "59 sequences of 8,192 tokens per replica (489,376 tokens in the pool)" in \
        (arith.summary or "")
    assert arith.summary.replace("serve.sh", "plain.sh") == plain.summary
