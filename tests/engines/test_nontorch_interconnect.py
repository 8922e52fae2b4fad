"""vLLM V1's tensor-parallel non-torch term by interconnect (issue #13, round 2).

vLLM's own TP buffers are small (custom all-reduce: meta_size + 8 MiB, 8 MiB IPC buffer, 8 MiB
rank data; symmetric memory at most 64 MiB on Hopper), so the ~2 GiB that H100 SXM runs book is
NCCL's and FlashInfer's NVSwitch workspaces, fitted on logs 62 and 75 (2.07, 2.09 GiB).
"""

from __future__ import annotations

from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_nontorch import (
    NON_TORCH_V1,
    NON_TORCH_V1_TP,
    NON_TORCH_V1_TP_AFTER_INIT,
    NON_TORCH_V1_TP_NVLINK,
    non_torch,
    nvlink_module,
)
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB, DType


def test_nvlink_form_factor_comes_from_the_sourced_label_and_device_names() -> None:
    # "NVIDIA H100 SXM5 80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA B200 (HGX/DGX B200 ...)"
    for name in ("h100", "h200-141gb", "a100-40gb", "b200", "gb200", "v100-sxm2-16gb"):
        gpu = load_hardware(name)
        assert nvlink_module(gpu.label, gpu.device_names), name
    # PCIe cards, and an NVL card bridged in pairs, name no NVLink module form factor
    for name in ("l4", "l40s", "a10g", "h100-pcie-80gb", "h100-nvl", "rtx-4090",
                 # issue #12 round 2: PCIe cards ("NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-40GB")
                 "a100-pcie-80gb", "a100-pcie-40gb", "a40", "l40", "rtx-a6000", "rtx-4000-ada"):
        gpu = load_hardware(name)
        assert not nvlink_module(gpu.label, gpu.device_names), name
    assert not nvlink_module("GPU with 79.19 GiB (from the log)")


def test_the_nvlink_term_is_the_fitted_two_runs() -> None:
    # logs 62 and 75: 2.07 and 2.09 GiB -> best 2.08 GiB = floor(2.08 x 2^30) = 2,233,382,993 B
    assert NON_TORCH_V1_TP_NVLINK[0] == 2_233_382_993
    assert NON_TORCH_V1_TP_NVLINK[1] <= int(2.07 * GIB) and NON_TORCH_V1_TP_NVLINK[2] >= int(2.09 * GIB)
    # vLLM's own buffers at TP 2 on Hopper (source): 3 x 8 MiB custom all-reduce + 64 MiB
    # symmetric memory = 88 MiB, far below the term: the rest is NCCL/FlashInfer workspace
    assert NON_TORCH_V1_TP_NVLINK[1] > 3 * 8 * MIB + 64 * MIB


def test_non_torch_selects_by_interconnect_tp_and_series() -> None:
    v1, v0 = flavour("0.19.0"), flavour("0.6.4")
    nvl, how = non_torch(v1, 2, 0, False, nvlink=True)
    assert nvl.best == 2_233_382_993 and "NVLink" in how
    # from 0.11 the PCIe term is the in-window growth (task h31tpterm): 70 MiB + 2 x 9,633,792 B
    assert non_torch(v1, 2, 0, False, nvlink=False)[0].best == NON_TORCH_V1_TP_AFTER_INIT[0] \
        == 92_667_904
    # 0.10 snapshots before the TP set-up: the fitted 1 GiB
    assert non_torch(flavour("0.10.2"), 2, 0, False, nvlink=False)[0].best == NON_TORCH_V1_TP[0] \
        == GIB
    assert non_torch(v1, 1, 0, False, nvlink=True)[0].best == NON_TORCH_V1[0] == 70 * MIB
    # V0's TP term before 0.6.5 is not selected by interconnect (not refitted this round; 0.6.5 on
    # book V1's TP table, task h39v066)
    assert non_torch(v0, 2, 0, False, nvlink=True)[0] == non_torch(v0, 2, 0, False)[0]


def test_the_pool_moves_by_exactly_the_term_difference() -> None:
    # Llama-3.1-8B, TP 2, vLLM 0.19.0 at utilization 0.95, max_model_len 8,192 (log 62's run):
    # the same memory with an SXM label and a plain label differs only in the non-torch term,
    # 2,233,382,993 - 92,667,904 = 2,140,715,089 B less KV on the NVLink module (0.19 books the
    # PCIe term as the in-window growth, task h31tpterm).
    model = load_model("llama-3.1-8b")
    h100 = load_hardware("h100")
    plain = h100.model_copy(update={"label": "NVIDIA H100 80GB", "device_names": []})
    settings = EngineSettings(engine=Engine.vllm, version="0.19.0",
                              memory_fraction=__import__("fractions").Fraction(95, 100))
    out = []
    for gpu in (h100, plain):
        req = SizeRequest(model=model, gpu=gpu, context_tokens=8192, kv_dtype=DType.bf16, tp=2)
        out.append(run_engine(req, settings))
    nvl, pcie = out
    assert nvl.non_torch_bytes - pcie.non_torch_bytes == 2_140_715_089
    # KV per token per GPU at TP 2: 32 layers x 4 KV heads x 128 x 2 x 2 B = 65,536 B; blocks of
    # 16 tokens (1 MiB): the pool shrinks by the difference, 2,140,715,089 / 1,048,576 = 2,041.6,
    # in whole blocks
    assert (pcie.kv_cache_tokens - nvl.kv_cache_tokens) // 16 in (2041, 2042)


def test_an_a100_pcie_pair_books_the_pcie_term_and_the_sxm4_pair_the_nvlink_one() -> None:
    # Qwen2-7B, TP 2, vLLM 0.19.0 at 0.9: the SXM4 board ("NVIDIA A100-SXM4-80GB") books the
    # fitted NVLink workspace, 2,233,382,993 B; the PCIe card the in-window PCIe best from 0.11,
    # 92,667,904 B (task h31tpterm; logs 128-129
    # ran on A100 80GBs whose workers print "platform lacks GPU P2P capability")
    model = load_model("qwen2-7b")
    settings = EngineSettings(engine=Engine.vllm, version="0.19.0",
                              memory_fraction=__import__("fractions").Fraction(9, 10))
    booked = {}
    for name in ("a100-80gb", "a100-pcie-80gb"):
        req = SizeRequest(model=model, gpu=load_hardware(name), context_tokens=8192,
                          kv_dtype=DType.bf16, tp=2)
        booked[name] = run_engine(req, settings).non_torch_bytes
    assert booked["a100-80gb"] - booked["a100-pcie-80gb"] == 2_233_382_993 - 92_667_904
