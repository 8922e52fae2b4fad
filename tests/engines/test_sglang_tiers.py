"""SGLang's defaults by GPU memory tier, per release series (issue #13; kvplan.engines.sglang_defaults).

Read in the PyPI wheels' sglang/srt/server_args.py (arg_groups/memory_hook.py from 0.5.19):
0.4.6 (13 GiB reserved above 81,920 MiB, TP table below), 0.4.7 (TP table by tp x pp up to
81,920 MiB, else 0.88; 0.79 above 180,000 MiB on CUDA; above 96 GiB
min(f + 48 GiB x (1 - f) / g, (g - 18 GiB) / g)), 0.4.8 / 0.4.9 / 0.4.10 / 0.5.0rc0 / 0.5.1
(reserved table), 0.5.3 / 0.5.4 (20-35 GiB tier: chunk 2,048, decode batch 16 | 80), 0.5.5 /
0.5.8 / 0.5.12 / 0.5.16 / 0.5.17 / 0.5.19 (24 | 80), 0.5.20 / 0.5.21 (4,096 and 48 | 160, sglang
PR #37898). Fractions by hand below; g is the nvidia-smi MiB figure (RTX 4090 24,564, RTX 5090
32,607, H20 97,871, H200 143,771, B200 183,359; MI300X 196,592 and MI325X 262,144 from their
memory, AMD GPUs have no nvidia-smi figure).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.sglang_defaults import default_fraction, gpu_tier


@pytest.mark.parametrize(("version", "gpu_mib", "tp", "name", "chunk", "graph_bs"), [
    # 0.4.6: chunk 2,048 / decode batch 8 (tp < 4) or 80 under 25,000 MiB; else chunk 8,192
    ("0.4.6", 24_564, 1, "under 25,000 MiB", 2048, 8),
    ("0.4.6", 24_564, 4, "under 25,000 MiB", 2048, 80),
    ("0.4.6", 25_000, 1, "25,000 MiB-80 GiB", 8192, None),
    ("0.4.6", 143_771, 1, "above 80 GiB", 8192, None),
    # 0.4.7: chunk 16,384 above 180,000 MiB
    ("0.4.7", 183_359, 1, "above 180,000 MiB (CUDA)", 16_384, None),
    ("0.4.7", 143_771, 8, "above 96 GiB", 8192, None),
    ("0.4.7", 97_871, 1, "above 80 GiB", 8192, None),
    # 0.4.8-0.5.2: chunk 2,048 under 35 GiB, 8,192 under 160 GiB, else 16,384; batch 8 | 80
    # under 35 GiB
    ("0.4.8", 24_564, 1, "20-35 GiB (A10, L40, 4090, 5090)", 2048, 8),
    ("0.5.1", 24_564, 4, "20-35 GiB (A10, L40, 4090, 5090)", 2048, 80),
    ("0.5.2", 97_871, 1, "90-100 GiB (H20)", 8192, None),
    ("0.4.9", 143_771, 1, "100-160 GiB (H200)", 8192, None),
    ("0.4.10", 183_359, 1, "160 GiB and over (B200, MI300)", 16_384, None),
    # 0.5.3 on: the 20-35 GiB tier by series
    ("0.5.3", 24_564, 1, "20-35 GiB (A10, 4090, 5090)", 2048, 16),
    ("0.5.4", 24_564, 4, "20-35 GiB (A10, 4090, 5090)", 2048, 80),
    ("0.5.5", 24_564, 1, "20-35 GiB (A10, 4090, 5090)", 2048, 24),
    ("0.5.19", 32_607, 3, "20-35 GiB (A10, 4090, 5090)", 2048, 24),
    ("0.5.20", 24_564, 1, "20-35 GiB (A10, 4090, 5090)", 4096, 48),
    ("0.5.21", 32_607, 4, "20-35 GiB (A10, 4090, 5090)", 4096, 160),
    # the other tiers, the same from 0.5.3 to 0.5.21
    ("0.5.21", 16_384, 8, "under 20 GiB (T4, 4080)", 2048, 8),
    ("0.5.3", 46_068, 1, "35-60 GiB (A100 40GB, L40)", 4096, 32),
    ("0.5.21", 46_068, 4, "35-60 GiB (A100 40GB, L40)", 4096, 160),
    ("0.5.12", 81_559, 2, "60-90 GiB (H100, A100)", 8192, 256),
    ("0.5.21", 143_771, 8, "90-160 GiB (H20, H200)", 8192, 512),
    ("0.5.21", 183_359, 1, "160 GiB and over (B200, MI300)", 16_384, 512),
])
def test_the_tier_and_its_sizes(version: str, gpu_mib: int, tp: int, name: str, chunk: int,
                                graph_bs: int | None) -> None:
    tier = gpu_tier(version, gpu_mib, tp)
    assert tier is not None
    assert (tier.name, tier.chunked_prefill_size, tier.cuda_graph_max_bs) == (name, chunk, graph_bs)


def test_series_and_sources_are_named() -> None:
    t = gpu_tier("0.5.21", 24_564, 1)
    # the 0.5.22 and 0.5.23 wheels keep 0.5.20's tiers (memory_hook.py:89-170, task h41sgl523)
    assert t is not None and t.series == "0.5.20-0.5.23"
    assert t.short() == "20-35 GiB (A10, 4090, 5090) tier of SGLang 0.5.20-0.5.23"
    assert t.describe() == (
        "20-35 GiB (A10, 4090, 5090) tier of SGLang 0.5.20-0.5.23: chunked_prefill_size 4,096, "
        "cuda_graph_max_bs 48 (0.5.20, 0.5.21, 0.5.22, 0.5.23 wheels, arg_groups/memory_hook.py "
        "handle_gpu_memory_settings; sglang PR #37898)")
    assert t.describe(chunk=8192).startswith(
        "20-35 GiB (A10, 4090, 5090) tier of SGLang 0.5.20-0.5.23: chunked_prefill_size 8,192 "
        "stated (the tier's 4,096), cuda_graph_max_bs 48 (")
    assert [gpu_tier(v, 24_564).series for v in ("0.5.3", "0.5.4", "0.5.5", "0.5.19", "0.5.20",
                                                  "0.6.0")] == [  # type: ignore[union-attr]
        "0.5.3-0.5.4", "0.5.3-0.5.4", "0.5.5-0.5.19", "0.5.5-0.5.19", "0.5.20-0.5.23",
        "0.5.20-0.5.23"]
    old = gpu_tier("0.4.3", 81_559)
    assert old is not None and old.short() == "by TP alone (releases before 0.4.6)"
    assert gpu_tier("0.5.21", None) is None


@pytest.mark.parametrize(("version", "gpu_mib", "tp", "pp", "graphs", "fraction"), [
    # 20-35 GiB, tp 1: 512 + 1.5 x max(chunk, 2,048) + 2 x batch + tp x pp / 8 x 1,024 MiB
    # 0.5.3: 512 + 3,072 + 32 + 128 = 3,744: 20,820 / 24,564 = 0.84758
    ("0.5.3", 24_564, 1, 1, None, "0.848"),
    # exactly 20 GiB is this tier: 16,736 / 20,480 = 0.81719
    ("0.5.4", 20_480, 1, 1, None, "0.817"),
    # 0.5.5-0.5.19: 512 + 3,072 + 48 + 128 = 3,760: 20,804 / 24,564 = 0.84693
    ("0.5.5", 24_564, 1, 1, None, "0.847"),
    # 0.5.20 on: 512 + 6,144 + 96 + 128 = 6,880: 17,684 / 24,564 = 0.71992
    ("0.5.20", 24_564, 1, 1, None, "0.72"),
    # exactly 20 GiB: 13,600 / 20,480 = 0.66406
    ("0.5.21", 20_480, 1, 1, None, "0.664"),
    # with the prefill CUDA graphs (0.5.16 on): up to 2,048 tokens 42 sizes (336 MiB), up to
    # 4,096 50 sizes (400 MiB). 0.5.19: 3,760 + 336 = 4,096: 20,468 / 24,564 = 0.83325
    ("0.5.19", 24_564, 1, 1, "tokens", "0.833"),
    # 0.5.21: 6,880 + 400 = 7,280: 17,284 / 24,564 = 0.70363
    ("0.5.21", 24_564, 1, 1, "tokens", "0.704"),
    # RTX 5090: 0.5.19 4,096: 28,511 / 32,607 = 0.87438; 0.5.21 7,280: 25,327 / 32,607 = 0.77674
    ("0.5.19", 32_607, 1, 1, "tokens", "0.874"),
    ("0.5.21", 32_607, 1, 1, "tokens", "0.777"),
    # tp 4 (batch 80 -> 160): 0.5.19 512 + 3,072 + 160 + 512 = 4,256 + 336 = 4,592:
    # 28,015 / 32,607 = 0.85917; 0.5.21 512 + 6,144 + 320 + 512
    # = 7,488 + 400 = 7,888: 24,719 / 32,607 = 0.75809
    ("0.5.19", 32_607, 4, 1, "tokens", "0.859"),
    ("0.5.21", 32_607, 4, 1, "tokens", "0.758"),
    # tp 1 x pp 4 in the tier (batch by tp: 48): 512 + 6,144 + 96 + 512 = 7,264: 17,300 / 24,564
    ("0.5.21", 24_564, 1, 4, None, "0.704"),
    # tp 3 just under 35 GiB: 512 + 6,144 + 96 + 384 = 7,136: 28,703 / 35,839 = 0.80089
    ("0.5.21", 35_839, 3, 1, None, "0.801"),
])
def test_fraction_of_the_20_35_gib_tier_by_series(version: str, gpu_mib: int, tp: int, pp: int,
                                                  graphs: str | None, fraction: str) -> None:
    assert default_fraction(tp, version, gpu_mib, pp, prefill_graphs=graphs) == Fraction(fraction)


def test_046_reserves_13_gib_above_80_gib_and_reads_tp_alone() -> None:
    # up to 81,920 MiB the TP table by tp (not tp x pp): tp 4 -> 0.85, tp 1 x pp 4 -> 0.88
    assert default_fraction(4, "0.4.6", 81_920) == Fraction(85, 100)
    assert default_fraction(1, "0.4.6", 46_068, 4) == Fraction(88, 100)
    # above it (g - 13 x 1,024) / g, unrounded, whatever the TP
    assert default_fraction(1, "0.4.6", 81_921) == Fraction(81_921 - 13_312, 81_921)
    assert default_fraction(8, "0.4.6", 143_771) == Fraction(130_459, 143_771)  # 0.90741


def test_047_by_tp_times_pp_and_its_large_gpu_rules() -> None:
    # up to 81,920 MiB by tp x pp: 1 x 4 -> 0.85
    assert default_fraction(1, "0.4.7", 46_068, 4) == Fraction(85, 100)
    assert default_fraction(1, "0.4.7.post1", 24_564, 2) == Fraction(87, 100)
    # 81,920-98,304 MiB: 0.88 at any TP (H20)
    assert default_fraction(8, "0.4.7", 97_871) == Fraction(88, 100)
    # above 96 GiB: min(0.88 + 49,152 x 0.12 / g, (g - 18,432) / g); H200 tp 8:
    # 0.88 + 5,898.24 / 143,771 = 0.92103 vs 125,339 / 143,771 = 0.87180 -> the second
    assert default_fraction(8, "0.4.7", 143_771) == Fraction(125_339, 143_771)
    # above 180,000 MiB on CUDA: 0.79 (B200)
    assert default_fraction(1, "0.4.7", 183_359, vendor="nvidia") == Fraction(79, 100)
    # not on ROCm: MI300X 196,592: 0.88 + 5,898.24 / 196,592 = 0.91000 vs 178,160 / 196,592
    # = 0.90624 -> the second; MI325X 262,144: 0.88 + 0.0225 = 0.9025 vs 0.92969 -> the first
    assert default_fraction(1, "0.4.7", 196_592, vendor="amd") == Fraction(178_160, 196_592)
    assert default_fraction(1, "0.4.7", 262_144, vendor="amd") == Fraction(361, 400)
    # 0.4.8 has the reserved table instead: H200 tp 8 (12 + 4) x 1,024 = 16,384: 0.886
    assert default_fraction(8, "0.4.8", 143_771) == Fraction(886, 1000)


def _explain(*argv: str) -> tuple[dict[str, tuple[object, str]], dict[str, tuple[float, str]]]:
    res = CliRunner().invoke(app, ["explain", *argv, "--engine", "sglang", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: (s["value"], s["formula"]) for s in row["steps"]}
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    return record, steps


def test_explain_names_the_tier_and_its_source() -> None:
    record, steps = _explain("qwen3-4b", "--gpu", "rtx-4090", "--engine-version", "0.5.21")
    # RTX 4090 on 0.5.21 with prefill graphs (above): 0.704
    assert steps["mem_fraction_static"] == (0.704, (
        "SGLang 0.5.21 default for tp 1 on 24,564 MiB: 20-35 GiB (A10, 4090, 5090) tier of "
        "SGLang 0.5.20-0.5.23"))
    why = ("default: 20-35 GiB (A10, 4090, 5090) tier of SGLang 0.5.20-0.5.23 (0.5.20, 0.5.21, "
           "0.5.22, 0.5.23 wheels, arg_groups/memory_hook.py handle_gpu_memory_settings; sglang "
           "PR #37898)")
    assert record["engine.gpu_memory_utilization"] == (0.704, why)
    assert record["engine.max_num_batched_tokens"] == (4096, why)
    assert record["engine.cuda_graph_max_bs"] == (48, why)
    record, steps = _explain("qwen3-4b", "--gpu", "rtx-4090", "--engine-version", "0.5.19")
    assert steps["mem_fraction_static"][0] == 0.833
    assert record["engine.cuda_graph_max_bs"][0] == 24


def test_explain_keeps_what_the_record_states() -> None:
    record, _ = _explain("qwen3-4b", "--gpu", "rtx-4090", "--chunked-prefill-size", "2048",
                         "--memory-utilization", "0.8")
    assert record["engine.gpu_memory_utilization"] == (0.8, "--memory-utilization")
    assert record["engine.max_num_batched_tokens"] == (2048, "--chunked-prefill-size")
    assert "engine.cuda_graph_max_bs" not in record  # a stated fraction: the tier moves nothing
    # before 0.5.3 the tier's sizes do not enter the fraction: only the fraction is named
    record, steps = _explain("qwen3-4b", "--gpu", "h200", "--engine-version", "0.4.7")
    # H200 tp 1: min(0.88 + 5,898.24 / 143,771, 125,339 / 143,771 = 0.87180), 4 digits shown
    assert record["engine.gpu_memory_utilization"] == (0.8718, (
        "default: above 96 GiB tier of SGLang 0.4.7 (0.4.7 wheel, server_args.py __post_init__)"))
    assert "engine.cuda_graph_max_bs" not in record
