"""vLLM 0.34's cap with TP: the TP set-up held before the start-up snapshot (task h42v034;
kvplan.engines.vllm_tp_setup, read in the vllm==0.34.0 wheel).

Per GPU, in bytes (MiB = 1,048,576; NCCL's connection 524,288 + 4,915,200 + 4,194,304 =
9,633,792 B a channel and peer, so 2 channels = 19,267,584 B and 64 x 2 = 1,233,125,376 B):
- custom all-reduce: meta max_size 8 MiB + registered buffer max(8, 2, 16) = 16 MiB + rank_data
  8 MiB = 32 MiB = 33,554,432 B; with symmetric memory on Hopper the meta is min(8 MiB, 64 / 32
  / 0.5 / 0.25 MiB at TP 2/4/6/8), so at TP 8 24.25 MiB = 25,427,968 B;
- its MNNVL buffer on a multicast NVSwitch: 6 x max(stage x TP, 16 MiB) = 6 x 16 MiB = 96 MiB
  = 100,663,296 B at TP 2 (8 x 2), 4 (4 x 4) and 8 (2 x 8 = 16);
- symmetric memory on Hopper: 64 MiB at TP 2 and 8, 32 MiB at TP 4.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.vllm_tp_setup import custom_ar_bytes, mnnvl_bytes, tp_setup
from kvplan.units import MIB
from tests.conftest import step_values

NCCL_2 = 2 * 9_633_792  # 19,267,584
NCCL_128 = 128 * 9_633_792  # 1,233,125,376


def test_the_parts_by_hand() -> None:
    """32 MiB of custom all-reduce (24.25 MiB at TP 8 on Hopper with symmetric memory), 96 MiB
    of MNNVL buffer at TP 2, 4 and 8."""
    assert custom_ar_bytes(2, None) == 33_554_432 == 32 * MIB
    assert custom_ar_bytes(2, "hopper") == 32 * MIB  # min(8, 64) MiB meta
    assert custom_ar_bytes(8, "hopper") == 25_427_968 == 16 * MIB + 8 * MIB + MIB // 4
    assert custom_ar_bytes(4, "blackwell") == 26 * MIB  # meta min(8, 2) MiB
    assert mnnvl_bytes(2) == mnnvl_bytes(4) == mnnvl_bytes(8) == 100_663_296 == 96 * MIB


def test_h100_sxm_tp2() -> None:
    """NVLink by the label, Hopper: 32 + 96 + 64 MiB = 192 MiB = 201,326,592 B, + 2 NCCL
    channels: best 220,594,176 B; low the same less the MNNVL buffer (multicast not certain):
    220,594,176 - 100,663,296 = 119,930,880 B; high 201,326,592 + 1,233,125,376 =
    1,434,451,968 B."""
    iv, how = tp_setup(2, True, None, True, "hopper")
    assert (iv.best, iv.low, iv.high) == (220_594_176, 119_930_880, 1_434_451_968)
    assert "custom all-reduce 32 MiB" in how and "symmetric memory 64 MiB" in how


def test_h100_sxm_tp8_and_without_custom_all_reduce() -> None:
    """TP 8: 24.25 MiB + 96 + 64 = 184.25 MiB = 193,200,128 B + 19,267,584 = 212,467,712 B.
    --disable-custom-all-reduce at TP 2 keeps symmetric memory and NCCL: 67,108,864 + 19,267,584
    = 86,376,448 B."""
    assert tp_setup(8, True, None, True, "hopper")[0].best == 212_467_712
    assert tp_setup(2, True, None, False, "hopper")[0].best == 86_376_448


def test_pcie_cards_and_stated_transports() -> None:
    """L40S (no NVLink, no symmetric-memory capability), TP 2, transport unstated: custom
    all-reduce 33,554,432 + NCCL 19,267,584 = 52,822,016 B best; low 0 (over host memory both
    are off); high 33,554,432 + 1,233,125,376 = 1,266,679,808 B. Stated pcie-p2p makes the low
    end 52,822,016; host is 0 throughout; TP 4 on PCIe has no custom all-reduce (more than two
    PCIe-only GPUs): NCCL alone, 19,267,584 B."""
    iv = tp_setup(2, False, None, True, None)[0]
    assert (iv.best, iv.low, iv.high) == (52_822_016, 0, 1_266_679_808)
    assert tp_setup(2, False, "pcie-p2p", True, None)[0].low == 52_822_016
    host = tp_setup(2, True, "host", True, "hopper")[0]
    assert (host.best, host.low, host.high) == (0, 0, 0)
    assert tp_setup(4, False, None, True, None)[0].best == NCCL_2


def _explain(*argv: str) -> dict:
    r = CliRunner().invoke(app, ["explain", "llama-3.1-8b", "--engine", "vllm", "-c", "8192",
                                 "-f", "json", *argv])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["results"][0]


def test_explain_tp2_on_h100_books_it_in_the_cap() -> None:
    """`kvplan explain llama-3.1-8b --gpu h100 --engine vllm --tp 2`: the device headroom is
    GPU memory - CUDA context 293,601,280 - TP set-up 220,594,176 - warm-up margin, 220,594,176
    B below the same sum without the set-up; the cap binds at 0.34's default 1.0 (headroom <
    requested), so the KV memory is that much lower too."""
    r = step_values(_explain("--gpu", "h100", "--tp", "2"))
    assert r["TP set-up before the snapshot"] == 220_594_176
    assert r["device headroom"] == (r["GPU memory"] - 293_601_280 - 220_594_176
                                    - r["warm-up margin"])
    assert r["KV sizing budget"] == r["device headroom"] < r["requested memory"]
    assert r["KV cache memory"] == (r["KV sizing budget"] - r["weights"] - r["activation peak"]
                                    - r["non-torch memory"] - r["Model Runner V2 state"]
                                    - r["CUDA graph memory"])


def test_explain_tp1_and_the_cache_off_have_no_set_up_step() -> None:
    """One GPU: nothing is set up for TP, the headroom is GPU memory - context - margin as
    before. With --no-enable-extensible-kv-cache the pool comes from the requested memory alone
    (0.92 x total), which memory used before the snapshot does not touch: no step."""
    one = step_values(_explain("--gpu", "h100"))
    assert "TP set-up before the snapshot" not in one
    assert one["device headroom"] == one["GPU memory"] - 293_601_280 - one["warm-up margin"]
    off = step_values(_explain("--gpu", "h100", "--tp", "2", "--no-enable-extensible-kv-cache"))
    assert "TP set-up before the snapshot" not in off and "device headroom" not in off


def test_the_kv_range_carries_the_set_up_range(monkeypatch) -> None:
    """The set-up's range widens the budget's, and only by it: against the same plan with the
    set-up taken as exact (its best, 220,594,176 B), the KV range's low end falls by high - best
    = 1,434,451,968 - 220,594,176 = 1,213,857,792 B and its high end rises by best - low =
    220,594,176 - 119,930,880 = 100,663,296 B (the cap 83,152,273,408 + 100,663,296 stays under
    the requested 85,045,477,376 B, so min() keeps the cap at both ends); the best is the same."""
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines import Engine, EngineSettings, run_engine, vllm_memory
    from kvplan.engines.interface import Interval
    from kvplan.specs import load_hardware, load_model
    from kvplan.units import DType

    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192, kv_dtype=DType.bf16, tp=2)
    ranged = run_engine(req, EngineSettings(engine=Engine.vllm))
    real = vllm_memory.tp_setup
    monkeypatch.setattr(vllm_memory, "tp_setup", lambda *a: (
        Interval.exact(real(*a)[0].best), real(*a)[1]))
    exact = run_engine(req, EngineSettings(engine=Engine.vllm))
    assert ranged.kv_cache_bytes == exact.kv_cache_bytes
    assert exact.kv_cache_bytes_low - ranged.kv_cache_bytes_low == 1_213_857_792
    assert ranged.kv_cache_bytes_high - exact.kv_cache_bytes_high == 100_663_296
