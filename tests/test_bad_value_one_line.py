"""A value typer's parser refuses is kvplan's one `error:` line and exit 2 (task h45cli): the
README's exit-code table promises one line on standard error, not click's four-line
Usage/Try/Error block. A missing argument keeps the usage banner (it shows what to type)."""

from __future__ import annotations

import pytest

from tests.conftest import invoke

CASES = [
    # an option's callback (kvplan.cli.values / options): the long flag, then the callback's words
    (["size", "llama-3.1-8b", "--memory-utilization", "1.5"],
     "error: --memory-utilization: must be in (0, 1], got 1.5 (0.9 means 90%)\n"),
    (["size", "llama-3.1-8b", "--reserve-gib", "-1"],
     "error: --reserve-gib: must not be negative, got -1\n"),
    (["size", "llama-3.1-8b", "-c", "0"], "error: --context: must be positive, got 0\n"),
    # a short flag is named by its long form: -g is --gpu
    (["size", "llama-3.1-8b", "-g", ","], "error: --gpu: no value given\n"),
    (["plot", "risk", "llama-3.1-8b", "--risk", "2"],
     "error: --risk: must be between 0 and 1, got 2\n"),
    # typer's own type conversion and a hint given with quotes ('--kv-budget-gib')
    (["check", "examples/support-chatbot.yaml", "--format", "xml"],
     "error: --format: 'xml' is not one of text, json, junit, github\n"),
    (["size", "llama-3.1-8b", "--kv-budget-gib", "nan"],
     "error: --kv-budget-gib: must be a finite number, got nan\n"),
    # raised in a command's body (cli_errors), with and without a parameter hint
    (["fleet", "llama-3.1-8b", "--search-gpus", "h100"],
     "error: --search-gpus: applies only with --search\n"),
    (["fleet", "llama-3.1-8b", "--top", "3"], "error: --top: applies only with --search\n"),
    (["size", "llama-3.1-8b", "--tolerance", "0.1"],
     "error: --tolerance applies only with --measure\n"),
]


@pytest.mark.parametrize(("argv", "line"), CASES,
                         ids=[" ".join(c[0][:1] + c[0][2:4]) for c in CASES])
def test_a_refused_value_is_one_error_line(runner, argv: list[str], line: str) -> None:
    result = invoke(runner, *argv)
    assert result.exit_code == 2
    assert result.output == line


def test_a_missing_argument_keeps_the_usage_banner(runner) -> None:
    """Not a bad value: nothing was given, and the usage line says what to give."""
    result = invoke(runner, "size")
    assert result.exit_code == 2
    assert result.output.startswith("Usage: kvplan size [OPTIONS] MODEL_OR_FILE\n")
    assert "Missing argument 'MODEL_OR_FILE'" in result.output
