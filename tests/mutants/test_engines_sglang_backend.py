"""Mutation tests of kvplan/engines/sglang_backend.py (task h71mut): the rules and words of the
prefill CUDA-graph default, aiter's long-context derate and the ROCm default backend, by hand from
the SGLang lines the module cites (server_args.py reserve_for_graph_mb in 0.5.16/0.5.17,
arg_groups/memory_hook.py in 0.5.21, cuda_graph_config.py:119-123 in 0.5.22/0.5.23;
model_override_base.py get_default_attn_backend: aiter on ROCm from 0.4.7, MLA only with 16 or
128 KV heads a rank; the 0.85 derate above 8,192 tokens)."""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity import SizeRequest
from kvplan.engines.sglang_backend import aiter_derated, default_backend, prefill_graphs
from kvplan.specs import load_hardware, load_model

SRC = "SGLang's ROCm default (get_default_attn_backend, read in 0.4.7, 0.5.17, 0.5.21-0.5.23)"


def _req(model: str, gpu: str = "h100", tp: int = 1, pp: int = 1) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=32768,
                       tp=tp, pp=pp)


def test_prefill_graphs_per_request_and_release() -> None:
    dense, mla = _req("llama-3.1-8b"), _req("deepseek-v2-lite")
    assert prefill_graphs(dense, "0.5.15") == (None, "")
    assert prefill_graphs(dense, "0.5.16") == ("tokens", "prefill CUDA graphs: 8 MiB per captured size")
    assert prefill_graphs(dense, None) == prefill_graphs(dense, "0.5.23")  # the default release
    amd = _req("llama-3.1-8b", "mi300x")
    assert prefill_graphs(amd, "0.5.21") == (
        None, "no prefill CUDA graphs off CUDA (tc_piecewise is switched off on ROCm)")
    assert prefill_graphs(amd, "0.5.22") == (
        None, "no prefill CUDA graphs off CUDA (prefill graphs are opt-in there)")
    assert prefill_graphs(_req("gemma-3-4b"), "0.5.21") == (
        None, "prefill CUDA graphs taken as off for a multimodal model (SGLang switches "
        "breakable graphs off unless the architecture is allowlisted: not modelled)")
    assert prefill_graphs(_req("llama-3.1-8b", pp=2), "0.5.21") == (
        None, "no prefill CUDA graphs with pipeline parallelism (off by default)")
    assert prefill_graphs(_req("llama-3.1-8b", pp=2), "0.5.17")[0] == "tokens"
    assert prefill_graphs(mla, "0.5.17") == (
        None, "no prefill CUDA graphs for an MLA model (breakable graphs off for MLA)")
    assert prefill_graphs(mla, "0.5.21") == ("mla", "prefill CUDA graphs of an MLA model: 1.5 GiB "
                                             "reserved")
    # the vendor is read whatever its case
    upper = replace(dense, gpu=dense.gpu.model_copy(update={"vendor": "NVIDIA"}))
    assert prefill_graphs(upper, "0.5.21")[0] == "tokens"


def test_aiter_derate() -> None:
    assert aiter_derated("aiter", 8193, "0.4.7") is True
    assert aiter_derated("aiter", 8192, "0.4.7") is False
    assert aiter_derated("aiter", 8193, "0.4.6") is False
    assert aiter_derated("triton", 8193, "0.4.7") is False
    assert aiter_derated("aiter", 8193, None) is True


def test_default_backend_and_its_words() -> None:
    assert default_backend(_req("llama-3.1-8b"), "0.5.21") is None  # NVIDIA
    assert default_backend(_req("llama-3.1-8b", "mi300x"), "0.4.6") is None
    assert default_backend(_req("llama-3.1-8b", "mi300x"), "0.4.7") == (
        "aiter", f"{SRC}: a model without MLA")
    assert default_backend(_req("llama-3.1-8b", "mi300x"), None) == (
        "aiter", f"{SRC}: a model without MLA")
    assert default_backend(_req("deepseek-v2-lite", "mi300x"), "0.5.21") == (
        "aiter", f"{SRC}: MLA with 16 KV heads per rank (aiter takes 16 or 128)")
    assert default_backend(_req("deepseek-r1", "mi300x"), "0.5.21") == (
        "aiter", f"{SRC}: MLA with 128 KV heads per rank (aiter takes 16 or 128)")
    assert default_backend(_req("deepseek-v2-lite", "mi300x", tp=2), "0.5.21") == (
        "triton", f"{SRC}: MLA with 8 KV heads per rank (aiter takes only 16 or 128)")
    # 16 KV heads over TP 32: 0, counted as 1 a rank
    assert default_backend(_req("deepseek-v2-lite", "mi300x", tp=32), "0.5.21") == (
        "triton", f"{SRC}: MLA with 1 KV heads per rank (aiter takes only 16 or 128)")
    amd = _req("llama-3.1-8b", "mi300x")
    upper = replace(amd, gpu=amd.gpu.model_copy(update={"vendor": "AMD"}))
    assert default_backend(upper, "0.5.21") is not None
