"""A --context-sample or --prices CSV with a field past the csv module's 131,072 characters
(task freshuser: a YAML of one 200,000-character line given as a sample) was `_csv.Error`,
"internal error", exit 3. Now it is one line naming the file and line, exit 2; a real trace
still reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.errors import InputError
from kvplan.traffic.trace_formats import read_lengths
from tests.conftest import ROOT, invoke

RUNNER = CliRunner()
AZURE = ROOT / "tests" / "assets" / "traffic" / "azure-llm-2023-conv-rows2001-3000.csv"


def test_a_csv_field_past_the_csv_limit_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "lengths.csv"
    path.write_text("input_tokens\n" + "1" * 200_000 + "\n")
    result = invoke(RUNNER, "fleet", "llama-3-8b", "-n", "10", "--context-sample", str(path))
    assert result.exit_code == 2, result.output
    assert result.output.endswith(  # the middle of a long line is shortened on a terminal
        ": not a CSV kvplan reads (field larger than field limit (131072)); give a CSV, JSON or "
        "JSONL file of request lengths\n")
    assert len(result.output.splitlines()) == 1
    with pytest.raises(InputError) as err:
        read_lengths(path)
    assert str(err.value) == (f"{path}: line 2: not a CSV kvplan reads (field larger than field "
                              "limit (131072)); give a CSV, JSON or JSONL file of request lengths")




def test_a_real_csv_trace_still_reads() -> None:
    """The CSV guard leaves real traces alone: the stored Azure rows plan as before."""
    result = invoke(RUNNER, "fleet", "llama-3-8b", "-n", "10", "--context-sample", str(AZURE),
                    "-f", "csv")
    assert result.exit_code == 0, result.output


def test_a_prices_csv_field_past_the_limit_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("gpu,price_per_hour_usd\nh100," + "1" * 200_000 + "\n")
    result = invoke(RUNNER, "fleet", "llama-3-8b", "-n", "10", "--prices", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"error: {path}: line 2: not a CSV kvplan reads (field larger than "
                             "field limit (131072)); give columns gpu,price_per_hour_usd\n")
