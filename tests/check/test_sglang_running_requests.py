"""`kvplan check` reads SGLang's stated --max-running-requests for what it moves in the engine,
not only as its own cap on the users (task h62review). check dropped it from the profile (its
settings keep vLLM's max_num_seqs out so that check names the cap itself), so the profile sized
the request-to-token map with its estimate and the default mem_fraction_static without 0.5.22's
graph-batch cap: a map that does not fit passed, and the pool differed from `kvplan explain`'s."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths

IMAGE = "docker run --gpus all lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server"
MODEL = "--model-path meta-llama/Llama-3.1-8B-Instruct"


def _one(tmp_path: Path, args: str):  # noqa: ANN202
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/sh\n{IMAGE} {MODEL} {args}\n")
    (o,) = check_paths([str(path)], "h100-sxm-80gb").outcomes
    return o


def test_a_stated_count_sizes_the_request_to_token_map(tmp_path: Path) -> None:
    """100,000 slots (under tokens // 2 = 206,420, SGLang 0.5.14 on) x (131,072 + 4) x 4 B,
    plus a padding row: 100,001 x 131,076 x 4 = 52,430,924,304 B, over the 14,386,520,064 B the
    weights and the pool leave (the pool is the same as without the option: 412,841 tokens,
    tests/engines/test_sglang_req_map.py). Was PASS, holding 3 sequences."""
    o = _one(tmp_path, "--context-length 131072 --max-running-requests 100000")
    assert o.verdict == "FAIL"
    assert o.numbers is not None and any(r.startswith(
        "SGLang would not start: its request-to-token map (ReqToTokenPool: 100,001 request slots "
        "x 131,076 positions x 4 B = 48.83 GiB a GPU)") for r in o.numbers.reasons)


def test_a_stated_count_caps_the_graph_batch_as_explain_does(tmp_path: Path) -> None:
    """0.5.23's default mem_fraction_static with cuda_graph_max_bs 8 (the tier's 256 capped at
    --max-running-requests 8, 0.5.22 on): 416,715 tokens, as `kvplan explain` says of the same
    file; check said 412,841 (the uncapped 256). check still names the cap itself."""
    o = _one(tmp_path, "--context-length 8192 --max-running-requests 8")
    assert o.verdict == "PASS"
    assert "(416,715 tokens in the pool); at most 8 run at once (engine.max_num_seqs)" in o.summary
