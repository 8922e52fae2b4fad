"""The re-run audit of issue #17 (new user and attacker, from the installed CLI): inputs that
were still accepted, crashed or ran unbounded, each now refused in one line with exit 2 (or a
verdict of no, exit 1) under 5 CPU seconds and 500 MB (tests/hardening/limited.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening.limited import (
    assert_bounded,
    one_error_line,
    run_limited,
)

HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"
H = str(HOSTILE)
HUGE = "1" + "0" * 30

# (id, argv, stdin file or None, text the one error line must hold)
CASES: list[tuple[str, tuple[str, ...], str | None, str]] = [
    # a second document (its apiVersion on line 30, after `---` and three comment lines) used
    # to be dropped: size planned the first and said nothing
    ("two-documents", ("size", f"{H}/two-documents.yaml"), None,
     "two-documents.yaml: line 30: 2 documents; a plan reads one kvplan/v1 deployment"),
    # a TensorRT-LLM config's values bypassed the record's bounds (exit 0 with 10^30 sequences)
    ("trtllm-config-huge", ("size", "llama-3-8b", "--engine", "trtllm", "--trtllm-config",
                            f"{H}/trtllm-config-huge.yaml"), None,
     "Input should be less than or equal to 1000000000 (from trtllm-config-huge.yaml)"),
    # a 10^30-token request in a sample was capped silently at max_model_len
    ("sample-huge", ("fleet", "llama-3-8b", "-n", "10", "--context-sample",
                     f"{H}/sample-huge.csv"), None,
     "a request of 1,000,000,000,000,000,000,000,000,000,000 tokens is beyond the limit of "
     "17,179,869,184"),
    # binary bytes on standard input for --context-sample -: an internal error (exit 3) before
    ("sample-stdin-binary", ("fleet", "llama-3-8b", "-n", "10", "--context-sample", "-"),
     f"{H}/binary.yaml", "binary data (a NUL byte at offset 0), not text"),
    # plot risk --users 10^30 ran for minutes past 20 GB (the exact law of the total is O(n))
    ("plot-risk-users-huge", ("plot", "risk", "llama-3-8b", "--avg-context", "2000",
                              "--context-p95", "6000", "--users", HUGE), None,
     "is beyond the 10,000 open conversations a picture draws"),
    # a prompt longer than any sequence the engine accepts gave a TTFT of 10^30 tokens
    ("prompt-tokens-huge", ("fleet", "llama-3-8b", "-n", "10", "--prompt-tokens", HUGE), None,
     "tokens is longer than the longest sequence the engine accepts (max_model_len 8,192)"),
    # options that changed nothing, accepted with exit 0
    ("tolerance-without-measure", ("size", "llama-3-8b", "--tolerance", "3"), None,
     "--tolerance applies only with --measure"),
    ("check-gpu-unused", ("check", "examples/k8s/vllm-llama3-8b.yaml", "--gpu", "h200"), None,
     "every deployment checked names its own GPU, so it applied to none"),
    ("search-kv-budget", ("fleet", "llama-3-8b", "-n", "100", "--search", "--kv-budget-gib",
                          "40"), None, "states one GPU's KV pool; --search derives each GPU's own"),
    ("search-save-nothing", ("fleet", "llama-3.1-70b", "-n", "100000", "--search",
                             "--search-gpus", "t4", "--save", "/tmp/kvplan-never.yaml"), None,
     "no configuration carries the load, so there is no plan to save"),
    ("nodes-beyond-replica", ("size", "llama-3-8b", "--nodes", "2"), None,
     "a replica of 1 GPU(s) (tensor 1 x pipeline 1) cannot span 2 servers"),
    ("ep-within-tp", ("size", "qwen3-30b-a3b", "--tp", "2", "--ep", "2"), None,
     "parallel.expert (--ep): up to the tensor-parallel size (2) the experts are split"),
    ("ep-not-dividing", ("size", "qwen3-30b-a3b", "--tp", "4", "--ep", "3"), None,
     "expert parallelism 3 does not divide qwen3-30b-a3b's 128 experts"),
]


@pytest.mark.parametrize(("argv", "stdin", "text"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_audit_input_is_refused_in_one_line(argv: tuple[str, ...], stdin: str | None,
                                            text: str) -> None:
    out = run_limited(*argv, stdin=Path(stdin) if stdin else None)
    assert out.code == 2, out.stdout + out.stderr
    line = one_error_line(out)
    assert line.lower().startswith("error"), line
    assert text in line, line
    assert_bounded(out)


def test_a_search_that_carries_nothing_is_a_verdict_of_no() -> None:
    """`fleet --search` used to exit 0 with "no configuration carries the load"."""
    out = run_limited("fleet", "llama-3.1-70b", "-n", "100000", "--search", "--search-gpus",
                      "t4")
    assert out.code == 1, out.stdout + out.stderr
    assert "no configuration carries the load" in out.stdout
    assert_bounded(out)
    assert run_limited("fleet", "llama-3.1-70b", "-n", "100000", "--search", "--search-gpus",
                       "t4", "--allow-no-fit").code == 0
