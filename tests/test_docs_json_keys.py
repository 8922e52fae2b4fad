"""Every key of `size`, `fleet` and `explain`'s JSON is named in the docs (README, docs/*.md).

Found by task h90review ("JSON keys stable and documented"): `max_context_that_fits_tokens`
(every size/fleet record) and `engine_log_lines` (with an engine) were in the JSON and in no
doc. A key `x_low` or `x_high` counts as named where the docs write `x` (`_low`/`_high`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    ["size", "llama-3-8b", "--context", "8192", "--avg-context", "2000"],
    ["size", "llama-3.1-8b", "--engine", "sglang", "--context", "8192"],
    ["size", "qwen3-next-80b-a3b", "--gpu", "h200", "--tp", "2", "--context", "8192"],
    ["fleet", "llama-3.1-8b", "-n", "100", "--engine", "vllm", "--context", "8192",
     "--context-p50", "1000", "--context-p95", "4000", "--min-tokens-per-s-per-user", "30"],
    ["fleet", "llama-3-8b", "-n", "100", "--context", "8192", "--search", "--search-gpus",
     "h100,a40", "--top", "1"],
    ["explain", "llama-3-8b", "-n", "100", "--context", "8192"],
]


def _keys(doc: object, out: set[str]) -> None:
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k not in ("steps", "record", "breakdown"):  # explain's steps: labels, not keys
                out.add(k)
                _keys(v, out)
    elif isinstance(doc, list):
        for item in doc:
            _keys(item, out)


def _documented() -> set[str]:
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    named = set(re.findall(r"[a-z][a-z0-9_]*", text))  # in prose, a CSV header or a table
    for base in re.findall(r"`([a-z][a-z0-9_]*)` \(`_low`/`_high`\)", text):
        named |= {f"{base}_low", f"{base}_high"}
    return named


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_json_key_is_named_in_the_docs(args: list[str]):
    res = CliRunner().invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    keys: set[str] = set()
    _keys(json.loads(res.stdout), keys)
    assert sorted(keys - _documented()) == []


# task h100review: `check`'s JSON had twelve keys in no doc (exit_code, idle_gpus,
# kv_users_per_replica, longest_context_that_fits_tokens, max_model_len_tokens,
# max_sequence_bytes_per_gpu, skipped_files, slo_tokens_per_s_per_user,
# users_per_replica_at_mean, users_per_replica_at_risk, users_per_replica_slo, warn); docs/check.md
# now has a key table. Shipped examples (PASS, FAIL, a traffic basis, fixes) and two corpus
# folders (WARN, ERROR, a skipped file).
CHECK_RUNS = [
    ["examples/manifests", "examples/deployments", "examples/k8s"],
    ["tests/assets/check/corpus/gke", "tests/assets/check/corpus/kserve"],
]


@pytest.mark.parametrize("paths", CHECK_RUNS, ids=lambda p: p[0])
def test_every_check_json_key_is_named_in_the_docs(paths: list[str]):
    res = CliRunner().invoke(app, ["check", *paths, "-f", "json"])
    assert res.exit_code in (0, 1, 2), res.output
    keys: set[str] = set()
    _keys(json.loads(res.stdout), keys)
    assert {"warn", "exit_code", "idle_gpus", "max_sequence_bytes_per_gpu"} <= keys
    assert sorted(keys - _documented()) == []
