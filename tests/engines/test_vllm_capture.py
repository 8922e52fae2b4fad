"""vLLM's CUDA-graph estimate by its capture sizes (task h43graphs; kvplan/engines/vllm_capture.py
cites 0.30.0 config/vllm.py _set_cudagraph_sizes and v1/worker/gpu/cudagraph_utils.py).

Sizes: 1, 2, 4, multiples of 8 below 256, multiples of 16 from 256, up to
min(max_num_seqs x query length x 2, 512 (1,024 on Blackwell from 0.30), max_num_batched_tokens),
plus max_num_batched_tokens when under that ceiling; a PIECEWISE graph per size and a FULL decode
graph per size (rounded up to the query length) within max_num_seqs requests.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_capture import (
    BASE_BYTES,
    GRAPH_LAYER_BYTES,
    Capture,
    capture,
    estimate,
    graph_bytes,
)
from kvplan.units import GIB, MIB


def test_the_baseline_and_the_per_graph_layer_cost_are_the_fit_logs():
    """Task h44graphbase: vLLM's estimate is a first capture + later graphs x their cost.
    480 (9 graphs: 7 later, 0.35 GiB) and 211 (86: 84 later, 0.53 GiB), both 28 layers:
    (0.53 - 0.35) x 1,024 / ((84 - 7) x 28) = 0.08549 MiB -> 0.0855 MiB = 89,653 B (floor);
    0.35 x 1,024 - 7 x 28 x 0.08549 = 341.6 MiB -> 342 MiB = 358,612,992 B. Low: 253's
    0.009 x 39.49 GiB = 363.9 MiB less 84 x 28 x 0.0855 = 201.1 -> 163 MiB = 170,917,888 B.
    High: 285's 0.009 x 121.63 GiB = 1,120.9 MiB less 84 x 48 x 0.0855 = 344.7 -> 776 MiB =
    813,694,976 B; 272's (2.73 x 1,024 - 342) / (84 x 80) = 0.3651 -> 0.365 MiB = 382,730 B."""
    assert BASE_BYTES == (358_612_992, 170_917_888, 813_694_976)
    assert GRAPH_LAYER_BYTES == (89_653, 89_653, 382_730)
    per = 0.18 * 1024 / (77 * 28)
    assert abs(GRAPH_LAYER_BYTES[0] / MIB - per) < 0.0001
    assert abs(BASE_BYTES[0] / MIB - (0.35 * 1024 - 7 * 28 * per)) < 0.5
    # the two fit logs back: 480 358,612,992 + 7 x 28 x 89,653 = 376,184,980 B = 0.3503 GiB;
    # 211 358,612,992 + 84 x 28 x 89,653 = 569,476,848 B = 0.5304 GiB
    assert graph_bytes(Capture((1, 2, 4, 8, 16), (1, 2, 4, 8)), 28).best == 376_184_980
    assert round(376_184_980 / GIB, 2) == 0.35 and round(569_476_848 / GIB, 2) == 0.53
    assert graph_bytes(capture("0.23.0", 256, 2048), 28).best == 569_476_848


def test_no_graph_books_nothing_and_one_mode_has_one_first_capture():
    """NONE: nothing. PIECEWISE 1, 2, 4 alone (one mode): 358,612,992 + 2 later x 32 x 89,653 =
    364,350,784 B; low 170,917,888 + 5,737,792 = 176,655,680; high 813,694,976 + 2 x 32 x
    382,730 = 838,189,696."""
    none = graph_bytes(Capture((), ()), 32)
    assert (none.best, none.low, none.high) == (0, 0, 0)
    one = Capture((1, 2, 4), ())
    assert (one.modes, one.later, one.printed) == (1, 2, ((3, 4), (0, 0)))
    term = graph_bytes(one, 32)
    assert (term.best, term.low, term.high) == (364_350_784, 176_655_680, 838_189_696)


def test_256_sequences_capture_what_fit_log_211_prints():
    # "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)":
    # ceiling min(2 x 256, 512, 2,048) = 512: 1, 2, 4 (3) + 8..248 by 8 (31) + 256..512 by 16
    # (17) = 51; FULL: the sizes <= 256: 3 + 31 + 1 = 35
    cap = capture("0.23.0", 256, 2048)
    assert (len(cap.piecewise), cap.piecewise[-1]) == (51, 512)
    assert (len(cap.full), cap.full[-1]) == (35, 256)
    assert cap.graphs == 86


def test_eight_sequences_capture_nine_graphs_log_447():
    # ceiling min(2 x 8, 512, 2,048) = 16: sizes 1, 2, 4, 8, 16; FULL <= 8: 1, 2, 4, 8;
    # 9 graphs, 2 modes: 7 later x 32 layers (Mistral-7B) x 89,653 B = 20,082,272 B;
    # best 358,612,992 + 20,082,272 = 378,695,264 B (0.353 GiB); low 170,917,888 + 20,082,272
    # = 191,000,160; high 813,694,976 + 7 x 32 x 382,730 = 899,426,496 (the baseline's spread
    # dominates at few graphs: 642,777,088 B of the 708,426,336 between the ends)
    cap = capture("0.30.0", 8, 2048)
    assert cap.piecewise == (1, 2, 4, 8, 16)
    assert cap.full == (1, 2, 4, 8)
    term, how = estimate("0.30.0", 8, 2048, 32)
    assert (term.best, term.low, term.high) == (378_695_264, 191_000_160, 899_426_496)
    assert how.startswith("342 MiB first capture + 7 later graphs (each mode's first left out) "
                          "x 32 layers x 0.0855 MiB; 9 graphs (PIECEWISE 5: 1, 2, 4, 8, 16; "
                          "FULL decode 4: 1, 2, 4, 8)")


def test_batched_tokens_under_the_ceiling_are_captured_too():
    # ceiling min(512, 100) = 100: 1, 2, 4 + 8..96 by 8 (12) + 100 = 16 sizes, all <= 256
    # sequences: 16 FULL too
    cap = capture("0.30.0", 256, 100)
    assert len(cap.piecewise) == 16 and cap.piecewise[-2:] == (96, 100)
    assert cap.full == cap.piecewise


def test_blackwell_raises_the_ceiling_from_0_30():
    # B200 at 1,024 sequences / 8,192 tokens: ceiling min(2,048, 1,024) = 1,024: 3 + 31 +
    # 256..1,024 by 16 (49) = 83 sizes, all <= 1,024 sequences: 166 graphs; 0.29 (0.21.0's
    # 512 on every GPU): 51 + 51 = 102
    assert capture("0.30.0", 1024, 8192, gpu_name="B200").graphs == 166
    assert capture("0.29.0", 1024, 8192, gpu_name="B200").graphs == 102
    assert capture("0.30.0", 1024, 8192, gpu_name="H100").graphs == 102


def test_speculative_tokens_widen_the_decode_query():
    # 8 sequences, 2 draft tokens (query 3): ceiling min(8 x 3 x 2, 512) = 48: 1, 2, 4, 8, 16,
    # 24, 32, 40, 48; from 0.30 the decode sizes 3 x (1, 2, 4, 8) = 3, 6, 12, 24 join: 12
    # sizes. FULL: each rounded up to a multiple of 3 within 8 x 3 = 24 tokens: 3, 6, 9, 12, 18,
    # 24 (6) -> 18 graphs. 0.29 adds no decode sizes: 9 PIECEWISE; FULL 3, 6, 9, 18, 24 -> 14
    cap = capture("0.30.0", 8, 2048, spec_tokens=2)
    assert cap.piecewise == (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48)
    assert cap.full == (3, 6, 9, 12, 18, 24)
    old = capture("0.29.0", 8, 2048, spec_tokens=2)
    assert (len(old.piecewise), old.full) == (9, (3, 6, 9, 18, 24))


def test_explain_shows_the_capture_sizes_used():
    # Mistral-7B on an L4 under 0.30.0 at 8 sequences (log 447's settings): 378,695,264 B
    res = CliRunner().invoke(app, ["explain", "mistral-7b-instruct-v0.3", "--gpu", "l4",
                                   "--engine", "vllm", "--engine-version", "0.30.0",
                                   "--max-num-seqs", "8", "--max-num-batched-tokens", "2048",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: s for s in row["steps"]}
    step = steps["CUDA graph memory"]
    assert step["value"] == 378_695_264
    assert str(step["formula"]).startswith("342 MiB first capture + 7 later graphs")
    assert "PIECEWISE 5: 1, 2, 4, 8, 16; FULL decode 4: 1, 2, 4, 8" in str(step["formula"])
    assert "max_num_seqs 8 and max_num_batched_tokens 2,048" in str(step["formula"])
