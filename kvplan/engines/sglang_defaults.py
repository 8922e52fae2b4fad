"""SGLang's defaults by GPU memory tier, per release series: mem_fraction_static,
chunked_prefill_size and the decode CUDA graphs' max batch size (cuda_graph_max_bs).

SGLang reads the GPU's total memory once at start (get_device_memory_capacity: nvidia-smi MiB on
CUDA) and picks these by tier where no flag states them. Read in the PyPI wheels'
sglang/srt/server_args.py (from 0.5.19 arg_groups/memory_hook.py handle_gpu_memory_settings);
g = that MiB figure, "par" = tp x pp:
- before 0.4.6 (not read; fit logs 14, 15, 21 and held-out 43, 50 agree with it): by TP alone,
  0.88 (tp 1), 0.87 (2), 0.85 (4), 0.81 (8), 0.79 (16); no tier.
- 0.4.6 (the 0.4.6 wheel): the same TP table up to 81,920 MiB, above it (g - 13 GiB) / g
  (unrounded); chunked_prefill_size 2,048 under 25,000 MiB, else 8,192; cuda_graph_max_bs 8
  (tp < 4) or 80 under 25,000 MiB, else the graph runner's own.
- 0.4.7 (the 0.4.7 wheel; 0.4.8 has the next rule): the TP table by tp x pp up to 81,920 MiB,
  else 0.88; then 0.79 above 180,000 MiB on CUDA, else above 96 GiB
  min(f + 48 GiB x (1 - f) / g, (g - 18 GiB) / g) (unrounded); chunked_prefill_size 16,384 above
  180,000 MiB, 2,048 under 25,000, else 8,192; cuda_graph_max_bs as in 0.4.6.
- 0.4.8-0.5.2 (the 0.4.8, 0.4.9, 0.4.10, 0.5.0rc0 and 0.5.1 wheels): round((g - reserved) / g, 3),
  reserved (2.8 + par/10) GiB under 35 GiB, (9.5 + par/2) under 90, (12 + par/2) under 160, else
  32 GiB; chunked_prefill_size 2,048 under 35 GiB, 8,192 under 160, else 16,384;
  cuda_graph_max_bs 8 (tp < 4) or 80 under 35 GiB.
- 0.5.3 on (sglang PR #10975): chunked_prefill_size and cuda_graph_max_bs by tier (tp < 4 /
  tp >= 4): under 20 GiB 2,048 and 8; 20-35 GiB 2,048 and 16 / 80 in 0.5.3-0.5.4, 24 / 80 in
  0.5.5-0.5.19 (the 0.5.5, 0.5.8, 0.5.12, 0.5.16, 0.5.17 and 0.5.19 wheels), 4,096 and 48 / 160
  from 0.5.20 (sglang PR #37898, merged 2026-09-04; the 0.5.20, 0.5.21, 0.5.22 and 0.5.23
  wheels, memory_hook.py:100-116 in 0.5.21, :101-117 in 0.5.22 and 0.5.23); 35-60 GiB
  4,096 and 32 / 160; 60-90 and 90-160 GiB 8,192 and 256 / 512; 160 GiB on 16,384 and 512.
  The fraction is round((g - reserved) / g, 3), reserved = 512 + 1.5 x max(chunk, 2,048)
  + 2 x cuda_graph_max_bs + par/8 x 1,024 MiB (+ the prefill CUDA graphs' reserve from 0.5.16),
  at least 10 GiB above 60 GiB; a stated chunk or batch size replaces the tier's.
- 0.5.22 on (the 0.5.22 and 0.5.23 wheels, memory_hook.py:182-188): a tier's decode batch size
  (not a stated --cuda-graph-max-bs) is capped at a stated --max-running-requests before the
  reserve is computed (reserve_for_graph_mb: 2 MiB per slot, :368 in 0.5.23); 0.5.21 has no cap.
- speculative decoding adds to the reserve from 0.4.8 to 0.5.13 (kvplan.engines.sglang_spec).
Not modelled: the Ascend NPU tiers of some 0.5 releases (is_npu: no NPU in the catalog), the
extra reserve of DP attention and DeepEP, and the multimodal adjustment.
max_running_requests has no GPU tier in any release read: SGLang derives it from the pool
(model_runner / pool_configurator), and kvplan caps users only where it is stated.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kvplan.engines.interface import parse_version

# The newest release on PyPI (`pip index versions sglang`: 0.5.23), read in its wheel with 0.5.22
# (task h41sgl523); 0.5.21 was the default before (lmsysorg/sglang:v0.5.21 in public material).
DEFAULT_VERSION = "0.5.23"
TP_TABLE_UP_TO = 81_920  # MiB: 0.4.6 and 0.4.7 keep the TP table up to this size
FRACTION_BY_GPU_FROM = (0, 4, 6)
FRACTION_TP_PP_FROM = (0, 4, 7)
RESERVED_TABLE_FROM = (0, 4, 8)
RESERVED_FORMULA_FROM = (0, 5, 3)  # sglang PR #10975 (merged 2025-09-27)
TIER_24_FROM = (0, 5, 5)  # the 20-35 GiB tier's decode batch 16 -> 24
TIER_48_FROM = (0, 5, 20)  # sglang PR #37898: 20-35 GiB tier chunk 4,096, batch 48 / 160
# A tier's decode batch size capped at a stated --max-running-requests (memory_hook.py:182-188 in
# the 0.5.22 and 0.5.23 wheels; absent in 0.5.21)
GRAPH_BS_RUNNING_CAP_FROM = (0, 5, 22)
PREFILL_GRAPHS_FROM = (0, 5, 16)
PREFILL_GRAPH_MIB = 8
PREFILL_GRAPHS_MLA_MIB = 1536

_SRC_OLD = "server_args.py __post_init__"
_SRC_05 = "server_args.py _handle_gpu_memory_settings"
_SRC_0519 = "arg_groups/memory_hook.py handle_gpu_memory_settings"


@dataclass(frozen=True)
class Tier:
    """One row of a release series' GPU-memory table, as SGLang's source names it."""

    series: str  # the releases that share the table, e.g. "0.5.20-0.5.23"
    name: str  # the memory range and SGLang's own examples, e.g. "20-35 GiB (A10, 4090, 5090)"
    chunked_prefill_size: int | None  # None: not set by the tier
    cuda_graph_max_bs: int | None  # decode graphs; None: the graph runner's own default
    source: str  # the wheels read and the function

    def short(self) -> str:
        """What an explain step's formula names: the tier and its release series."""
        if self.chunked_prefill_size is None and self.cuda_graph_max_bs is None and \
                self.series.startswith("before"):
            return f"by TP alone (releases {self.series})"
        return f"{self.name} tier of SGLang {self.series}"

    def describe(self, chunk: int | None = None, graph_bs: int | None = None) -> str:
        """The tier, its sizes (a stated `chunk` / `graph_bs` named beside the tier's) and
        where it was read."""
        sizes = []
        for name, tier_value, stated in (("chunked_prefill_size", self.chunked_prefill_size, chunk),
                                         ("cuda_graph_max_bs", self.cuda_graph_max_bs, graph_bs)):
            if stated:
                sizes.append(f"{name} {stated:,} stated" + (
                    f" (the tier's {tier_value:,})" if tier_value is not None else ""))
            elif tier_value is not None:
                sizes.append(f"{name} {tier_value:,}")
        return (self.short()
                + (f": {', '.join(sizes)}" if sizes else "") + f" ({self.source})")


def _v(version: str | None) -> tuple[int, ...]:
    return parse_version(version or DEFAULT_VERSION) or ()


def gpu_tier(version: str | None, gpu_mem_mib: int | None, tp: int = 1,
             vendor: str | None = None) -> Tier | None:
    """The tier SGLang `version` puts a GPU of `gpu_mem_mib` (nvidia-smi MiB) in; None when the
    size is unknown."""
    if gpu_mem_mib is None:
        return None
    ver, g, small = _v(version), gpu_mem_mib, tp < 4
    if ver < FRACTION_BY_GPU_FROM:
        return Tier("before 0.4.6", "any size (mem_fraction_static by TP alone)", None, None,
                    "releases before 0.4.6 not read; fits logs 14, 15, 21, 43, 50")
    if ver < RESERVED_TABLE_FROM:
        cuda = (vendor or "nvidia").lower() != "amd"
        series, src = ("0.4.6", "0.4.6 wheel") if ver < FRACTION_TP_PP_FROM else (
            "0.4.7", "0.4.7 wheel")
        graph = (8 if small else 80) if g < 25_000 else None
        if ver >= FRACTION_TP_PP_FROM and g > 180_000:
            name = "above 180,000 MiB (CUDA)" if cuda else "above 96 GiB (ROCm: no 180,000 MiB rule)"
            return Tier(series, name, 16_384, graph, f"{src}, {_SRC_OLD}")
        if g < 25_000:
            name = "under 25,000 MiB"
        elif g <= TP_TABLE_UP_TO:
            name = "25,000 MiB-80 GiB"
        elif ver >= FRACTION_TP_PP_FROM and g > 96 * 1024:
            name = "above 96 GiB"
        else:
            name = "above 80 GiB"
        return Tier(series, name, 2048 if g < 25_000 else 8192, graph, f"{src}, {_SRC_OLD}")
    if ver < RESERVED_FORMULA_FROM:
        src = f"0.4.8, 0.4.9, 0.4.10, 0.5.0rc0, 0.5.1 wheels, {_SRC_OLD}"
        graph = (8 if small else 80) if g < 35 * 1024 else None
        for below, name, chunk in ((20, "under 20 GiB (T4, 4080)", 2048),
                                   (35, "20-35 GiB (A10, L40, 4090, 5090)", 2048),
                                   (90, "35-90 GiB (H100, A100)", 8192),
                                   (100, "90-100 GiB (H20)", 8192),
                                   (160, "100-160 GiB (H200)", 8192)):
            if g < below * 1024:
                return Tier("0.4.8-0.5.2", name, chunk, graph, src)
        return Tier("0.4.8-0.5.2", "160 GiB and over (B200, MI300)", 16_384, graph, src)
    if ver < TIER_24_FROM:
        series, src, mid = "0.5.3-0.5.4", f"0.5.3, 0.5.4 wheels, {_SRC_05}", (2048, 16, 80)
    elif ver < TIER_48_FROM:
        series, src, mid = ("0.5.5-0.5.19", "0.5.5, 0.5.8, 0.5.12, 0.5.16, 0.5.17, 0.5.19 wheels, "
                            f"{_SRC_05} ({_SRC_0519} in 0.5.19)", (2048, 24, 80))
    else:
        series, src, mid = ("0.5.20-0.5.23", f"0.5.20, 0.5.21, 0.5.22, 0.5.23 wheels, {_SRC_0519}; "
                            "sglang PR #37898", (4096, 48, 160))
    rows = ((20, "under 20 GiB (T4, 4080)", (2048, 8, 8)),
            (35, "20-35 GiB (A10, 4090, 5090)", mid),
            (60, "35-60 GiB (A100 40GB, L40)", (4096, 32, 160)),
            (90, "60-90 GiB (H100, A100)", (8192, 256, 512)),
            (160, "90-160 GiB (H20, H200)", (8192, 256, 512)))
    for below, name, (chunk, bs_small, bs_big) in rows:
        if g < below * 1024:
            return Tier(series, name, chunk, bs_small if small else bs_big, src)
    return Tier(series, "160 GiB and over (B200, MI300)", 16_384, 512, src)


def decode_graph_bs(version: str | None, tier: Tier | None, stated: int | None,
                    max_running_requests: int | None) -> tuple[int, bool]:
    """The decode CUDA graphs' max batch size the reserve is built from, and whether a stated
    --max-running-requests capped it: a stated --cuda-graph-max-bs as given, else the tier's,
    capped from 0.5.22 (GRAPH_BS_RUNNING_CAP_FROM) at a smaller max_running_requests."""
    if stated:
        return stated, False
    bs = (tier.cuda_graph_max_bs if tier else None) or 0
    if (max_running_requests and bs > max_running_requests
            and _v(version) >= GRAPH_BS_RUNNING_CAP_FROM):
        return max_running_requests, True
    return bs, False


def _tp_table(par: int) -> Fraction:
    for at_least, frac in ((16, 79), (8, 81), (4, 85), (2, 87)):
        if par >= at_least:
            return Fraction(frac, 100)
    return Fraction(88, 100)


def prefill_graph_sizes(max_bs: int) -> int:
    """How many prefill CUDA-graph sizes SGLang captures up to max_bs tokens
    (generate_prefill_cuda_graph_batch_sizes: 4..32 by 4, 48..256 by 16, 288..512 by 32,
    576..1024 by 64, 1280..4096 by 256, then 4608 on by 512)."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256))
             + list(range(4608, max_bs + 1, 512)))
    return sum(1 for size in sizes if size <= max_bs)


def default_fraction(tp: int, version: str | None = None, gpu_mem_mib: int | None = None,
                     pp: int = 1, chunked_prefill_size: int | None = None,
                     cuda_graph_max_bs: int | None = None, prefill_graphs: str | None = None,
                     max_total_tokens: int | None = None,
                     vendor: str | None = None,
                     max_running_requests: int | None = None,
                     spec_reserve_mib: int = 0) -> Fraction:
    """mem_fraction_static when not given, as that SGLang release computes it (module
    docstring); without the GPU's size, the TP table.

    From 0.5.3 on (sglang PR #10975), a stated --chunked-prefill-size / --cuda-graph-max-bs
    replaces the value the GPU's tier would pick in the reserved-memory formula.
    `prefill_graphs` ("tokens" or "mla", from sglang_backend.prefill_graphs()) adds the prefill
    CUDA-graph reserve before the 10 GiB floor, as reserve_for_graph_mb does (0.5.16 on).
    `vendor` "amd" is not CUDA (0.4.7's 180,000 MiB rule). A stated `max_running_requests`
    caps the tier's decode batch size from 0.5.22 (decode_graph_bs). `spec_reserve_mib`
    (kvplan.engines.sglang_spec.reserve_mib: speculative decoding, 0.4.8-0.5.13) is added to the
    reserve, after the 10 GiB floor from 0.5.3.
    """
    ver = _v(version)
    tier = gpu_tier(version, gpu_mem_mib, tp, vendor)
    if ver < FRACTION_BY_GPU_FROM or gpu_mem_mib is None or tier is None:
        return _tp_table(tp)
    par, g = tp * pp, gpu_mem_mib
    if ver < FRACTION_TP_PP_FROM:  # 0.4.6: tp alone up to 80 GiB, else 13 GiB reserved
        return _tp_table(tp) if g <= TP_TABLE_UP_TO else Fraction(g - 13 * 1024, g)
    if ver < RESERVED_TABLE_FROM:  # 0.4.7
        frac = _tp_table(par) if g <= TP_TABLE_UP_TO else Fraction(88, 100)
        if g > 180_000 and (vendor or "nvidia").lower() != "amd":
            return Fraction(79, 100)
        if g > 96 * 1024:
            return min(frac + Fraction(48 * 1024) * (1 - frac) / g, Fraction(g - 18 * 1024, g))
        return frac
    if ver < RESERVED_FORMULA_FROM:
        if g < 35 * 1024:
            reserved = (Fraction(28, 10) + Fraction(par, 10)) * 1024
        elif g < 90 * 1024:
            reserved = (Fraction(95, 10) + Fraction(par, 2)) * 1024
        elif g < 160 * 1024:
            reserved = (12 + Fraction(par, 2)) * 1024
        else:
            reserved = Fraction(32 * 1024)
        reserved += spec_reserve_mib
    else:
        chunk = chunked_prefill_size or tier.chunked_prefill_size or 0
        graph_bs, _ = decode_graph_bs(version, tier, cuda_graph_max_bs, max_running_requests)
        reserved = 512 + Fraction(3, 2) * max(chunk, 2048) + graph_bs * 2 + Fraction(par, 8) * 1024
        graphs = prefill_graphs if ver >= PREFILL_GRAPHS_FROM else None
        if graphs == "mla":
            reserved += PREFILL_GRAPHS_MLA_MIB
        elif graphs == "tokens":
            max_bs = min(chunk, max_total_tokens) if max_total_tokens else chunk
            reserved += PREFILL_GRAPH_MIB * prefill_graph_sizes(max_bs)
        if g > 60 * 1024:
            reserved = max(reserved, Fraction(10 * 1024))
        reserved += spec_reserve_mib
    return Fraction(round((g - reserved) / g, 3)).limit_denominator(1000)
