"""Inputs that used to be accepted silently: each is now refused in one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import invoke


def _one_error(result) -> str:  # noqa: ANN001 - typer's Result
    lines = [ln for ln in result.output.splitlines() if ln.startswith(("error", "Error"))]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_a_price_for_a_gpu_the_catalog_lacks_is_refused(runner, tmp_path: Path) -> None:  # noqa: ANN001
    prices = tmp_path / "prices.yaml"
    prices.write_text("h100: 2.5\nh10x: 3\n")
    result = invoke(runner, "fleet", "llama-3-8b", "-n", "100", "--prices", str(prices))
    assert result.exit_code == 2
    assert "unknown GPU 'h10x'" in _one_error(result)


def test_a_non_finite_price_is_refused(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "fleet", "llama-3-8b", "-n", "100", "--price-per-hour", "nan")
    assert result.exit_code == 2
    assert "positive, finite" in _one_error(result)


def test_search_refuses_gpu_it_would_ignore(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "fleet", "llama-3-8b", "-n", "100", "--search", "--gpu", "h200")
    assert result.exit_code == 2
    assert "--search-gpus" in result.output


@pytest.mark.parametrize(("directive", "message"), [
    ("tp=abc", "must be a positive whole number"),
    ("tp=0", "must be a positive whole number"),
    ("gpu=nosuch", "unknown GPU 'nosuch'"),
    ("mem_fraction_static=1.5", "must be a number in (0, 1]"),
    ("tensor=2", "unknown key"),
])
def test_bad_calibrate_directives_are_refused(runner, tmp_path: Path, directive: str,  # noqa: ANN001
                                              message: str) -> None:
    log = tmp_path / "run.log"
    log.write_text(f"# kvplan: {directive}\nINFO 05-01 12:00:00 # GPU blocks: 100\n")
    result = invoke(runner, "calibrate", str(log))
    assert result.exit_code == 2
    line = _one_error(result)
    assert f"{log}:1: kvplan directive '{directive}'" in line and message in line


def test_a_file_that_is_not_a_start_up_log_is_refused_and_the_others_reported(
    runner, tmp_path: Path  # noqa: ANN001
) -> None:
    other = tmp_path / "notes.log"
    other.write_text("hello world\n")
    real = next(Path("tests/assets/logs").glob("01-*.log"))
    result = invoke(runner, "calibrate", str(other), str(real))
    assert result.exit_code == 2
    assert "no start-up numbers of vLLM, SGLang or TensorRT-LLM found" in _one_error(result)
    assert real.name[:2] in result.stdout  # the readable log is still reported
