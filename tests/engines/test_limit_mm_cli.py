"""--limit-mm-per-prompt on the command line takes vLLM's own spellings (a count,
`image=2,video=1`, a JSON object of counts or of {"count": n}) and sums them, as `kvplan check`
does in a manifest; anything else is refused naming the forms, exit 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

BASE = ("qwen2.5-vl-7b", "--gpu", "a100-80gb", "--engine", "vllm", "-f", "json")


def _record_value(spelling: str) -> object:
    res = CliRunner().invoke(app, ["explain", *BASE, "--limit-mm-per-prompt", spelling])
    assert res.exit_code == 0, res.output
    [result] = json.loads(res.stdout)["results"]
    [row] = [r for r in result["record"] if r["field"] == "engine.limit_mm_per_prompt"]
    assert row["from"] == "--limit-mm-per-prompt"
    return row["value"]


@pytest.mark.parametrize(("spelling", "items"), [
    ("2", 2), ("0", 0), ("image=2,video=1", 3), ("image=4", 4),
    ('{"image": 2, "video": 1}', 3), ('{"image": {"count": 2, "width": 512}}', 2), ("{}", 0),
])
def test_vllm_spellings_are_summed(spelling: str, items: int) -> None:
    assert _record_value(spelling) == items


def test_the_sum_moves_the_pool_like_the_count() -> None:
    def pool(spelling: str) -> int:
        res = CliRunner().invoke(app, ["size", *BASE, "--limit-mm-per-prompt", spelling])
        assert res.exit_code == 0, res.output
        return int(json.loads(res.stdout)["results"][0]["kv_cache_bytes"])

    assert pool("image=2,video=1") == pool("3")
    assert pool("0") != pool("3")


@pytest.mark.parametrize("spelling", ["image=x", "[1]", '{"image": true}', "-1", "two"])
def test_other_values_are_refused_with_the_forms(spelling: str) -> None:
    res = CliRunner().invoke(app, ["size", *BASE, "--limit-mm-per-prompt", spelling])
    assert res.exit_code == 2
    assert "--limit-mm-per-prompt" in res.output
    assert "Traceback" not in res.output
    if spelling != "-1":
        assert "image=2,video=1" in res.output
