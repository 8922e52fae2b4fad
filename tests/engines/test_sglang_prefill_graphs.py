"""SGLang's prefill CUDA-graph reserve in the default mem_fraction_static (issue #13 part 2):
reserve_for_graph_mb in server_args.py of the 0.5.16 and 0.5.17 wheels, arg_groups/memory_hook.py
of the 0.5.21 wheel. 8 MiB per captured prefill size up to chunked_prefill_size (non-MLA), 1.5 GiB
for an MLA model (0.5.21; 0.5.16/0.5.17 switch breakable graphs off for MLA), none on ROCm (the
tc_piecewise default is off on HIP), none with pipeline parallelism from 0.5.21; added before the
10 GiB floor. Fractions below by hand: round((nvidia-smi MiB - reserved) / nvidia-smi MiB, 3)."""

from __future__ import annotations

import json
from fractions import Fraction

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.sglang_defaults import default_fraction, prefill_graph_sizes
from tests.conftest import step_values


def test_prefill_graph_sizes_as_sglang_generates_them() -> None:
    # 4..32 by 4 (8), 48..256 by 16 (14), 288..512 by 32 (8), 576..1024 by 64 (8),
    # 1280..4096 by 256 (12), 4608.. by 512: up to 8,192 that is 8 more, to 16,384 24 more
    assert prefill_graph_sizes(2048) == 8 + 14 + 8 + 8 + 4 == 42  # 1280, 1536, 1792, 2048
    assert prefill_graph_sizes(8192) == 8 + 14 + 8 + 8 + 12 + 8 == 58
    assert prefill_graph_sizes(16384) == 58 + 16 == 74
    assert prefill_graph_sizes(1000) == 8 + 14 + 8 + 7 == 37  # 576..960
    assert prefill_graph_sizes(3) == 0


def test_default_fraction_with_the_prefill_graphs() -> None:
    h100 = 81_559
    # TP 1, chunk 8,192, decode bs 256: 512 + 12,288 + 512 + 128 = 13,440 (0.835) + 58 x 8 = 464
    #   -> 13,904: 67,655 / 81,559 = 0.82952 -> 0.83 (log 173 prints 0.83)
    assert default_fraction(1, "0.5.21", h100) == Fraction(835, 1000)
    assert default_fraction(1, "0.5.21", h100, prefill_graphs="tokens") == Fraction(83, 100)
    # before 0.5.16 the term is not applied (releases not read)
    assert default_fraction(1, "0.5.15", h100, prefill_graphs="tokens") == Fraction(835, 1000)
    # --max-total-tokens 1,000 caps the prefill max_bs: 37 sizes, 296 -> 13,736: 0.83158 -> 0.832
    assert default_fraction(1, "0.5.21", h100, prefill_graphs="tokens",
                            max_total_tokens=1000) == Fraction(832, 1000)
    # TP 8 MLA: 512 + 12,288 + 1,024 + 1,024 = 14,848 (0.81795 -> 0.818) + 1,536 = 16,384:
    #   65,175 / 81,559 = 0.79912 -> 0.799
    assert default_fraction(8, "0.5.21", h100, prefill_graphs="mla") == Fraction(799, 1000)
    # RTX 4090 (24,564 MiB) on 0.5.17 (its 20-35 GiB tier: chunk 2,048, bs 24; the 0.5.21 wheel
    # has 4,096 and 48 there, not modelled): 512 + 3,072 + 48 + 128 = 3,760 + 42 x 8 = 336
    #   -> 4,096: 20,468 / 24,564 = 0.83325 -> 0.833 (without: 20,804 / 24,564 = 0.8469 -> 0.847)
    assert default_fraction(1, "0.5.17", 24_564, prefill_graphs="tokens") == Fraction(833, 1000)
    assert default_fraction(1, "0.5.17", 24_564) == Fraction(847, 1000)


def _fraction(*argv: str) -> tuple[float, list[str]]:
    res = CliRunner().invoke(app, ["explain", *argv, "--engine", "sglang", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = step_values(row)
    return steps["mem_fraction_static"], [s["formula"] for s in row["steps"]]


def test_which_requests_capture_prefill_graphs() -> None:
    # Qwen3-30B-A3B-FP8 on one H100 (log 173's setting): 0.83 by default, 0.835 on 0.5.15
    assert _fraction("qwen3-30b-a3b-fp8", "--gpu", "h100")[0] == 0.83
    assert _fraction("qwen3-30b-a3b-fp8", "--gpu", "h100", "--engine-version", "0.5.15")[0] \
        == 0.835
    # MI300X (196,592 MiB): ROCm captures none: chunk 16,384, bs 512: 512 + 24,576 + 1,024 +
    # 128 = 26,240 -> 170,352 / 196,592 = 0.86652 -> 0.867, as before
    assert _fraction("llama-3.1-8b", "--gpu", "mi300x")[0] == 0.867
    # pipeline parallelism 2: 512 + 12,288 + 512 + 256 = 13,568 -> 0.83364 -> 0.834 on 0.5.21
    # (no prefill graphs); 0.5.17 keeps them: + 464 = 14,032 -> 0.82795 -> 0.828
    assert _fraction("llama-3.1-8b", "--gpu", "h100", "--pp", "2")[0] == 0.834
    assert _fraction("llama-3.1-8b", "--gpu", "h100", "--pp", "2", "--engine-version",
                     "0.5.17")[0] == 0.828
    # an MLA model, TP 8 on H100s: 0.799 on 0.5.21 (1.5 GiB), 0.818 on 0.5.17 (graphs off)
    assert _fraction("deepseek-v3", "--gpu", "h100", "--tp", "8")[0] == 0.799
    assert _fraction("deepseek-v3", "--gpu", "h100", "--tp", "8", "--engine-version",
                     "0.5.17")[0] == 0.818
    # a multimodal model: taken as capturing none (allowlist not modelled), and said so
    frac, _ = _fraction("qwen2.5-vl-7b", "--gpu", "h100")
    assert frac == 0.835
    res = CliRunner().invoke(app, ["size", "qwen2.5-vl-7b", "--gpu", "h100", "--engine",
                                   "sglang", "-f", "json"])
    assert "prefill CUDA graphs taken as off for a multimodal model" in res.stdout
