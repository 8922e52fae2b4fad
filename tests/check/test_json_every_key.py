"""`kvplan check -f json`: every result carries every key, in one order, whatever its verdict
(task srefirst). Until then an ERROR (a missing file, an unknown GPU) and a FAIL before any
arithmetic left out the fourteen figures and `traffic_basis`, and only an ERROR had `refused`:
a CI script reading `r["users_held"]` over the results raised KeyError on the first ERROR,
although docs/check.md says "`null` where a figure does not apply"."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.check_cli_run import INVALID, KV
from tests.conftest import invoke

ROOT = Path(__file__).resolve().parents[2]
KEYS = [
    "file", "line", "name", "kind", "verdict", "model", "gpu", "engine", "engine_version",
    "server", "summary", "users_held", "users_required", "would_start", "replicas", "gpus",
    "gpus_per_replica", "users_per_replica", "kv_users_per_replica", "limited_by",
    "kv_pool_bytes_per_gpu", "max_sequence_bytes_per_gpu", "max_model_len_tokens",
    "longest_context_that_fits_tokens", "idle_gpus", "reasons", "traffic_basis", "fixes",
    "errors", "refused", "notes",
]


def test_every_verdict_has_every_key_in_one_order(runner: CliRunner, tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = invoke(runner, "check", str(KV / "pass.yaml"), str(KV / "fail-capacity.yaml"),
                    str(INVALID / "unknown-gpu.yaml"), str(missing),
                    str(ROOT / "examples" / "manifests" / "qwen3-14b-tp5-job.yaml"), "-f", "json")
    assert result.exit_code == 2, result.output
    rows = json.loads(result.stdout)["results"]
    by_verdict: dict[str, list[dict]] = {}
    for row in rows:
        assert list(row) == KEYS, row["file"]
        by_verdict.setdefault(row["verdict"], []).append(row)
    assert sorted(by_verdict) == ["ERROR", "FAIL", "PASS"]
    for row in by_verdict["ERROR"]:  # no figure: null, never absent
        assert row["users_held"] is None and row["kv_pool_bytes_per_gpu"] is None
        assert row["traffic_basis"] is None and row["refused"] == []
    nope = next(r for r in rows if r["file"] == str(missing))
    assert nope["errors"] == [{"field": "", "line": None, "message": "no such file or folder"}]
    # Qwen3-14B at TP 5: a FAIL before any arithmetic (8 KV heads, tensor size 5), its reason
    # kept in `reasons` as before, its figures null
    tp5 = next(r for r in rows if r["file"].endswith("qwen3-14b-tp5-job.yaml"))
    assert tp5["verdict"] == "FAIL" and tp5["users_held"] is None
    assert tp5["reasons"] == ["would not start: qwen3-14b's 8 KV heads and tensor parallel size "
                              "5 do not divide one another"]
    # a judged FAIL keeps its figures: 4 H100s hold 222 conversations of 2,000 tokens each
    # (tests/check/test_check_cli_formats.py works the pool out from the specs)
    fail = next(r for r in rows if r["file"].endswith("fail-capacity.yaml"))
    assert (fail["users_held"], fail["users_per_replica"], fail["refused"]) == (888, 222, [])
