"""vLLM's pieces one at a time: the non-torch term by series, GPU and TP (vllm_nontorch),
KV-cache groups and the blocks a request takes, the largest length that starts, and the layers
of each pipeline stage (vllm). Expected values come from vLLM's own rules as the modules'
docstrings quote them, worked by hand.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/vllm*.py; the
release series are in test_engines_vllm_series.py, the flags in test_engines_vllm_flags.py.
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines.common import LayerShape
from kvplan.engines.interface import Interval
from kvplan.engines.vllm import Groups, _largest_len, _tokens, blocks_per_request, kv_groups, stage_layers
from kvplan.engines.vllm_nontorch import non_torch, nvlink_module
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB


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

