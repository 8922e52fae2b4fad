"""`--context-sample` refuses a file whose columns give a request two lengths, or more fields
than its header (task srefirst). Before, each was read in silence into a wrong plan:
`tokens\\n1,000` read the request as 1 token (the csv module put `000` in an unnamed extra field,
which was dropped); `Tokens,tokens` kept the last column; a `tokens` total beside a
`prompt_tokens` + `output_tokens` pair that disagreed with it kept the total and dropped the
pair. Columns that agree are read as one, so BurstGPT's Request/Response/Total tokens
(total = request + response, its README's schema) still read."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.errors import InputError
from kvplan.traffic.trace_formats import read_lengths


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(("name", "text", "said"), [
    ("comma.csv", "tokens\n100\n1,000\n",
     "line 3: 2 fields where the header names 1 (the extra: 000); a value with a comma (1,000) "
     "is two fields: write 1000, or quote it"),
    ("twice.csv", "Tokens,tokens\n100,200\n",
     "line 1: columns 'Tokens' and 'tokens' are both read as `tokens`; keep one, or rename the "
     "other"),
    ("spaced.csv", "Prompt tokens,prompt_tokens,output_tokens\n1,1,2\n",
     "line 1: columns 'Prompt tokens' and 'prompt_tokens' are both read as `prompt_tokens`"),
    ("total.csv", "tokens,prompt_tokens,output_tokens\n100,5000,6000\n",
     "line 2: tokens 100 is not prompt_tokens + output_tokens (11,000); keep the total or the "
     "pair"),
    ("two-totals.jsonl", '{"tokens": 5}\n{"tokens": 10, "total_tokens": 12}\n',
     "line 2: two total lengths for one request (tokens 10, total_tokens 12); keep the column "
     "you mean"),
    ("two-prompts.json", '[{"prompt_tokens": 10, "input_length": 11, "output_tokens": 1}]',
     "entry 1: two prompt lengths for one request (prompt_tokens 10, input_length 11)"),
])
def test_refused_with_the_row_and_what_to_do(tmp_path: Path, name: str, text: str,
                                             said: str) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        read_lengths(path)
    assert str(err.value).startswith(f"{path}: ")
    assert said in str(err.value)


def test_columns_that_agree_are_read(tmp_path: Path) -> None:
    # BurstGPT's published headers: total = request + response on every row
    burst = _write(tmp_path, "burst.csv", "Timestamp,Model,Request tokens,Response tokens,"
                   "Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n"
                   "45,ChatGPT,1087,0,1087,Conversation log\n")
    assert read_lengths(burst) == [490, 1087]
    same = _write(tmp_path, "same.jsonl", '{"tokens": 7, "context_tokens": 7}\n')
    assert read_lengths(same) == [7]
    quoted = _write(tmp_path, "quoted.csv", 'tokens\n"1000"\n')
    assert read_lengths(quoted) == [1000]


def test_through_fleet_one_line_exit_2(tmp_path: Path) -> None:
    path = _write(tmp_path, "comma.csv", "tokens\n100\n1,000\n")
    res = CliRunner().invoke(app, ["fleet", "llama-3-8b", "-n", "100", "--context", "8192",
                                   "--context-sample", str(path)])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert res.stderr.count("\n") == 1 and "line 3: 2 fields where the header names 1" in \
        res.stderr
