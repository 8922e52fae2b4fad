"""Defects the reviews of `kvplan check` left after blind round blind-2026-12-06-r4 (task
h53checkgaps), each on the real public file that showed it (tests/assets/check/corpus, sources
in its SOURCES.md). Expected texts and numbers are worked out by hand from the file and the
specs named."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import Outcome, check_paths
from kvplan.specs import load_hardware

ASSETS = Path(__file__).parents[1] / "assets" / "check"
CORPUS = ASSETS / "corpus"


def _outcomes(rel: str, gpu: str | None = None) -> list[Outcome]:
    return check_paths([str(CORPUS / rel)], default_gpu=gpu).outcomes


def test_single_device_boards_are_not_listed_for_a_tensor_parallel_8_engine() -> None:
    """user-repos/crossplane-inference-vllm-kimi.yaml: a VLLMRuntime of Kimi-K2.5 with
    tensorParallelSize 8 and gpu "8" in one pod. gb10 (DGX Spark) and jetson-thor (Jetson AGX
    Thor) hold 121.6 and 122.8 GiB (their runtimes' totals), so the memory arithmetic alone let
    them in; but each is one board with one GPU (hardware spec gpus_per_node: 1, sourced in
    the spec), and one pod of 8 GPUs cannot be scheduled on a 1-GPU node: 8 > 1. The GPUs
    left are the 8-GPU servers whose memory holds the weights: b200, b300, gb200, gb300,
    h200-141gb, as before."""
    assert load_hardware("gb10").gpus_per_node == load_hardware("jetson-thor").gpus_per_node == 1
    (out,) = _outcomes("user-repos/crossplane-inference-vllm-kimi.yaml")
    assert out.verdict == "WARN"
    assert out.summary.startswith("no GPU named; starts on: b200, b300, gb200, gb300, "
                                  "h200-141gb; would not start on: ")
    no = out.summary.split("would not start on: ")[1].split(" (")[0].split(", ")
    assert "gb10" in no and "jetson-thor" in no
