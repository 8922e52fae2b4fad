"""vLLM's pieces one at a time: which accounting each version string selects (vllm_series), the
serve defaults at their boundaries, MLA block sizes, the non-torch term by series, GPU and TP
(vllm_nontorch), KV-cache groups and the blocks a request takes, the largest length that starts,
and the flags that move weights and cache (vllm_flags). Expected values come from vLLM's own
rules as the modules' docstrings quote them, worked by hand.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm*.py.
"""

from __future__ import annotations

import pytest
from engine_runs import rotary_words

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.common import LayerShape
from kvplan.engines.interface import Interval
from kvplan.engines.vllm import Groups, _largest_len, _tokens, blocks_per_request, kv_groups, stage_layers
from kvplan.engines.vllm_flags import draft_block_bytes, flag_notes, weights_for
from kvplan.engines.vllm_nontorch import non_torch, nvlink_module
from kvplan.engines.vllm_series import (
    BIG_GPU_BYTES,
    SERIES,
    batching_defaults,
    flavour,
    mla_block_size,
    mxfp4_kernel,
    series_of,
)
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model

GIB = 1 << 30
MIB = 1 << 20


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
    assert [mxfp4_kernel(g) for g in ("B200", "gb200", "b300", "h100-sxm-80gb", "a100-80gb")] == [
        "flashinfer-sm100", "flashinfer-sm100", "flashinfer-sm100", "marlin", "marlin"]


@pytest.mark.parametrize(("label", "names", "expected"), [
    ("NVIDIA H100 SXM5 80GB", (), True),
    ("NVIDIA H100 PCIe 80GB", ("NVIDIA H100 PCIe",), False),
    ("an accelerator", ("NVIDIA A100-sxm4-80GB",), True),  # device names count, any case
    ("NVIDIA B200 (HGX/DGX B200, 180GB HBM3e)", (), True),
    ("GB200 NVL72", (), True),
    ("NVIDIA L40S 48GB", ("NVIDIA L40S",), False),
])
def test_nvlink_modules(label: str, names: tuple[str, ...], expected: bool):
    assert nvlink_module(label, names) is expected


@pytest.mark.parametrize(("version", "tp", "nvlink", "best", "low", "high", "how"), [
    ("0.10.2", 1, False, 70 * MIB, 20 * MIB, GIB // 2, "growth after start-up"),
    ("0.10.2", 1, True, 70 * MIB, 20 * MIB, GIB // 2, "growth after start-up"),
    ("0.10.2", 2, False, GIB, 20 * MIB, 2 * GIB, "growth after start-up with TP buffers (range: "
     "the transport NCCL picks, P2P over PCIe with buffers on the GPU, or host memory without "
     "P2P or across nodes, is not stated: give --tp-transport)"),
    ("0.10.2", 2, True, GIB * 208 // 100, 3 * GIB // 2, 5 * GIB // 2,
     "growth after start-up with NVLink TP workspaces (NCCL, FlashInfer all-reduce, custom "
     "all-reduce; transport not stated: an NVLink module by the GPU label)"),
    # V0 0.3.1-0.6.3 measured init free - free (growth); 0.2.5-0.3.0 total - free (the CUDA
    # context); 0.2.4 and earlier torch's allocated peak (no non-torch memory at all)
    ("0.6.3", 1, False, 70 * MIB, 20 * MIB, GIB // 2,
     "growth after start-up (V0 0.3.1-0.6.3: init free - free)"),
    ("0.3.1", 1, False, 70 * MIB, 20 * MIB, GIB // 2,
     "growth after start-up (V0 0.3.1-0.6.3: init free - free)"),
    ("0.6.3", 2, True, GIB // 2, GIB // 4, 4 * GIB, "CUDA context + NCCL with TP buffers"),
    ("0.3.0", 1, False, 350 * MIB, 200 * MIB, 600 * MIB, "CUDA context + NCCL"),
    ("0.2.5", 4, True, GIB // 2, GIB // 4, 4 * GIB, "CUDA context + NCCL with TP buffers"),
    ("0.2.4", 1, False, 0, 0, 0,
     "none booked (vLLM < 0.2.5 profiles torch.cuda.max_memory_allocated)"),
    ("0.2.4", 4, True, 0, 0, 0,
     "none booked (vLLM < 0.2.5 profiles torch.cuda.max_memory_allocated)"),
    # V0 from 0.6.5 books growth over a start-up baseline (V1's one-GPU term); with TP, V1's TP
    # term by transport, the baseline being taken before the TP groups (0.7.2 worker.py, task
    # h30v0; 0.6.5-0.6.6 init_gpu_memory, worker.py :143/:148, task h39v066); 0.6.4.x the whole
    # device
    ("0.6.4.post1", 1, False, 350 * MIB, 200 * MIB, 600 * MIB, "CUDA context + NCCL"),
    ("0.6.6", 1, False, 70 * MIB, 20 * MIB, GIB // 2,
     "growth after start-up (V0 from 0.6.5: start-up baseline)"),
    ("0.7.1", 1, False, 70 * MIB, 20 * MIB, GIB // 2,
     "growth after start-up (V0 from 0.6.5: start-up baseline)"),
    ("0.8.2-v0", 1, False, 70 * MIB, 20 * MIB, GIB // 2,
     "growth after start-up (V0 from 0.6.5: start-up baseline)"),
    ("0.8.2-v0", 2, False, GIB, 20 * MIB, 2 * GIB,
     "growth after start-up (V0 from 0.6.5: start-up baseline before the TP groups) with TP "
     "buffers (range: the transport NCCL picks, P2P over PCIe with buffers on the GPU, or host "
     "memory without P2P or across nodes, is not stated: give --tp-transport)"),
    ("0.7.1", 2, True, GIB * 208 // 100, 3 * GIB // 2, 5 * GIB // 2,
     "growth after start-up (V0 from 0.6.5: start-up baseline before the TP groups) with "
     "NVLink TP workspaces (NCCL, FlashInfer all-reduce, custom all-reduce; transport not stated: "
     "an NVLink module by the GPU label)"),
    ("0.6.4", 2, False, GIB // 2, GIB // 4, 4 * GIB, "CUDA context + NCCL with TP buffers"),
    ("0.6.6", 2, False, GIB, 20 * MIB, 2 * GIB,
     "growth after start-up (V0 from 0.6.5: start-up baseline before the TP groups) with TP "
     "buffers (range: the transport NCCL picks, P2P over PCIe with buffers on the GPU, or host "
     "memory without P2P or across nodes, is not stated: give --tp-transport)"),
])
def test_non_torch_by_series_tp_and_interconnect(version: str, tp: int, nvlink: bool, best: int,
                                                  low: int, high: int, how: str):
    assert non_torch(flavour(version), tp, 10 * GIB, False, nvlink) == (
        Interval(best, low, high), how)


@pytest.mark.parametrize(("version", "quantized", "repack"), [
    ("0.6.4", True, True), ("0.6.4.post1", True, True), ("0.6.3.post1", True, False),
    ("0.6.5", True, False), ("0.6.4", False, False), ("0.6.4-v0", True, True)])
def test_the_064_repack_cache_of_quantized_weights(version: str, quantized: bool, repack: bool):
    nt, how = non_torch(flavour(version), 1, 10 * GIB, quantized)
    if repack:
        # 10 GiB x (0.097, 0, 0.15): int(1,041,529,569.28), 0, int(1,610,612,736)
        assert nt == Interval(350 * MIB + 1_041_529_569, 200 * MIB, 600 * MIB + 1_610_612_736)
        assert how == "CUDA context + NCCL + quantized-weight repack cache (vLLM 0.6.4)"
    elif version.startswith("0.6.3"):  # init free - free: growth only, no repack cache
        assert (nt, how) == (Interval(70 * MIB, 20 * MIB, GIB // 2),
                             "growth after start-up (V0 0.3.1-0.6.3: init free - free)")
    elif version == "0.6.5":  # growth over init_gpu_memory (task h39v066), no repack cache
        assert (nt, how) == (Interval(70 * MIB, 20 * MIB, GIB // 2),
                             "growth after start-up (V0 from 0.6.5: start-up baseline)")
    else:
        assert (nt, how) == (Interval(350 * MIB, 200 * MIB, 600 * MIB), "CUDA context + NCCL")


def _shape(full: int, sliding: int, window: int | None = 512, linear: int = 0) -> LayerShape:
    return LayerShape(full, sliding, linear, 4096, window)


@pytest.mark.parametrize(("full", "sliding", "v1", "groups"), [
    (4, 22, False, Groups(26, 1, 0)),  # V0: one group of every layer
    (32, 0, True, Groups(32, 1, 0)),  # uniform full
    (0, 32, True, Groups(32, 0, 1)),  # uniform sliding
    (0, 32, False, Groups(32, 0, 1)),
    (4, 22, True, Groups(4, 1, 6)),  # 22 >= 6: groups of 4
])
def test_kv_groups_outside_the_hybrid_rule(full: int, sliding: int, v1: bool, groups: Groups):
    assert kv_groups(_shape(full, sliding), v1) == groups


def test_kv_groups_without_the_wide_rule_and_their_padding():
    # 12 full + 13 sliding: 13 < 18 takes 13 (2 groups, 1 padding layer) only with the 1.5x rule
    assert kv_groups(_shape(12, 13), True) == Groups(13, 1, 1)
    assert kv_groups(_shape(12, 13), True, wide=False) == Groups(12, 1, 2)
    assert Groups(12, 1, 2).count == 3 and Groups(12, 1, 2).padding_layers == 36
    assert Groups(13, 1, 1).padding_layers == 26


def test_blocks_per_request_by_series_and_layer_kind():
    hybrid, g = _shape(4, 22), Groups(4, 1, 6)
    # V1: full ceil(8,192 / 16) = 512; sliding ceil(min(511 + 2,048, 8,192) / 16) + 1 = 161
    assert blocks_per_request(hybrid, g, 8192, 16, 2048, True) == 512 + 6 * 161
    # a short request holds its length in the sliding layers too: ceil(100 / 16) + 1 = 8
    assert blocks_per_request(hybrid, g, 100, 16, 2048, True) == 7 + 6 * 8
    # V0: one group holding every layer at the full length
    assert blocks_per_request(hybrid, Groups(26, 1, 0), 8192, 16, 2048, False) == 512
    # V1 without a window: full blocks times the groups
    assert blocks_per_request(_shape(32, 0, None), Groups(32, 1, 0), 8192, 16, 2048, True) == 512
    assert blocks_per_request(_shape(32, 0, None), Groups(16, 2, 0), 8192, 16, 2048, True) == 1024
    # all sliding (window 2,047): ceil(min(2,046 + 8,192, 4,096) / 16) + 1 = 257
    assert blocks_per_request(_shape(0, 32, 2047), Groups(32, 0, 1), 4096, 16, 8192, True) == 257
    # window 10, 1 batched token: ceil(min(10, 100) / 16) + 1 = 2 (min(9 + 1, 100) = 10)
    assert blocks_per_request(_shape(0, 4, 10), Groups(4, 0, 1), 100, 4, 1, True) == 4


def test_the_largest_length_that_starts():
    uniform, g = _shape(32, 0, None), Groups(32, 1, 0)
    bpb = 16 * 4096 * 32
    # 10 blocks of 16 tokens: the longest request holds 160 tokens
    assert _largest_len(uniform, g, 16, 2048, True, 10 * bpb, bpb, 100_000) == 160
    assert _largest_len(uniform, g, 16, 2048, True, 10 * bpb + bpb - 1, bpb, 100_000) == 160
    assert _largest_len(uniform, g, 16, 2048, True, 10 * bpb, bpb, 150) == 150  # the model's cap
    assert _largest_len(uniform, g, 16, 2048, True, 10 * bpb, bpb, 161) == 160
    assert _largest_len(uniform, g, 16, 2048, True, bpb - 1, bpb, 100_000) == 0  # no block
    assert _largest_len(uniform, g, 16, 2048, True, -5 * bpb, bpb, 100_000) == 0
    assert _largest_len(uniform, g, 16, 2048, True, 10 * bpb, 0, 100_000) == 0  # no block size
    # one token per block, one block: length 1
    assert _largest_len(uniform, g, 1, 2048, True, bpb, bpb, 100_000) == 1
    # hybrid: 3,014 blocks hold exactly one 32,768-token request (above); 3,013 do not
    hybrid, hg = _shape(4, 22), Groups(4, 1, 6)
    assert _largest_len(hybrid, hg, 16, 2048, True, 3014, 1, 32768) == 32768
    # 3,013 blocks: a full-layer block fewer: 2,047 x 16 = 32,752 tokens
    assert _largest_len(hybrid, hg, 16, 2048, True, 3013, 1, 32768) == 32752


def test_tokens_of_a_pool_by_groups():
    g = Groups(4, 1, 6)
    # 70 blocks // 7 groups x 16 = 160 tokens (V1, grouped); ungrouped 70 x 16
    assert _tokens(70 * 100, 100, g, 16, True) == 160
    assert _tokens(70 * 100 + 99, 100, g, 16, True) == 160
    assert _tokens(70 * 100, 100, g, 16, False) == 1120
    assert _tokens(-100, 100, g, 16, False) == 0


def test_stage_layers_leave_out_linear_attention():
    # Qwen3-Next: 48 layers, every 4th full attention, the rest linear (Gated DeltaNet); pp 3
    # splits them 16 / 16 / 16, each stage with 4 cached layers
    req = SizeRequest(model=load_model("qwen3-next-80b-a3b"), gpu=load_hardware("h100"),
                      context_tokens=4096, pp=3)
    assert stage_layers(req) == [4, 4, 4]
    # llama-3-8b's 32 layers at pp 3: 11, 11, 10 (get_pp_indices: the remainder before the last)
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=4096, pp=3)
    assert stage_layers(req) == [11, 11, 10]


def _req(model: str = "llama-3-8b", gpu: str = "h100", **kw: object) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=4096,
                       **kw)  # type: ignore[arg-type]


def test_weights_for_gpt_oss_mxfp4_by_kernel():
    # gpt-oss-20b on an H100: Marlin pads the expert intermediate 2,880 to 2,944 (x 128) and
    # hidden 2,880 to 3,072 (x 256): (3 x 2,944 x 3,072 = 27,131,904 weights) x 136 / 256 bits
    # = 14,413,824 B an expert, x 24 layers x 32 experts = 11,069,816,832; the bf16 rest
    # (20,914,757,184 - 24 x 32 x 3 x 2,880 x 2,880 = 1,804,459,584 params) x 2 B =
    # 3,608,919,168: 14,678,736,000; + the rotary cos/sin cache (task h39rope), YaRN 4,096 x 32 =
    # 131,072 positions x head_dim 64 x 4 B (gpt_oss.py asks for float32) = 33,554,432:
    # 14,712,290,432.
    rope = rotary_words("YaRN 4,096 x 32 = 131,072 positions x 64 x 4 B")
    weights, how = weights_for(_req("gpt-oss-20b"), EngineSettings(engine=Engine.vllm))
    assert (weights, how) == (14_712_290_432,
                              "gpt-oss MXFP4 experts padded for the marlin kernel + bf16 rest" + rope)
    # on a B200 FlashInfer pads both to 3,072: 28,311,552 x 136 / 256 = 15,040,512 an expert:
    # 768 x 15,040,512 + 3,608,919,168 = 15,160,032,384, + 33,554,432 = 15,193,586,816
    weights, how = weights_for(_req("gpt-oss-20b", "b200"), EngineSettings(engine=Engine.vllm))
    assert (weights, how) == (
        15_193_586_816,
        "gpt-oss MXFP4 experts padded for the flashinfer-sm100 kernel + bf16 rest" + rope)


def test_weights_for_measured_and_expert_parallel():
    s = EngineSettings(engine=Engine.vllm)
    assert weights_for(_req(), EngineSettings(engine=Engine.vllm, measured=__import__(
        "kvplan.engines", fromlist=["Measured"]).Measured(weights_bytes=123))) == (
        123, "measured (log)")
    # ep 2 at tp 1 on Qwen3-30B-A3B: experts / 2 on each GPU
    weights, how = weights_for(_req("qwen3-30b-a3b", ep=2), s)
    # the 16-bit router is whole on every GPU from vLLM 0.8.5 (task h38router): 48 x 128 x 2,048
    assert how == ("30,532,122,624 params x 16 bits / 1 GPU(s), the MoE router (12,582,912 params)"
                   " in 16 bits on every GPU, experts / 2 (expert parallelism)"
                   + rotary_words("40,960 positions x 128 x 2 B"))
    # expert params 48 x 128 x 3 x 2,048 x 768 = 28,991,029,248; half of them x 2 B saved:
    # 30,532,122,624 x 2 - 28,991,029,248 = 32,073,216,000; + the rotary cos/sin cache (task
    # h39rope) 40,960 x 128 x 2 B = 10,485,760: 32,083,701,760
    assert weights == 32_083_701_760
    # ep equal to tp: no expert parallelism in the description
    assert weights_for(_req("qwen3-30b-a3b", tp=2, ep=2), s)[1] == (
        "30,532,122,624 params x 16 bits / 2 GPU(s), the MoE router (12,582,912 params) in 16 bits"
        " on every GPU" + rotary_words("40,960 positions x 128 x 2 B"))


def test_cpu_offload_never_below_zero():
    s = EngineSettings(engine=Engine.vllm, cpu_offload_bytes=100 * GIB)
    weights, how = weights_for(_req(), s)
    assert weights == 0
    assert how == ("8,030,261,248 params x 16 bits / 1 GPU(s)" + rotary_words(
        "8,192 positions x 128 x 2 B") + " - 100.00 GiB offloaded to the CPU (--cpu-offload-gb)")


def test_draft_weights_split_over_tp():
    # 1,000,000,001 params x 2 B / 2 ranks, rounded up: 1,000,000,001; + the rotary cos/sin cache
    # (task h39rope) 8,192 x 128 x 2 B = 2,097,152 B, whole on each rank
    s = EngineSettings(engine=Engine.vllm, draft_params=1_000_000_001)
    assert weights_for(_req(tp=2), s)[0] == 8_030_261_248 + 1_000_000_001 + 2_097_152


def test_flag_notes():
    vl = _req("qwen2.5-vl-7b")
    assert flag_notes(vl, EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=0)) == [
        "limit_mm_per_prompt 0: the encoder's 676,550,144 parameters are in the weights; 0: vLLM "
        "skips the encoder profiling, no encoder cache"]
    with pytest.raises(InputError) as err:
        flag_notes(_req(), EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=1))
    assert str(err.value) == ("limit_mm_per_prompt applies to multimodal models; llama-3-8b has "
                              "no encoder (params_encoder); drop it")
    assert flag_notes(_req("qwen3-30b-a3b", tp=2, ep=8), EngineSettings(engine=Engine.vllm)) == [
        "expert parallelism 8: each GPU holds 1/8 of the experts (tp 2 x dp 4)"]
    assert flag_notes(_req("qwen3-30b-a3b", tp=2, ep=2), EngineSettings(engine=Engine.vllm)) == []


def test_a_vision_model_whose_item_size_is_unknown_is_noted_unless_text_only():
    model = load_model("qwen2.5-vl-7b").model_copy(update={"mm_tokens_per_item": None,
                                                           "name": "vl-test"})
    req = SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=4096)
    note = ("vl-test: the encoder cache vLLM profiles at start-up for image inputs is not "
            "modelled (the largest item's size in embeddings is not known for qwen2_5_vl); "
            "vLLM's --limit-mm-per-prompt 0 (text only) skips it")
    assert flag_notes(req, EngineSettings(engine=Engine.vllm)) == [note]
    assert note not in flag_notes(req, EngineSettings(engine=Engine.vllm, limit_mm_per_prompt=0))


def test_a_draft_model_beside_grouped_layers_or_one_tp_cannot_split_is_refused():
    draft = load_model("llama-3.2-1b")
    s = EngineSettings(engine=Engine.vllm, draft_model=draft)
    with pytest.raises(InputError) as err:
        draft_block_bytes(_req("gemma-3-1b"), s, 7, True)
    assert str(err.value) == ("a draft model beside gemma-3-1b's sliding-window or hybrid layers "
                              "is not modelled (its KV cache groups); plan without it")
    # one group, or V0 (which splits the blocks): modelled. 16 x 8 x 128 x 2 B x 16 layers
    assert draft_block_bytes(_req("gemma-3-1b"), s, 1, True) == 16 * 4096 * 16 // 2
    assert draft_block_bytes(_req("gemma-3-1b"), s, 7, False) == 16 * 4096 * 16 // 2
    # tp 16 on the draft: its 32 query heads split, its 8 KV heads replicated (1 a rank)
    assert draft_block_bytes(_req("llama-3.1-70b", tp=16), s, 1, True) == 16 * 256 * 16
    # qwen2.5-0.5b has 14 query heads: tp 4 does not divide them
    with pytest.raises(InputError) as err:
        draft_block_bytes(_req("llama-3.1-70b", tp=4), EngineSettings(
            engine=Engine.vllm, draft_model=load_model("qwen2.5-0.5b")), 1, True)
    assert str(err.value).startswith("the draft model: ")
    assert str(err.value).endswith("; vLLM shards the draft with the target's tensor parallelism")


def test_a_draft_keeps_the_targets_kv_dtype():
    from kvplan.units import DType
    draft = load_model("llama-3.2-1b")
    s = EngineSettings(engine=Engine.vllm, draft_model=draft)
    # fp8 cache: 16 x 8 x 128 x 1 B x 16 layers
    assert draft_block_bytes(_req(kv_dtype=DType.fp8), s, 1, True) == 16 * 8 * 128 * 16
    r = run_engine(_req(kv_dtype=DType.fp8), s)
    assert {st.label: st.value for st in r.steps}["draft KV bytes per block"] == 262_144
