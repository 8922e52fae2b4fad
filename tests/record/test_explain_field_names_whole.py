"""`explain`'s record table keeps each field name on one line, whatever the values' width.

Found by task h90review: `kvplan explain Qwen/Qwen3-235B-A22B-FP8 --gpu h200 --tp 4 --engine vllm`
at 80 columns squeezed the field column to 25 characters, so the reader met
"hardware.bandwidth_effici" / "ency" and "engine.enable_prefix_cach" / "ing" split over two
lines: the name a user copies into a kvplan/v1 file was broken in the middle."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app

ARGS = ["explain", "Qwen/Qwen3-235B-A22B-FP8", "--gpu", "h200", "--tp", "4", "--engine", "vllm",
        "--context", "32K", "--avg-context", "4000", "--kv-dtype", "fp8"]


def test_every_field_name_is_whole_on_its_line():
    runner = CliRunner()
    doc = runner.invoke(app, [*ARGS, "-f", "json"])
    assert doc.exit_code == 0, doc.output
    fields = [f["field"] for f in json.loads(doc.stdout)["results"][0]["record"]]
    assert "hardware.bandwidth_efficiency" in fields and "engine.enable_prefix_caching" in fields
    res = runner.invoke(app, ARGS)
    assert res.exit_code == 0, res.output
    table = res.stdout.split("\n\n")[1].splitlines()  # after the title, before the steps
    assert table[0].split() == ["field", "value", "from"]
    rows = [line.split() for line in table[2:] if not line.startswith(" " * 4)]
    assert [row[0] for row in rows] == fields
    assert rows[1][:2] == ["name", "Qwen/Qwen3-235B-A22B-FP8"]  # a model id stays whole too
    assert all(len(line) <= 80 for line in table)
