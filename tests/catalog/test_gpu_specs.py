"""Each GPU added for issue #12, pinned against the reading its spec cites.

The numbers below are copied from the cited captures (deviceQuery, torch, HIP, nvidia-smi) and
datasheets, not from the YAML; the arithmetic that links them is worked in the comments.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from kvplan.specs import all_hardware, load_hardware

MIB = 1024 * 1024


class Reading(NamedTuple):
    memory_bytes: int
    smi_mib: int | None  # None: nvidia-smi gives no total (AMD, unified memory)
    bandwidth: int  # bytes/s, from the datasheet figure in the spec's `source`
    bf16_dense: int | None  # FLOP/s; None where the part has no BF16 or no dense figure was read
    fp8: bool
    device_names: tuple[str, ...]
    runtime_mib: int | None  # the MBytes/MB/MiB figure the runtime printed; None for upper bounds


NEW_GPUS: dict[str, Reading] = {
    # deviceQuery 'NVIDIA RTX 6000 Ada Generation' 48640 MBytes (51002867712 bytes);
    # nvidia-smi -q FB Total 49140 MiB, Reserved 500 MiB -> 48640 MiB = 51,002,867,712 B
    "rtx-6000-ada": Reading(51_002_867_712, 49_140, 960_000_000_000, None, True,
                            ("NVIDIA RTX 6000 Ada Generation",), 48_640),
    # deviceQuery 'Tesla V100-SXM2-32GB' 32494 MBytes (34072559616 bytes), CUDA 12.9
    "v100-sxm2-32gb": Reading(34_072_559_616, 32_768, 900_000_000_000, None, False,
                              ("Tesla V100-SXM2-32GB",), 32_494),
    # deviceQuery 'Tesla V100-SXM2-16GB' 16144 MBytes (16928342016 bytes), CUDA 12.4
    "v100-sxm2-16gb": Reading(16_928_342_016, 16_384, 900_000_000_000, None, False,
                              ("Tesla V100-SXM2-16GB",), 16_144),
    # deviceQuery 'Tesla T4' 14918 MBytes (15642329088 bytes), CUDA 12.5
    "t4": Reading(15_642_329_088, 15_360, 320_000_000_000, None, False, ("Tesla T4",), 14_918),
    # deviceQuery 'NVIDIA GeForce RTX 5090' 32101 MBytes (33660534784 bytes), driver 13.0
    "rtx-5090": Reading(33_660_534_784, 32_607, 1_792_000_000_000, None, True,
                        ("NVIDIA GeForce RTX 5090",), 32_101),
    # torch total_memory=97285MB on 'NVIDIA H20': 97285 x 1,048,576 = 102,010,716,160
    "h20": Reading(102_010_716_160, 97_871, 4_000_000_000_000, 148_000_000_000_000, True,
                   ("NVIDIA H20",), 97_285),
    # HIP (Cray ACC) 'Total GPU memory 68702699520' on one GCD = 65520 MiB exactly;
    # per GCD: 3.28 TB/s / 2 = 1.64 TB/s, 383 TFLOPS / 2 = 191.5 TFLOPS
    "mi250x": Reading(68_702_699_520, None, 1_640_000_000_000, 191_500_000_000_000, False,
                      ("AMD Instinct MI250X",), 65_520),
    # cuDeviceTotalMem on GB10: totalMem=130602405888 (121.6 GiB); 130602405888 / 2**30 = 121.63
    "gb10": Reading(130_602_405_888, None, 273_000_000_000, None, True, ("NVIDIA GB10",), None),
    # deviceQuery 'NVIDIA Thor' 125772 MBytes (131881680896 bytes), JetPack 7.0 / CUDA 13.0;
    # 131,881,680,896 / 2**20 = 125,772.0 -> the printed MBytes
    "jetson-thor": Reading(131_881_680_896, None, 273_000_000_000, None, True, ("NVIDIA Thor",), 125_772),
    # vLLM 0.15.1 on an L20: 'Free memory on device cuda:0 (39.96/44.52 GiB)'; 44.52 x 2**30 =
    # 47,802,986,004.48 -> 47,802,986,004 B = 45,588.48 MiB (the printed figure is GiB, not MiB);
    # an nvidia-smi upper bound (46068 x 1,048,576 = 48,305,799,168) until task h42gputotals
    "l20": Reading(47_802_986_004, 46_068, 864_000_000_000, 119_500_000_000_000, True,
                   ("NVIDIA L20",), 45_588),
    # deviceQuery 'NVIDIA A10' 22599 MBytes (23696375808 bytes), driver 12.8 / runtime 12.9, same
    # host nvidia-smi 23028 MiB: 23,696,375,808 / 2**20 = 22,598.6 -> 22599 printed, 429.4 MiB
    # under nvidia-smi; an upper bound (23028 x 1,048,576 = 24,146,608,128) until task h42gputotals
    "a10": Reading(23_696_375_808, 23_028, 600_000_000_000, 125_000_000_000_000, False,
                   ("NVIDIA A10",), 22_599),
    # runtime totals found in task h43gputotals (were nvidia-smi upper bounds, MiB x 1,048,576);
    # torch's OOM message and vLLM's 'Free memory on device' print the CUDA total in GiB to 0.01:
    # vLLM 'Free memory on device (264.8/267.69 GiB)' on 8x B300: 267.69 x 2**30 = 287,429,948,866.56
    # -> 287,429,948,867 B = 274,114.56 MiB (925 MiB under 275040); was 275040 x 1048576
    "b300": Reading(287_429_948_867, 275_040, 8_000_000_000_000, 2_250_000_000_000_000, True,
                    ("NVIDIA B300 SXM6 AC",), 274_115),
    # torch 'total capacity of 276.50 GiB' on 64x GB300: 276.5 x 2**30 = 296,889,614,336 B
    # = 283,136 MiB exactly (1,072 MiB under 284208); was 284208 x 1048576 = 298,013,687,808
    "gb300": Reading(296_889_614_336, 284_208, 8_000_000_000_000, 2_500_000_000_000_000, True,
                     ("NVIDIA GB300",), 283_136),
    # torch 'total capacity of 79.11 GiB' on 8x H800: 79.11 x 2**30 = 84,943,715,696.64 -> 84,943,715,697
    # = 81,008.64 MiB (550 MiB under 81559); 1979 sparse / 2 -> 989 dense
    "h800": Reading(84_943_715_697, 81_559, 3_350_000_000_000, 989_000_000_000_000, True,
                    ("NVIDIA H800", "NVIDIA H800 80GB HBM3"), 81_009),
    # torch 'total capacity of 79.25 GiB' on 8x A800-SXM4-80GB: 79.25 x 2**30 = 85,094,039,552 B
    # = 81,152 MiB exactly (768 MiB under 81920); was 81920 x 1048576 = 85,899,345,920
    "a800-80gb": Reading(85_094_039_552, 81_920, 2_039_000_000_000, 312_000_000_000_000, False,
                         ("NVIDIA A800-SXM4-80GB",), 81_152),
    # torch total_memory=97250MB on the Server Edition: 97250 x 1048576 = 101,974,016,000
    # (637 MiB under 97887); was 97887 x 1048576 = 102,641,958,912
    "rtx-pro-6000-server": Reading(101_974_016_000, 97_887, 1_792_000_000_000, None, True,
                                   ("NVIDIA RTX PRO 6000 Blackwell Server Edition",), 97_250),
    # --- round 2: GPUs the project's public inputs name (logs, manifests) or the issue lists ---
    # deviceQuery 'NVIDIA A100 80GB PCIe' 81038 MBytes (84974239744 bytes), CUDA 12.4 / 12.4;
    # 84,974,239,744 / 2**20 = 81,037.75 -> 81038; datasheet table 1,935 GB/s, BF16 312 dense
    "a100-pcie-80gb": Reading(84_974_239_744, 81_920, 1_935_000_000_000, 312_000_000_000_000, False,
                              ("NVIDIA A100 80GB PCIe",), 81_038),
    # deviceQuery 'NVIDIA A100-PCIE-40GB' 40326 MBytes (42285268992 bytes), same cluster page
    "a100-pcie-40gb": Reading(42_285_268_992, 40_960, 1_555_000_000_000, 312_000_000_000_000, False,
                              ("NVIDIA A100-PCIE-40GB",), 40_326),
    # deviceQuery 'NVIDIA A40' 45403 MBytes (47608692736 bytes); nvidia-smi -q on the same host:
    # FB Total 46068 MiB - Reserved 665 MiB = Free 45403 MiB; datasheet 696 GB/s, BF16 149.7 dense
    "a40": Reading(47_608_692_736, 46_068, 696_000_000_000, 149_700_000_000_000, False,
                   ("NVIDIA A40",), 45_403),
    # deviceQuery 'NVIDIA RTX A6000' 48790 MBytes (51160023040 bytes), ECC disabled, CUDA 12.7;
    # 49140 - 48790 = 350 MiB driver reserve; 768 GB/s; no dense BF16 figure read
    "rtx-a6000": Reading(51_160_023_040, 49_140, 768_000_000_000, None, False,
                         ("NVIDIA RTX A6000",), 48_790),
    # deviceQuery 'NVIDIA RTX 4000 Ada Generation' 20147 MBytes (21125267456 bytes);
    # 21,125,267,456 / 2**20 = 20,146.6; nvidia-smi -q FB Total 20475, Reserved 329 MiB
    "rtx-4000-ada": Reading(21_125_267_456, 20_475, 360_040_000_000, None, True,
                            ("NVIDIA RTX 4000 Ada Generation",), 20_147),
    # HIP totalGlobalMem 68702699520 bytes on 'AMD Instinct MI210' = 65520 MiB (one MI250X GCD's)
    "mi210": Reading(68_702_699_520, None, 1_600_000_000_000, None, False,
                     ("AMD Instinct MI210",), 65_520),
    # torch 'total capacity of 44.40 GiB' on one L40 (QwenLM/Qwen3-VL#2097): 44.40 x 2**30 =
    # 47,674,136,985.6 -> 47,674,136,986 B = 45,465.6 MiB (602 MiB under 46068); an upper bound
    # (46068 x 1,048,576 = 48,305,799,168) until task h43gputotals; log 133's 44.39 (held out) unused
    "l40": Reading(47_674_136_986, 46_068, 864_000_000_000, 181_050_000_000_000, True,
                   ("NVIDIA L40",), 45_466),
}

# round 2's parts: PCIe cards (an NVLink bridge joins at most two of the A40 / RTX A6000 / A100
# PCIe cards; none is an SXM module on an NVSwitch board)
PCIE_CARDS = ("a100-pcie-80gb", "a100-pcie-40gb", "a40", "l40", "rtx-a6000", "rtx-4000-ada",
              "mi210")


def test_issue_12_gpus_are_all_there():
    specs, errors = all_hardware()
    assert errors == []
    assert len(specs) >= 39  # issue #12: 17 before + 15 in round 1 + 7 in round 2 = 39
    assert {g.name for g in specs} >= set(NEW_GPUS)


@pytest.mark.parametrize("name", sorted(NEW_GPUS))
def test_gpu_matches_its_cited_reading(name):
    want = NEW_GPUS[name]
    g = load_hardware(name)
    assert g.memory_bytes == want.memory_bytes
    assert g.nvidia_smi_mib == want.smi_mib
    assert g.memory_bandwidth_bytes_per_s == want.bandwidth
    assert g.bf16_dense_flops == want.bf16_dense
    assert g.fp8_supported is want.fp8
    assert tuple(g.device_names) == want.device_names
    # the cited figure is written in the spec's own words, digits and all
    assert f"{want.memory_bytes:,}" in g.memory_source or str(want.memory_bytes) in g.memory_source


@pytest.mark.parametrize("name", sorted(n for n, r in NEW_GPUS.items() if r.runtime_mib))
def test_runtime_readings_agree_with_the_printed_mib(name):
    # deviceQuery prints bytes / 2**20 rounded; torch prints total_memory // 2**20 (MB = MiB)
    want = NEW_GPUS[name]
    # (the H20's torch figure is the source of its bytes: 97285 x 2**20, so it rounds back exactly)
    assert round(want.memory_bytes / MIB) == want.runtime_mib
    if want.smi_mib is not None:  # the driver keeps a reserve: runtime < nvidia-smi total
        assert want.memory_bytes < want.smi_mib * MIB
    assert not load_hardware(name).memory_source.startswith("DERIVED UPPER BOUND")


def test_no_new_gpu_is_left_an_upper_bound():
    # since task h43gputotals every issue-12 GPU with an nvidia-smi total has a runtime reading;
    # only the unified-memory parts (no nvidia-smi total at all) have runtime_mib None
    left = sorted(n for n, r in NEW_GPUS.items() if r.runtime_mib is None)
    assert left == ["gb10"]
    assert all(not load_hardware(n).memory_source.startswith("DERIVED UPPER BOUND") for n in NEW_GPUS)


# Totals printed in GiB to two decimals (torch's OOM 'GPU N has a total capacity of X GiB' and
# vLLM's 'Free memory on device (free/X GiB)', both cudaMemGetInfo's / hipMemGetInfo's total):
# bytes = X x 2**30 rounded, and the print bounds the true total to (X -/+ 0.005) x 2**30.
# (name, X in hundredths of a GiB, the bytes booked, the figure it replaced)
HUNDREDTHS = [
    ("b300", 26_769, 287_429_948_867, 275_040 * MIB),  # vLLM (264.8/267.69 GiB), 8x B300
    ("gb200", 18_431, 197_901_355_581, 189_471 * MIB),  # torch OOM on GB200
    ("gb300", 27_650, 296_889_614_336, 284_208 * MIB),  # torch OOM on 64x GB300
    ("h800", 7_911, 84_943_715_697, 81_559 * MIB),  # torch OOM on 8x H800
    ("a800-80gb", 7_925, 85_094_039_552, 81_920 * MIB),  # torch OOM on 8x A800-SXM4-80GB
    ("l40", 4_440, 47_674_136_986, 46_068 * MIB),  # torch OOM on one L40
    ("mi325x", 25_598, 274_856_432_108, 256 * 2**30),  # HIP OOM, vllm-project/vllm#41962
    ("mi355x", 28_798, 309_216_170_476, 288 * 2**30),  # HIP OOM, 8x MI355X
]


@pytest.mark.parametrize(("name", "hundredths", "want", "was"), HUNDREDTHS)
def test_totals_read_to_a_hundredth_of_a_gib(name, hundredths, want, was):
    g = load_hardware(name)
    # e.g. the B300: 26769 x 2**30 / 100 = 287,429,948,866.56 -> 287,429,948,867
    assert g.memory_bytes == want == (hundredths * 2**30 + 50) // 100
    lo, hi = (hundredths - 0.5) * 2**30 / 100, (hundredths + 0.5) * 2**30 / 100
    assert lo <= g.memory_bytes <= hi
    assert g.memory_bytes < was  # below the nvidia-smi (or nominal) total it replaced
    assert g.memory_source.startswith("DERIVED from a runtime reading")
    assert f"{hundredths / 100:.2f} GiB" in g.memory_source and f"{want:,}" in g.memory_source
    assert f"{was:,}" in g.memory_source  # the replaced figure is kept in the source's history


def test_amd_totals_hold_the_mi300x_shortfall():
    # MI300X's HIP total is 192 GiB - 16 MiB; the MI325X's and MI355X's printed totals allow the
    # same shortfall: 256 GiB - 16 MiB = 255.984375 GiB -> '255.98', 288 GiB - 16 MiB -> '287.98'
    for name, nominal_gib in (("mi325x", 256), ("mi355x", 288)):
        same_shortfall = nominal_gib * 2**30 - 16 * MIB
        assert f"{same_shortfall / 2**30:.2f}" == f"{load_hardware(name).memory_bytes / 2**30:.2f}"
    assert load_hardware("mi300x").memory_bytes == 192 * 2**30 - 16 * MIB


def test_every_device_name_is_quoted_in_a_cited_source():
    for g in all_hardware()[0]:
        if g.name not in NEW_GPUS:
            continue
        cited = f"{g.memory_source} {g.nvidia_smi_source or ''}"
        for device in g.device_names:
            assert device in cited, (g.name, device)


def test_unified_memory_part_says_what_the_runtime_reports():
    gb10 = load_hardware("dgx-spark")
    assert gb10.name == "gb10"
    assert gb10.nvidia_smi_mib is None  # nvidia-smi: 'Not Supported' on DGX Spark
    assert sorted(g.name for g in all_hardware()[0] if g.unified_memory) == ["gb10", "jetson-thor"]
    text = gb10.memory_source
    assert "SHARED with the CPU" in text and "HOW CHOSEN" in text
    # the other Spark's deviceQuery (122,570 MBytes) is cited and lower than the kept reading
    assert "122,570 MBytes" in text and gb10.memory_bytes > 122_570 * MIB


def test_jetson_thor_is_unified_and_cites_the_lower_os_images():
    thor = load_hardware("Jetson-AGX-Thor")
    assert thor.name == "jetson-thor" and thor.unified_memory
    assert thor.nvidia_smi_mib is None  # nvidia-smi prints [N/A] for memory on Jetson
    text = thor.memory_source
    assert "SHARED with the CPU" in text and "HOW CHOSEN" in text
    # the two JetPack 7.0 readings differ by one 4 KiB page; the kept one is the lower
    assert thor.memory_bytes == 131_881_684_992 - 4096
    # other OS images leave less: 131,587,801,088 B is 293,879,808 B (~294 MB) below the kept total
    assert "131587801088" in text and thor.memory_bytes - 131_587_801_088 == 293_879_808
    assert "294 MB" in text


def test_mi250x_is_one_gcd():
    g = load_hardware("instinct-mi250x")
    # AMD's MI250X figures cover 2 GCDs: 128 GB, 3.28 TB/s, 383 TFLOPS bf16 (dense, no sparsity)
    assert 2 * g.memory_bandwidth_bytes_per_s == 3_280_000_000_000
    assert 2 * g.bf16_dense_flops == 383_000_000_000_000
    assert g.memory_bytes == 65_520 * MIB  # 64 GB per GCD as HIP reports it


def test_bf16_is_unset_where_the_part_has_none():
    # Volta and Turing have no BF16 math; a sparse or FP16 figure must not stand in for it
    for name in ("v100-sxm2-32gb", "v100-sxm2-16gb", "t4"):
        assert load_hardware(name).bf16_dense_flops is None


def test_aliases_are_unambiguous():
    specs, _ = all_hardware()
    owner: dict[str, str] = {g.name.lower(): g.name for g in specs}
    for g in specs:
        for alias in g.aliases:
            key = alias.lower()
            assert owner.setdefault(key, g.name) == g.name, f"{alias} names {owner[key]} and {g.name}"


@pytest.mark.parametrize(
    ("typed", "name"),
    [("v100", "v100-sxm2-32gb"), ("V100-16GB", "v100-sxm2-16gb"), ("tesla-t4", "t4"),
     ("5090", "rtx-5090"), ("rtx-pro-6000", "rtx-pro-6000-server"), ("spark", "gb10"),
     ("a800", "a800-80gb"), ("gb300-nvl72", "gb300"), ("hgx-b300", "b300"),
     ("thor", "jetson-thor"), ("agx-thor", "jetson-thor")],
)
def test_what_users_type_resolves(typed, name):
    assert load_hardware(typed).name == name


def test_pcie_a100s_are_their_own_specs_not_the_sxm4_boards():
    # deviceQuery totals: the PCIe boards report less than the SXM4 boards of the same size
    # (80 GB: 85,100,068,864 - 84,974,239,744 = 125,829,120 B = 120 MiB; 40 GB: 13,565,952 B)
    assert load_hardware("a100-80gb").memory_bytes - load_hardware("a100-pcie").memory_bytes == 120 * MIB
    assert load_hardware("a100-40gb").memory_bytes - load_hardware("a100-pcie-40gb").memory_bytes \
        == 13_565_952
    # bandwidth: 2,039 GB/s SXM4 80GB vs 1,935 GB/s PCIe 80GB; the 40 GB parts both 1,555 GB/s
    assert load_hardware("a100-80gb-pcie").memory_bandwidth_bytes_per_s == 1_935_000_000_000
    assert load_hardware("a100-40gb-pcie").memory_bandwidth_bytes_per_s == 1_555_000_000_000
    # a runtime name picks the form factor: the SXM4 spec does not claim the PCIe device names
    by_device = {d: g.name for g in all_hardware()[0] for d in g.device_names}
    assert by_device["NVIDIA A100 80GB PCIe"] == "a100-pcie-80gb"
    assert by_device["NVIDIA A100-SXM4-80GB"] == "a100-80gb"
    assert by_device["NVIDIA A100-PCIE-40GB"] == "a100-pcie-40gb"


def test_rtx_a6000_reading_is_the_ecc_off_one_and_names_the_ecc_on_figure():
    g = load_hardware("a6000")
    assert g.name == "rtx-a6000"
    assert "ECC support: Disabled" in g.memory_source
    # ECC on: torch total_memory=48676MB, 48,790 - 48,676 = 114 MiB less
    assert "total_memory=48676MB" in g.memory_source and "114 MiB less" in g.memory_source
    assert g.memory_bytes - 48_676 * MIB == 114 * MIB


@pytest.mark.parametrize("name", PCIE_CARDS)
def test_round_two_parts_are_not_nvlink_modules(name):
    from kvplan.engines.vllm_nontorch import nvlink_module

    g = load_hardware(name)
    assert not nvlink_module(g.label, g.device_names), (g.label, g.device_names)


def test_l20_total_sits_inside_what_vllm_printed():
    """vLLM 0.15.1's 'Free memory on device cuda:0 (39.96/44.52 GiB) ... desired GPU memory
    utilization (0.9, 40.07 GiB)' on an L20 bounds the runtime total two ways: 44.52 GiB to two
    places is 44.515-44.525 GiB, and 0.9 x total = 40.07 GiB to two places is 40.065/0.9 =
    44.5167 to 40.075/0.9 = 44.5278 GiB. Together 47,799,406,866-47,808,354,713 B; the spec's
    47,802,986,004 (44.52 x 2**30) is inside, 502,813,164 B (479.5 MiB) under the nvidia-smi
    46068 MiB, and the L40S's deviceQuery 47,803,596,800 B (same board and smi total) fits too."""
    total = load_hardware("l20").memory_bytes
    gib = 2**30
    assert round(total / gib, 2) == 44.52
    assert round(0.9 * total / gib, 2) == 40.07
    low, high = -(-40_065 * gib // 900), 44_525 * gib // 1000
    assert (low, high) == (47_799_406_866, 47_808_354_713)
    assert low <= total <= high and low <= 47_803_596_800 <= high
    assert 46_068 * MIB - total == 502_813_164
