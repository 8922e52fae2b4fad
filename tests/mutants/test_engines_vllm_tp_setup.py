"""Mutation tests of kvplan/engines/vllm_tp_setup.py (task h71mut): each part's rule and the
words explain prints, by hand from the vllm==0.34.0 lines the module cites
(device_communicators/custom_all_reduce.py :118, :121-129, :138, :304, :317, :362;
all_reduce_utils.py :31-43, :58-70).

MiB = 1,048,576 B; NCCL's connection 9,633,792 B a channel and peer (vllm_nontorch), so 2 channels
= 19,267,584 B and 64 x 2 = 1,233,125,376 B.
"""

from __future__ import annotations

from kvplan.engines.interface import Interval
from kvplan.engines.vllm_tp_setup import custom_ar_bytes, mnnvl_bytes, tp_setup

MIB = 1_048_576
NCCL_2 = 19_267_584
NCCL_128 = 1_233_125_376
HOW = "vLLM 0.34 sets up TP before its start-up snapshot (gpu_worker.py:502-512, :549): "
RING = "NCCL's ring 2 channels x 9.2 MiB (up to 64 x 2; kvplan.engines.vllm_tp_setup)"


def test_custom_all_reduce_bytes_per_generation_and_size() -> None:
    """16 MiB registered + 8 MiB rank_data + meta min(8 MiB, the table's max_size); sizes the
    table lacks (TP 16) keep 8 MiB."""
    assert custom_ar_bytes(4, "hopper") == 32 * MIB  # min(8, 32)
    assert custom_ar_bytes(6, "hopper") == 24 * MIB + MIB // 2 == 25_690_112
    assert custom_ar_bytes(2, "blackwell") == 26 * MIB
    assert custom_ar_bytes(6, "blackwell") == 25 * MIB
    assert custom_ar_bytes(8, "blackwell") == 25 * MIB
    assert custom_ar_bytes(16, "hopper") == 32 * MIB
    assert custom_ar_bytes(8, "ampere") == 32 * MIB


def test_mnnvl_buffer_per_size() -> None:
    """6 x max(stage x TP, 16 MiB): TP 6 2 x 6 = 12 -> 16 MiB: 96 MiB; TP 16 2 x 16 = 32 MiB:
    192 MiB."""
    assert mnnvl_bytes(6) == 96 * MIB
    assert mnnvl_bytes(16) == 192 * MIB == 201_326_592


def test_one_gpu_and_host_transport() -> None:
    assert tp_setup(1, True, None, True, "hopper") == (Interval(0, 0, 0), "no tensor parallelism")
    assert tp_setup(2, True, "host", True, "hopper") == (
        Interval(0, 0, 0), "TP over host memory (stated): NCCL's buffers in host memory, custom "
        "all-reduce off, no symmetric memory")


def test_nvlink_stated_on_a_card_without_the_label() -> None:
    """TP 4, Hopper, transport nvlink stated: custom all-reduce 32 MiB + MNNVL 96 MiB + symmetric
    memory 32 MiB = 160 MiB = 167,772,160 B; best + 2 channels = 187,039,744; low without the
    MNNVL buffer (multicast not certain): 64 MiB + 2 channels = 86,376,448; high 167,772,160 +
    1,233,125,376 = 1,400,897,536."""
    iv, how = tp_setup(4, False, "nvlink", True, "hopper")
    assert iv == Interval(187_039_744, 86_376_448, 1_400_897_536)
    assert how == (HOW + "custom all-reduce 32 MiB, its MNNVL buffer 96 MiB (multicast NVSwitch), "
                   "symmetric memory 32 MiB, " + RING)


def test_pcie_p2p_stated_on_an_nvlink_card() -> None:
    """A stated pcie-p2p transport is not NVLink even on an NVLink card: custom all-reduce at TP 2
    without symmetric memory's smaller meta (32 MiB), no MNNVL buffer, symmetric memory 64 MiB
    (the generation given) but not in the low end: best 96 MiB + 2 channels = 119,930,880; low
    32 MiB + 2 channels (P2P stated: certain) = 52,822,016; high 100,663,296 + 1,233,125,376 =
    1,333,788,672."""
    iv, how = tp_setup(2, True, "pcie-p2p", True, "hopper")
    assert iv == Interval(119_930_880, 52_822_016, 1_333_788_672)
    assert how == HOW + "custom all-reduce 32 MiB, symmetric memory 64 MiB, " + RING
    iv, how = tp_setup(2, False, "pcie-p2p", True, None)
    assert iv == Interval(52_822_016, 52_822_016, 1_266_679_808)
    assert how == HOW + "custom all-reduce 32 MiB, " + RING


def test_nothing_but_nccl() -> None:
    """TP 4 on PCIe, unstated: no custom all-reduce (more than two GPUs without NVLink), no
    symmetric memory: NCCL alone, 0 at the low end (it may run over host memory); TP 3 on NVLink
    Hopper: no size either table has."""
    assert tp_setup(4, False, None, True, None) == (Interval(NCCL_2, 0, NCCL_128), HOW + RING)
    assert tp_setup(3, True, None, True, "hopper") == (Interval(NCCL_2, NCCL_2, NCCL_128),
                                                       HOW + RING)


def test_tp16_and_tp8_words() -> None:
    """TP 16 on NVLink Hopper: custom all-reduce 32 MiB (no table entry) + MNNVL 192 MiB, no
    symmetric memory: 224 MiB = 234,881,024 B; best 254,148,608, low 32 MiB + 2 channels =
    52,822,016, high 1,468,006,400. TP 8 Hopper: custom all-reduce 24.25 MiB; without custom
    all-reduce symmetric memory alone, 64 MiB."""
    iv, how = tp_setup(16, True, None, True, "hopper")
    assert iv == Interval(254_148_608, 52_822_016, 1_468_006_400)
    assert how == HOW + ("custom all-reduce 32 MiB, its MNNVL buffer 192 MiB (multicast "
                         "NVSwitch), ") + RING
    assert tp_setup(8, True, None, True, "hopper")[1].startswith(
        HOW + "custom all-reduce 24.25 MiB, its MNNVL buffer 96 MiB")
    iv, how = tp_setup(8, True, None, False, "hopper")
    assert iv == Interval(64 * MIB + NCCL_2, 64 * MIB + NCCL_2, 64 * MIB + NCCL_128)
    assert how == HOW + "symmetric memory 64 MiB, " + RING
    # NVLink without a multicast generation: no MNNVL buffer, no symmetric memory
    iv, how = tp_setup(2, True, None, True, None)
    assert iv == Interval(32 * MIB + NCCL_2, 32 * MIB + NCCL_2, 32 * MIB + NCCL_128)
    assert how == HOW + "custom all-reduce 32 MiB, " + RING


def test_pcie_p2p_on_blackwell_keeps_the_plain_meta() -> None:
    """Off NVLink symmetric memory does not shrink custom all-reduce's meta: TP 2 on Blackwell
    over stated pcie-p2p keeps 32 MiB (on NVLink: min(8, 2) MiB meta, 26 MiB), symmetric memory 8
    MiB (Blackwell, TP 2) outside the low end: best 40 MiB + 2 channels = 61,210,624, low 32 MiB
    + 2 channels = 52,822,016, high 41,943,040 + 1,233,125,376 = 1,275,068,416."""
    iv, how = tp_setup(2, True, "pcie-p2p", True, "blackwell")
    assert iv == Interval(61_210_624, 52_822_016, 1_275_068_416)
    assert how == HOW + "custom all-reduce 32 MiB, symmetric memory 8 MiB, " + RING
