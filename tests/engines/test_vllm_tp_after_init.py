"""vLLM V1's tensor-parallel non-torch term once the TP set-up precedes the start-up snapshot.

From 0.11 Worker.init_device runs init_worker_distributed_environment before
`self.init_snapshot = MemorySnapshot()` (v1/worker/gpu_worker.py, 0.11.0 :169 then :182, 0.27.1
:376 then :395; 0.10.2 :175 then :193, the other way round), so PyNccl (warmed up in its
constructor), custom all-reduce's IPC buffers and the symmetric-memory buffer are outside the
non-torch growth. Off NVLink the term is the one-GPU growth (70 MiB) plus NCCL's in-window P2P
buffers: LL 524,288 + LL128 4,915,200 + SIMPLE 4,194,304 = 9,633,792 B per channel and
connection (NCCL init.cc), 2 channels at best (torch's device-group communicator, created by the
logits all_gather up to 0.24), 64 channels x 2 connections at the high end (MAXCHANNELS).
"""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_nontorch import (
    NON_TORCH_V1_TP_AFTER_INIT,
    NON_TORCH_V1_TP_AFTER_INIT_P2P,
    TP_SNAPSHOT_AFTER_INIT_FROM,
    non_torch,
)
from kvplan.engines.vllm_series import flavour
from kvplan.units import GIB, MIB
from tests.conftest import explain_steps

NVLINK_BEST = 2_233_382_993  # floor(2.08 x 2^30), logs 62 and 75 (0.19: already in-window)


def test_the_source_arithmetic() -> None:
    assert TP_SNAPSHOT_AFTER_INIT_FROM == (0, 11)
    # best: 73,400,320 (70 MiB) + 2 x 9,633,792 = 92,667,904 B; low: the one-GPU low, 20 MiB
    # (host memory); high: 536,870,912 (0.5 GiB) + 64 x 2 x 9,633,792 = 1,769,996,288 B
    assert NON_TORCH_V1_TP_AFTER_INIT == (92_667_904, 20_971_520, 1_769_996_288)
    # stated pcie-p2p: the low end holds the 2 channels too, 20,971,520 + 19,267,584
    assert NON_TORCH_V1_TP_AFTER_INIT_P2P == (92_667_904, 40_239_104, 1_769_996_288)


@pytest.mark.parametrize(("version", "transport", "tp", "custom_ar", "want"), [
    # 0.10.2 snapshots first: the fitted 1 GiB, + custom all-reduce's 16 MiB on stated P2P at TP 2
    ("0.10.2", None, 2, True, (GIB, 20 * MIB, 2 * GIB)),
    ("0.10.2", "pcie-p2p", 2, True, (1_090_519_040, 57_016_320, 2_164_260_864)),
    # 0.11.0 and later: the in-window term; custom all-reduce's buffers are outside it
    ("0.11.0", None, 2, True, (92_667_904, 20_971_520, 1_769_996_288)),
    ("0.22.0", None, 4, False, (92_667_904, 20_971_520, 1_769_996_288)),
    ("0.27.1", "pcie-p2p", 2, True, (92_667_904, 40_239_104, 1_769_996_288)),
    ("0.33.0", "pcie-p2p", 4, True, (92_667_904, 40_239_104, 1_769_996_288)),
    ("0.27.1", "host", 2, True, (70 * MIB, 20 * MIB, GIB // 2)),
])
def test_the_term_by_release_and_transport(version, transport, tp, custom_ar, want) -> None:  # noqa: ANN001
    nt, how = non_torch(flavour(version), tp, 0, False, nvlink=False, transport=transport,
                        custom_ar=custom_ar)
    assert (nt.best, nt.low, nt.high) == want
    assert ("in-window" in how) == (version != "0.10.2" and transport != "host")


def test_the_nvlink_term_stays_fitted_and_custom_ar_is_outside_it_from_011() -> None:
    for v in ("0.11.0", "0.19.0", "0.27.1"):
        assert non_torch(flavour(v), 2, 0, False, nvlink=True)[0].best == NVLINK_BEST
        # --disable-custom-all-reduce: its 16 MiB were allocated before the snapshot anyway
        off, how = non_torch(flavour(v), 2, 0, False, nvlink=True, custom_ar=False)
        assert off.best == NVLINK_BEST and "outside the term from 0.11" in how
    # 0.10.2 snapshots before the set-up: less 16,777,216 B
    off, _ = non_torch(flavour("0.10.2"), 2, 0, False, nvlink=True, custom_ar=False)
    assert off.best == NVLINK_BEST - 16 * MIB == 2_216_605_777


def test_v0_keeps_its_terms() -> None:
    # V0 0.7.2 snapshots before the TP set-up (vllm/worker/worker.py): the fitted 1 GiB table
    assert non_torch(flavour("0.7.2-v0"), 2, 0, False)[0].best == GIB
    # 0.6.5-0.6.6 read their baseline before the TP set-up too (task h39v066); 0.6.4 books V0's
    # context + NCCL term (512 MiB)
    assert non_torch(flavour("0.6.6"), 2, 0, False)[0].best == GIB
    assert non_torch(flavour("0.6.4"), 2, 0, False)[0].best == GIB // 2


@pytest.mark.parametrize(("gpu", "want"), [("l40s", 92_667_904), ("h100", NVLINK_BEST)])
def test_explain_json_at_tp2_on_a_pcie_and_an_sxm_gpu(runner, gpu: str, want: int) -> None:  # noqa: ANN001
    steps = explain_steps("llama-3.1-8b", "--gpu", gpu, "--tp", "2", "--engine", "vllm",
                          "--engine-version", "0.19.0")
    [step] = [s for s in steps if s["label"] == "non-torch memory"]
    assert step["value"] == want
    assert ("in-window TP buffers" in step["formula"]) == (gpu == "l40s")
    assert ("NVLink" in step["formula"]) == (gpu == "h100")
