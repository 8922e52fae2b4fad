"""`--context-sample` says what it does not use (task srefirst): the columns or keys a
request-length file holds besides the lengths, the requests left out (0 tokens) or read as their
prompt alone (an empty output cell), and the requests longer than max_model_len, planned at it.
Until then each was silent: the Azure trace's TIMESTAMP, Mooncake's timestamp and hash_ids,
and 103 of Mooncake's 200 synthetic requests past Llama-3-8B's 8,192 tokens (said only in the
JSON's `assumptions`). The notes go to stderr; the plan does not move."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app
from tests.conftest import ASSETS

TRACES = ASSETS / "check" / "qa" / "traces"
FLEET = ["fleet", "llama-3-8b", "-n", "100", "--context", "8192", "--context-sample"]


def _fleet(path: Path, *more: str) -> tuple[list[str], str]:
    res = CliRunner().invoke(app, [*FLEET, str(path), *more])
    assert res.exit_code == 0, res.output
    return res.stderr.splitlines(), res.stdout


def test_the_columns_not_read_are_named() -> None:
    notes, _ = _fleet(TRACES / "azure-llm-2023-conv-first400.csv")
    assert notes == ["note: command line: traffic.context_tokens.sample "
                     "azure-llm-2023-conv-first400.csv: not read: TIMESTAMP (only each "
                     "request's length moves the plan; the load is the peak of users, or the "
                     "arrival rate and duration)"]
    notes, _ = _fleet(TRACES / "splitwise-sim-test-trace.csv")
    assert "not read: request_id, request_type, application_id, arrival_timestamp, batch_size " \
        in notes[0]


def test_requests_past_the_context_are_counted() -> None:
    path = TRACES / "mooncake-synthetic-first200.jsonl"
    notes, out = _fleet(path, "-f", "json")
    assert "not read: timestamp, hash_ids" in notes[0]
    # counted apart from kvplan: input_length + output_length above 8,192 tokens
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    longer = sum(r["input_length"] + r["output_length"] > 8192 for r in rows)
    assert (longer, len(rows)) == (103, 200)
    assert notes[1] == ("note: command line: traffic.context_tokens.sample "
                        "mooncake-synthetic-first200.jsonl: 103 of 200 requests (51.5%) are "
                        "longer than max_model_len 8,192: planned at 8,192 tokens; raise the "
                        "context (--context, engine.max_model_len) if they must be served whole")
    assert json.loads(out)["results"][0]["context_share_above_max"] == 0.515


def test_zero_and_empty_output_rows_are_counted(tmp_path: Path) -> None:
    path = tmp_path / "gaps.csv"
    path.write_text("timestamp,prompt_tokens,output_tokens\n"
                    "2024-01-01T00:00:00+02:00,100,50\n2024-01-01T00:00:00+02:00,100,50\n"
                    "2024-01-01T05:00:00Z,200,\n,0,0\n")
    notes, out = _fleet(path, "-f", "json")
    assert notes[1:] == [
        "note: command line: traffic.context_tokens.sample gaps.csv: 1 of 4 requests have no "
        "output_tokens value: read as their prompt alone",
        "note: command line: traffic.context_tokens.sample gaps.csv: 1 of 4 requests hold 0 "
        "tokens and are left out (no prompt and no output: no cache)"]
    # the three requests kept: 150, 150 and 200 tokens, mean 166.67
    assert json.loads(out)["results"][0]["context_mean_tokens"] == 166.7


def test_a_file_of_lengths_alone_says_nothing(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv"
    path.write_text("prompt_tokens,output_tokens\n100,50\n300,20\n")
    notes, _ = _fleet(path)
    assert notes == []
