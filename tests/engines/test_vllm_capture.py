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
from kvplan.engines.vllm_capture import GRAPH_LAYER_BYTES, capture, estimate
from kvplan.units import MIB


def test_the_per_graph_layer_cost_is_the_fit_logs():
    # 211: 0.53 GiB / 86 graphs / 28 layers = 0.2254 MiB -> 0.225 MiB = 235,929 B (floor);
    # 253: 0.355 / (86 x 28) = 0.151 -> 0.15 MiB = 157,286 B; 272: 2.73 / (86 x 80) = 0.406
    # -> 0.41 MiB = 429,916 B
    assert GRAPH_LAYER_BYTES == (235_929, 157_286, 429_916)
    assert GRAPH_LAYER_BYTES[1] < 0.53 * 1024 / (86 * 28) * MIB
    assert abs(GRAPH_LAYER_BYTES[0] - 0.53 * 1024 / (86 * 28) * MIB) < 0.01 * MIB
    assert GRAPH_LAYER_BYTES[2] > 2.73 * 1024 / (86 * 80) * MIB


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
    # 9 graphs x 32 layers (Mistral-7B) x 235,929 B = 67,947,552 B (0.063 GiB);
    # low 9 x 32 x 157,286 = 45,298,368; high 9 x 32 x 429,916 = 123,815,808
    cap = capture("0.30.0", 8, 2048)
    assert cap.piecewise == (1, 2, 4, 8, 16)
    assert cap.full == (1, 2, 4, 8)
    term, how = estimate("0.30.0", 8, 2048, 32)
    assert (term.best, term.low, term.high) == (67_947_552, 45_298_368, 123_815_808)
    assert how.startswith("9 graphs (PIECEWISE 5: 1, 2, 4, 8, 16; FULL decode 4: 1, 2, 4, 8) "
                          "x 32 layers x 0.225 MiB")


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
    # Mistral-7B on an L4 under 0.30.0 at 8 sequences (log 447's settings): 67,947,552 B
    res = CliRunner().invoke(app, ["explain", "mistral-7b-instruct-v0.3", "--gpu", "l4",
                                   "--engine", "vllm", "--engine-version", "0.30.0",
                                   "--max-num-seqs", "8", "--max-num-batched-tokens", "2048",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: s for s in row["steps"]}
    step = steps["CUDA graph memory"]
    assert step["value"] == 67_947_552
    assert "PIECEWISE 5: 1, 2, 4, 8, 16; FULL decode 4: 1, 2, 4, 8" in str(step["formula"])
    assert "max_num_seqs 8 and max_num_batched_tokens 2,048" in str(step["formula"])
