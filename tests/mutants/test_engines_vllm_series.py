"""vLLM's release series one at a time (vllm_series): which accounting each version string
selects, the serve defaults at their boundaries, MLA block sizes and the MXFP4 kernel by GPU.
Expected values come from vLLM's own rules as the module's docstrings quote them, worked by hand.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm_series.py
(split from test_engines_vllm_parts.py, which keeps the non-torch term and the KV-cache groups;
test_engines_vllm_flags.py holds the flags that move weights and cache).
"""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_series import (
    BIG_GPU_BYTES,
    SERIES,
    batching_defaults,
    flavour,
    mla_block_size,
    mxfp4_kernel,
    series_of,
)
from kvplan.units import GIB


@pytest.mark.parametrize(("version", "v1", "graphs", "grouped", "wide", "dense", "all_", "series"), [
    ("0.7.3", False, False, False, False, False, False, "0.6.4-0.7 (V0)"),
    ("0.6.3", False, False, False, False, False, False, "0.5.3-0.6.3 (V0)"),
    ("0.5.5", False, False, False, False, False, False, "0.5.3-0.6.3 (V0)"),
    ("0.5.2", False, False, False, False, False, False, "0.3.1-0.5.2 (V0)"),
    ("0.3.0", False, False, False, False, False, False, "0.2.6-0.3.0 (V0)"),
    ("0.2.5", False, False, False, False, False, False, "0.2.5 (V0)"),
    ("0.2.4", False, False, False, False, False, False, "0.1-0.2.4 (V0)"),
    ("0.8.0", True, False, False, False, False, False, "0.8 (V1 default)"),
    ("0.8.5", True, False, False, False, False, False, "0.8 (V1 default)"),
    ("0.9.0", True, False, True, False, False, False, "0.9"),
    ("0.10.0", True, False, True, True, False, False, "0.10"),
    ("0.20.9", True, False, True, True, False, False, "0.11-0.20"),
    ("0.21.0", True, True, True, True, False, False, "0.21-0.24"),
    ("0.24.9", True, True, True, True, False, False, "0.21-0.24"),
    ("0.25.0", True, True, True, True, True, False, "0.25-0.28"),
    ("0.27.9", True, True, True, True, True, False, "0.25-0.28"),
    ("0.28.0", True, True, True, True, True, False, "0.25-0.28"),
    ("0.29.0", True, True, True, True, True, True, "0.29-0.31"),
    ("v0.31.0", True, True, True, True, True, True, "0.29-0.31"),
])
def test_each_version_selects_its_series(version: str, v1: bool, graphs: bool, grouped: bool,
                                         wide: bool, dense: bool, all_: bool, series: str):
    fl = flavour(version)
    assert (fl.version, fl.v1, fl.graphs_subtracted, fl.grouped_tokens, fl.wide_groups,
            fl.mrv2_dense, fl.mrv2_all, fl.series, fl.note) == (
        version, v1, graphs, grouped, wide, dense, all_, series, None)


def test_the_default_version_and_a_newer_one():
    assert flavour(None).version == "0.34.0" and flavour(None).note is None
    assert flavour("0.31.9").note is None  # the same 0.29-0.31 series
    assert flavour("0.33.9").note is None  # the same 0.33 series
    assert flavour("0.34.9").note is None  # the same 0.34 series
    fl = flavour("0.35.1")
    assert fl.note == ("vLLM 0.35.1 is newer than the newest modelled release (0.34.0): "
                       "modelled as the 0.34 series")
    assert fl.series == "0.34" and fl.mrv2_all and fl.sampler_warmup and not fl.sharded_sampling
    assert fl.extensible_kv and not flavour("0.33.9").extensible_kv
    gap = flavour("0.32.1")  # between read releases, not read itself
    assert gap.note == ("vLLM 0.32.1: this release's source was not read; modelled as the "
                        "0.29-0.31 series")
    assert gap.series == "0.29-0.31" and gap.sharded_sampling and not gap.sampler_warmup
    assert not flavour("0.28.0").sharded_sampling and not flavour("0.33.0-v0").sampler_warmup


@pytest.mark.parametrize(("version", "series"), [
    ("0.8.5-v0", "0.8 (V1 default) (V0 forced)"), ("0.10.1:V0", "0.10 (V0 forced)"),
    ("0.9.2+v0", "0.9 (V0 forced)"), ("0.29.0-V0", "0.29-0.31 (V0 forced)")])
def test_a_v0_suffix_forces_the_v0_engine(version: str, series: str):
    fl = flavour(version)
    assert (fl.v1, fl.graphs_subtracted, fl.mrv2_dense, fl.mrv2_all) == (False,) * 4
    assert fl.series == series


def test_lean_sampler_and_the_mxfp4_kernel_default():
    assert (flavour("0.24.1").lean_sampler(False), flavour("0.25.0").lean_sampler(False),
            flavour("0.28.0").lean_sampler(True), flavour("0.29.0").lean_sampler(True)) == (
        False, True, False, True)
    # 0.25-0.28 (config/vllm.py _is_default_v2_model_runner_model): listed MoE architectures
    # run Model Runner V2, hybrid (mamba-style) models do not; 0.29 runs every model on it
    assert [flavour("0.25.0").lean_sampler(True, t) for t in (
        "deepseek_v2", "qwen2_moe", "granitemoe", "qwen3_moe", "deepseek_v3")] == [
        True, True, True, False, False]
    assert (flavour("0.28.0").lean_sampler(False, "qwen3_next", hybrid=True),
            flavour("0.24.1").lean_sampler(True, "deepseek_v3"),
            flavour("0.29.0").lean_sampler(False, "", hybrid=True)) == (False, False, True)
    # 0.22-0.24 run only the listed architectures (task h30v1miss, read in the wheels): 0.22
    # Qwen3 dense and unquantized, 0.23 adds Llama and Mistral, 0.24 any listed model
    assert [flavour("0.22.0").lean_sampler(False, t) for t in ("qwen3", "llama", "qwen2")] == [
        True, False, False]
    assert (flavour("0.22.0").lean_sampler(False, "qwen3", quantized=True),
            flavour("0.23.0").lean_sampler(False, "llama"),
            flavour("0.23.0").lean_sampler(False, "mistral", quantized=True),
            flavour("0.24.1").lean_sampler(True, "deepseek_v2"),
            flavour("0.24.0").lean_sampler(False, "llama", quantized=True),
            flavour("0.21.0").lean_sampler(False, "qwen3")) == (
        False, True, False, True, True, False)
    assert flavour("0.10.2").mxfp4_kernel_default == "marlin"


def test_series_of_below_the_first_and_at_each_start():
    assert series_of((0, 1, 9)) is SERIES[0]
    for s in SERIES:
        assert series_of(s.first) is s


@pytest.mark.parametrize(("memory", "gpu", "expected"), [
    (BIG_GPU_BYTES, "h100-sxm-80gb", (8192, 1024)),  # exactly 70 GiB counts as big
    (BIG_GPU_BYTES - 1, "h100-sxm-80gb", (2048, 256)),
    (80 * GIB, "NVIDIA A100-SXM4-80GB", (2048, 256)),  # the A100 exception, any case
    (80 * GIB, "a100-80gb", (2048, 256)),
])
def test_v1_batching_defaults_at_70_gib(memory: int, gpu: str, expected: tuple[int, int]):
    assert batching_defaults(8192, gpu, flavour("0.10.2"), memory) == expected


@pytest.mark.parametrize(("context", "batched"), [
    (1000, 2048), (2048, 2048), (4096, 4096), (32768, 32768), (32769, 2048)])
def test_v0_batching_defaults_by_context(context: int, batched: int):
    # V0: max(max_model_len, 2048) tokens, 2048 with chunked prefill above 32,768 (from 0.6.5;
    # 0.5.3-0.6.4 took 512, kvplan.engines.vllm_v0_early); 256 sequences
    assert batching_defaults(context, "h100-sxm-80gb", flavour("0.6.5"), 80 * GIB) == (
        batched, 256)
    early = 512 if context > 32768 else batched
    assert batching_defaults(context, "h100-sxm-80gb", flavour("0.6.4"), 80 * GIB) == (
        early, 256)


@pytest.mark.parametrize(("gpu", "block", "v1", "expected"), [
    ("h100-sxm-80gb", 16, True, 64),  # FlashMLA on Hopper
    ("h20", 16, True, 64),
    ("gh200", 32, True, 64),
    ("b200", 16, True, 128),  # CUTLASS MLA on Blackwell
    ("GB300", 16, True, 128),
    ("a100-80gb", 16, True, 16),  # neither: as given
    ("h100-sxm-80gb", 64, True, 64),  # a multiple of 64 stays
    ("b200", 64, True, 64),
    ("h100-sxm-80gb", 128, True, 128),
    ("h100-sxm-80gb", 16, False, 16),  # V0 does not raise it
])
def test_mla_block_sizes(gpu: str, block: int, v1: bool, expected: int):
    assert mla_block_size(gpu, block, v1) == expected


def test_mxfp4_kernels_by_gpu():
    # Hopper: Marlin as the 0.10.1-0.11.2 wheels install (no triton_kernels), the Triton layout
    # from 0.12 (task h56mxfp4; by release in tests/engines/test_mxfp4_hopper.py)
    gpus = ("B200", "gb200", "b300", "h100-sxm-80gb", "a100-80gb")
    assert [mxfp4_kernel(g, "0.11.2") for g in gpus] == [
        "flashinfer-sm100", "flashinfer-sm100", "flashinfer-sm100", "marlin", "marlin"]
    assert [mxfp4_kernel(g) for g in gpus] == [
        "flashinfer-sm100", "flashinfer-sm100", "flashinfer-sm100", "triton-sm90-k4", "marlin"]

