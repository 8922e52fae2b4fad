"""SGLang's default of 48 running requests under speculative decoding caps fleet's plan with a
spread of lengths too (the lead, merging h90review's users_cap beside h90sglspec: the spread plan
took 118 users per GPU where SGLang runs 48 at once; server_args.py, kvplan.engines.sglang_spec)."""

from __future__ import annotations

import json

from tests.conftest import invoke

BASE = ("fleet", "llama-3.1-8b", "--engine", "sglang", "--context", "8192", "--peak-users", "1000",
        "--gpu", "h100", "--speculative-algorithm", "STANDALONE", "--speculative-model",
        "llama-3.2-1b", "--context-p50", "1200", "--context-p95", "6000", "-f", "json")


def test_spread_plan_is_capped_at_48_running_requests(runner) -> None:
    result = invoke(runner, *BASE)
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["users_per_gpu"] == 48
    assert row["gpus_needed"] == 21  # ceil(1,000 / 48)


def test_a_stated_cap_wins_over_the_default(runner) -> None:
    result = invoke(runner, *BASE, "--max-running-requests", "64")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["users_per_gpu"] == 64
    assert row["gpus_needed"] == 16  # ceil(1,000 / 64)
