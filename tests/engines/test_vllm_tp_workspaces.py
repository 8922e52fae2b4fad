"""NCCL's per-GPU TP workspaces above two GPUs on NVSwitch (issue #13, heldout-11 logs 213-215).

Every figure is read in NCCL's source (NVLS buffers, P2P connection buffers) and vLLM 0.10.0's
(communicators a TP group opens, NCCL_CUMEM_ENABLE=0); nothing here is fitted, and the held-out
logs 213-215 only measured the term (kvplan/engines/vllm_tp_workspaces.py).
"""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_tp_workspaces import (
    NVLS_V2_20_PER_CHANNEL,
    P2P_CONNECTION_BYTES,
    nvls_bytes,
    nvswitch_generation,
    tp_workspace_extra,
)
from kvplan.specs import load_hardware
from kvplan.units import MIB


def test_p2p_connection_is_ll_plus_ll128_plus_simple() -> None:
    # LL 8 lines x 512 threads x 8 steps x 16 B = 524,288; LL128 120 x 640 x 8 x 8 B = 4,915,200;
    # SIMPLE 1 << 22 = 4,194,304 (NCCL v2.26.2-1 init.cc:606-608)
    assert P2P_CONNECTION_BYTES == 524_288 + 4_915_200 + 4_194_304 == 9_633_792


def test_nvls_buffers_per_communicator() -> None:
    # Hopper TP 8: 16 channels x 2 x (131,072 x 8) x 8 heads = 268,435,456; credits
    # 24 x 2 x 64 x 8 = 24,576 B rounded up to 2 MiB
    assert nvls_bytes(8, "hopper") == 268_435_456 + 2_097_152 == 270_532_608
    # TP 4: 4 heads
    assert nvls_bytes(4, "hopper") == 134_217_728 + 2_097_152
    # Blackwell: 32 NVLS channels (NVLS_NCHANNELS_SM100)
    assert nvls_bytes(8, "blackwell") == 32 * 2 * 1_048_576 * 8 + 2 * MIB == 538_968_064
    # the low end: NCCL 2.27's 24 channels on one Blackwell node
    assert nvls_bytes(8, "blackwell", low=True) == 24 * 2 * 1_048_576 * 8 + 2 * MIB == 404_750_336


def test_blackwell_tp8_ring_channels_at_least_the_nvls_channels() -> None:
    extra, _ = tp_workspace_extra(8, "blackwell", "0.10.0")
    # 2 x 538,968,064 NVLS + 2 x 32 x 9,633,792 = 616,562,688 tree
    assert extra.best == 1_077_936_128 + 616_562_688 == 1_694_498_816
    # low: 2 x 404,750,336 + the same 32 channels of tree
    assert extra.low == 809_500_672 + 616_562_688 == 1_426_063_360


def test_the_v2_20_layout_reproduces_the_vllm_9699_log_line() -> None:
    # "nHeads 8 buffSize 4194304 memSize 2097152 nvlsPerRankSize 301989888 nvlsTotalSize
    # 2415919104" on 8x H200: 24 ring channels x 2 x (4 MiB + 2 MiB) x 8 heads
    assert 24 * 2 * NVLS_V2_20_PER_CHANNEL == 301_989_888
    assert 24 * 2 * NVLS_V2_20_PER_CHANNEL * 8 == 2_415_919_104


def test_vllm_0_10_0_tp8_hopper_eager_nvls_and_tree() -> None:
    extra, how = tp_workspace_extra(8, "hopper", "0.10.0")
    # 2 communicators x 270,532,608 = 541,065,216 NVLS; tree: 2 x 24 x 9,633,792 = 462,422,016
    assert extra.best == 541_065_216 + 462_422_016 == 1_003_487_232
    # low: 16 channels (2 x 16 x 9,633,792 = 308,281,344)
    assert extra.low == 541_065_216 + 308_281_344 == 849_346_560
    # high: 64 channels, two new connections a channel: 2 x 64 x 2 x 9,633,792 = 2,466,250,752
    assert extra.high == 541_065_216 + 2_466_250_752 == 3_007_315_968
    assert "NCCL_CUMEM_ENABLE=0" in how


def test_tp4_halves_the_nvls_heads_not_the_tree() -> None:
    extra, _ = tp_workspace_extra(4, "hopper", "0.10.0")
    # 2 x 136,314,880 = 272,629,760 NVLS + the same 462,422,016 tree buffers
    assert extra.best == 272_629_760 + 462_422_016 == 735_051_776


def test_runtime_connect_releases_book_nvls_only() -> None:
    # vLLM PR #24141 (0.11 series) stopped forcing NCCL_CUMEM_ENABLE=0: buffers connect when used
    extra, how = tp_workspace_extra(8, "hopper", "0.19.0")
    assert (extra.best, extra.low, extra.high) == (541_065_216, 0, 3_007_315_968)
    assert "run time" in how
    # 0.10.2 was cut around that merge: best eager, low nothing
    extra, how = tp_workspace_extra(8, "hopper", "0.10.2")
    assert (extra.best, extra.low) == (1_003_487_232, 0)
    assert "unsure" in how


def test_releases_before_0_10_widen_to_the_v2_20_layout() -> None:
    extra, how = tp_workspace_extra(8, "hopper", "0.8.5")
    # high: 2 x 2,415,919,104 (the #9699 layout) + 2,466,250,752 tree
    assert extra.high == 2 * 2_415_919_104 + 2_466_250_752 == 7_298_088_960
    assert (extra.best, extra.low) == (1_003_487_232, 849_346_560)
    assert "not read" in how


def test_nothing_at_tp2_or_off_nvswitch() -> None:
    for tp in (1, 2):
        extra, _ = tp_workspace_extra(tp, "hopper", "0.10.0")
        assert (extra.best, extra.low, extra.high) == (0, 0, 0)
    extra, how = tp_workspace_extra(8, None, "0.10.0")
    assert (extra.best, extra.high) == (0, 0) and "above 2 GPUs" in how


def test_expert_parallel_at_dp1_adds_nothing_and_dp_is_refused() -> None:
    assert tp_workspace_extra(8, "hopper", "0.10.0", expert_parallel=True)[0] == \
        tp_workspace_extra(8, "hopper", "0.10.0")[0]
    with pytest.raises(ValueError, match="all-to-all"):
        tp_workspace_extra(8, "hopper", "0.10.0", expert_parallel=True, dp=2)
    with pytest.raises(ValueError, match="generation 'ampere'"):
        tp_workspace_extra(8, "ampere", "0.10.0")


def test_generation_from_catalog_labels() -> None:
    for name, gen in (("h100", "hopper"), ("h200-141gb", "hopper"), ("b200", "blackwell"),
                      ("gb200", "blackwell"), ("a100-40gb", None), ("l40s", None)):
        gpu = load_hardware(name)
        assert nvswitch_generation(gpu.label, gpu.device_names) == gen, name
