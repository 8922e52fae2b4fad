"""--shared-prefix-tokens is refused where no block is shared: a reserved cache (every
conversation sets aside the whole context, docs/maths.md "Reserved allocation ignores it") and
transformers' cache (each sequence holds its own tensors, no prefix caching).

Found by task h90review: `kvplan size llama-3-8b --engine transformers --context 8192
--avg-context 2000 --shared-prefix-tokens 1000` printed 61 users per GPU, the same as without
the flag, and JSON shared_prefix_bytes 0, with no word; `--allocation reserved` with the flag
alike. The paged profiles credit it (SGLang 206 -> 411 users per GPU here)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app

BASE = ["size", "llama-3-8b", "--context", "8192", "--avg-context", "2000",
        "--shared-prefix-tokens", "1000"]


def _refusal(*args: str, base: list[str] = BASE) -> list[str]:
    res = CliRunner().invoke(app, [*base, *args])
    assert res.exit_code == 2, res.output
    return res.stderr.splitlines()


def test_reserved_allocation_refuses_it():
    # without --avg-context, which a reserved cache refuses too (task h100review)
    no_mean = [a for a in BASE if a not in ("--avg-context", "2000")]
    assert _refusal("--allocation", "reserved", base=no_mean) == [
        "error: command line: traffic.shared_prefix_tokens (--shared-prefix-tokens): a reserved "
        "cache sets aside the whole context for every conversation, so a shared prefix saves "
        "nothing; use --allocation paged or drop the option"]


def test_transformers_refuses_it():
    assert _refusal("--engine", "transformers") == [
        "error: command line: traffic.shared_prefix_tokens (--shared-prefix-tokens): "
        "transformers' cache holds each sequence's own keys and values (no prefix caching), "
        "so a shared prefix saves nothing; add --engine vllm, sglang or trtllm, or drop the "
        "option"]


def test_paged_engine_still_credits_it():
    def users(*more: str) -> int:
        res = CliRunner().invoke(app, ["size", "llama-3-8b", "--engine", "sglang", "--context",
                                       "8192", "--avg-context", "2000", *more, "-f", "json"])
        assert res.exit_code == 0, res.output
        [row] = json.loads(res.stdout)["results"]
        return int(row["users_per_gpu"])
    # 1,000 of the 2,000 tokens stored once: about twice the users
    assert (users(), users("--shared-prefix-tokens", "1000")) == (206, 411)
