"""A deployment's stated CUDA-graph capture applied (task h43capsz; kvplan/engines/vllm_capture.py
cites vLLM 0.30.0 config/vllm.py `_set_cudagraph_sizes` :2201-2414, config/compilation.py
`CUDAGraphMode` :59-97 and v1/worker/gpu/cudagraph_utils.py `_init_candidates` :248-369).

Stated sizes are de-duplicated, those above max_num_batched_tokens dropped, sorted (:2312-2323);
a stated maximum without sizes replaces the ceiling (no decode-size multiples, :2207-2214); both
stated must agree (:2369-2386). Per mode: PIECEWISE a PIECEWISE graph per size; FULL a FULL
graph per size; FULL_DECODE_ONLY the FULL decode graphs only; NONE nothing. The estimate is
358,612,992 B (342 MiB, BASE_BYTES[0]) + each graph after its mode's first x layers x 89,653 B
(0.0855 MiB, GRAPH_LAYER_BYTES[0]; task h44graphbase).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_capture import Stated, capture, estimate, inconsistency

BASE = 358_612_992  # the first capture (best)
GRAPH = 89_653  # bytes per later graph and layer (best)


def test_stated_sizes_piecewise_price_three_graphs():
    # 1, 2, 4 under PIECEWISE: 3 PIECEWISE graphs, no FULL; 358,612,992 + 2 later x 32 layers
    # x 89,653 B = 364,350,784 B (the default at 1,024 sequences / 8,192 tokens: 102 graphs in
    # 2 modes, 358,612,992 + 100 x 32 x 89,653 = 645,502,592 B)
    stated = Stated((1, 2, 4), 4, "PIECEWISE")
    cap = capture("0.30.0", 1024, 8192, stated=stated)
    assert (cap.piecewise, cap.full) == ((1, 2, 4), ())
    term, how = estimate("0.30.0", 1024, 8192, 32, stated=stated)
    assert term.best == BASE + 2 * 32 * GRAPH == 364_350_784
    assert estimate("0.30.0", 1024, 8192, 32)[0].best == BASE + 100 * 32 * GRAPH == 645_502_592
    assert "2 later graphs (each mode's first left out) x 32 layers" in how
    assert "3 graphs (PIECEWISE 3: 1, 2, 4; FULL decode 0: )" in how
    assert ("stated cudagraph_capture_sizes 1, 2, 4; stated max_cudagraph_capture_size 4; "
            "stated cudagraph_mode PIECEWISE, max_num_batched_tokens 8,192") in how


def test_stated_sizes_are_deduplicated_and_filtered_by_batched_tokens():
    # 4, 1, 1, 16,384, 2 at 8,192 batched tokens: 16,384 dropped, 1 once -> 1, 2, 4; the
    # default mode adds a FULL decode graph for each (all within 256 sequences): 6 graphs in 2
    # modes, 358,612,992 + 4 x 32 x 89,653 = 370,088,576 B
    stated = Stated((4, 1, 1, 16384, 2))
    cap = capture("0.30.0", 256, 8192, stated=stated)
    assert (cap.piecewise, cap.full) == ((1, 2, 4), (1, 2, 4))
    assert estimate("0.30.0", 256, 8192, 32, stated=stated)[0].best == 370_088_576


def test_a_stated_maximum_replaces_the_ceiling_without_decode_sizes():
    # max 64, 256 sequences, 2 draft tokens (query 3): sizes 1, 2, 4, 8..64 by 8 = 11 (no
    # 3 x n decode sizes: vLLM adds them only under its own ceiling); FULL: each rounded up to a
    # multiple of 3 within 64: 3, 6, 9, 18, 24, 33, 42, 48, 57 (66 > 64 dropped) = 9; 20 graphs
    cap = capture("0.30.0", 256, 8192, spec_tokens=2, stated=Stated(max_size=64))
    assert cap.piecewise == (1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64)
    assert cap.full == (3, 6, 9, 18, 24, 33, 42, 48, 57)
    # the maximum is capped by max_num_batched_tokens 20: 1, 2, 4, 8, 16 + 20 appended
    assert capture("0.30.0", 256, 20, stated=Stated(max_size=64)).piecewise == (1, 2, 4, 8, 16, 20)


def test_each_mode_captures_its_graphs():
    # sizes 1, 2, 4, 8 at 2 sequences (query 1): FULL a FULL graph per size (4); FULL_DECODE_ONLY
    # the decode graphs within 2 requests: 1, 2 (2); FULL_AND_PIECEWISE 4 + 2 = 6; NONE 0
    sizes = (1, 2, 4, 8)
    full = capture("0.30.0", 2, 8192, stated=Stated(sizes, mode="FULL"))
    assert (full.piecewise, full.full) == ((), (1, 2, 4, 8))
    decode = capture("0.30.0", 2, 8192, stated=Stated(sizes, mode="FULL_DECODE_ONLY"))
    assert (decode.piecewise, decode.full) == ((), (1, 2))
    assert capture("0.30.0", 2, 8192, stated=Stated(sizes)).graphs == 6
    assert capture("0.30.0", 2, 8192, stated=Stated(mode="NONE")).graphs == 0
    term, how = estimate("0.30.0", 2, 8192, 32, stated=Stated(sizes, mode="FULL"))
    assert term.best == BASE + 3 * 32 * GRAPH == 367_219_680  # FULL alone: one first capture
    assert "PIECEWISE 0: ; FULL 4: 1, 2, 4, 8" in how


def test_what_vllm_refuses():
    assert inconsistency(Stated((1, 2, 4), 4), 8192) is None
    assert "largest capture size kept (4)" in str(inconsistency(Stated((1, 2, 4), 8), 8192))
    # 4 dropped above 2 batched tokens: the largest kept is 2, which the stated 2 matches
    assert inconsistency(Stated((1, 2, 4), 2), 2) is None
    assert "empty" in str(inconsistency(Stated(()), None))


def _explain(*extra: str) -> tuple[int, dict]:
    res = CliRunner().invoke(app, ["explain", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100",
                                   "--engine", "vllm", "--engine-version", "0.30.0",
                                   "--context", "8192", *extra, "-f", "json"])
    if res.exit_code:
        return res.exit_code, {}
    [row] = json.loads(res.stdout)["results"]
    return 0, {s["label"]: s for s in row["steps"]}


def test_explain_applies_and_names_the_stated_capture():
    # H100 serve defaults (1,024 sequences, 8,192 tokens), Llama-3.1-8B's 32 layers:
    # 645,502,592 B by default, 364,350,784 B for 1, 2, 4 under PIECEWISE, 0 under NONE
    code, steps = _explain()
    assert code == 0 and steps["CUDA graph memory"]["value"] == 645_502_592
    code, steps = _explain("--cudagraph-capture-sizes", "1,2,4", "--max-cudagraph-capture-size",
                           "4", "--cudagraph-mode", "PIECEWISE")
    assert code == 0 and steps["CUDA graph memory"]["value"] == 364_350_784
    assert "stated cudagraph_capture_sizes 1, 2, 4" in steps["CUDA graph memory"]["formula"]
    code, steps = _explain("--cudagraph-mode", "NONE")
    assert code == 0 and steps["CUDA graph memory"]["value"] == 0


def test_the_cli_refuses_what_vllm_refuses():
    assert _explain("--cudagraph-capture-sizes", "1,2,4", "--max-cudagraph-capture-size", "8")[0] == 2
    assert _explain("--cudagraph-capture-sizes", "1,x")[0] == 2
    assert _explain("--cudagraph-mode", "SOMETIMES")[0] == 2
