"""A negative token count in a request-length file says what to do, as every refusal does.

Found by task h90review ("a trace with negative counts"): `kvplan fleet llama-3-8b -n 100
--context-sample neg.csv` with a row `100,-5` under `prompt_tokens,output_tokens` answered
"...neg.csv: line 2: output_tokens: must not be negative, got -5": the file, the line and the
field, but not the way out (docs/errors.md: `error: <file>: <where>: <what was wrong>; <what to
do>`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

TAIL = "; a request holds 0 tokens or more: correct the value or drop the row"


@pytest.mark.parametrize("name, text, said", [
    ("neg.csv", "prompt_tokens,output_tokens\n100,-5\n200,30\n",
     "neg.csv: line 2: output_tokens: must not be negative, got -5"),
    ("neg.jsonl", '{"tokens": 5}\n{"tokens": -4}\n',
     "neg.jsonl: line 2: tokens: must not be negative, got -4"),
])
def test_negative_count_says_what_to_do(tmp_path: Path, name: str, text: str, said: str):
    path = tmp_path / name
    path.write_text(text)
    res = CliRunner().invoke(app, ["fleet", "llama-3-8b", "-n", "100", "--context-sample",
                                   str(path)])
    assert res.exit_code == 2, res.output
    [line] = res.stderr.splitlines()
    assert line.endswith(f"{tmp_path}/{said}{TAIL}")
