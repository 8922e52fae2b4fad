"""vLLM V0 from 0.7 with tensor parallelism, and the engine a log's own lines name (issue #13 task
h30v0). Expected values are worked by hand from the rules the modules quote from vLLM 0.7.2's
source (vllm/worker/worker.py init_device, vllm/distributed/parallel_state.py,
device_communicators/pynccl.py, v1/core/kv_cache_utils.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.parse import parse_file, parse_text
from kvplan.calibrate.resolve import infer_vllm_version
from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.interface import Interval
from kvplan.engines.vllm_nontorch import (
    NON_TORCH_V0_TP,
    NON_TORCH_V1,
    NON_TORCH_V1_TP,
    NON_TORCH_V1_TP_NVLINK,
    non_torch,
)
from kvplan.engines.vllm_series import flavour
from kvplan.engines.vllm_v0_tp import allreduce_out
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

LOGS = Path(__file__).parents[1] / "assets" / "logs"
MIB = 1 << 20
GIB = 1 << 30


# --- non-torch: V0 from 0.7 books TP buffers as V1 does -------------------------------------------

def test_v0_from_07_books_the_v1_tp_term_by_transport() -> None:
    nt, how = non_torch(flavour("0.7.2-v0"), 2, 14 * GIB, False)
    assert nt == Interval(*NON_TORCH_V1_TP) == Interval(GIB, 20 * MIB, 2 * GIB)
    assert "start-up baseline before the TP groups" in how
    assert "transport" in how  # the V1 table's words: the transport is not stated
    # an NVLink module by its label, and a stated host transport, as V1 books them
    assert non_torch(flavour("0.7.2-v0"), 2, 0, False, nvlink=True)[0] == Interval(
        *NON_TORCH_V1_TP_NVLINK)
    assert non_torch(flavour("0.8.5-v0"), 2, 0, False, transport="host")[0] == Interval(
        *NON_TORCH_V1)


def test_v0_before_07_and_one_gpu_keep_their_terms() -> None:
    # 0.6.5-0.6.6 read their baseline before the TP set-up too (task h39v066): V1's TP table,
    # unlabelled 1 GiB, 20 MiB-2 GiB; 0.6.4 books the whole device (V0's context + NCCL term)
    assert non_torch(flavour("0.6.6"), 2, 0, False)[0] == Interval(*NON_TORCH_V1_TP) == Interval(
        GIB, 20 * MIB, 2 * GIB)
    assert non_torch(flavour("0.6.4"), 4, 0, False)[0] == Interval(*NON_TORCH_V0_TP)
    assert non_torch(flavour("0.7.2-v0"), 1, 0, False)[0] == Interval(*NON_TORCH_V1)  # growth


# --- activation: the out-of-place all-reduce output ------------------------------------------------

def test_the_all_reduce_output_is_one_hidden_row_a_batched_token() -> None:
    model = load_model("qwen2.5-14b-instruct")
    # 32,768 tokens x 5,120 hidden x 2 B = 335,544,320 B (0.3125 GiB)
    assert allreduce_out("0.7.2-v0", False, model, 2, 32768) == Interval(335_544_320, 0,
                                                                        335_544_320)
    assert allreduce_out("0.7.2-v0", False, model, 1, 32768) is None  # no all-reduce
    assert allreduce_out("0.6.6", False, model, 2, 32768) is None  # not read before 0.7
    assert allreduce_out("0.10.2", True, model, 2, 32768) is None  # V1 left as it was


def _qwen14b(version: str, tp: int, gpu: str = "a100-pcie-40gb"):
    req = SizeRequest(model=load_model("qwen2.5-14b-instruct"), gpu=load_hardware(gpu),
                      context_tokens=32768, kv_dtype=DType.fp16, weight_dtype=DType.fp16, tp=tp)
    return run_engine(req, EngineSettings(engine=Engine.vllm, version=version))


def test_the_output_enters_the_v0_tp_activation_peak() -> None:
    r = _qwen14b("0.7.2-v0", 2)
    # forward 32,768 tok x (3 x 5,120 + 3 x 6,912) el x 2 B = 2,365,587,456 B, plus the
    # all-reduce output 335,544,320 B = 2,701,131,776 B (the sampler, 256 x 152,064 x 40 B =
    # 1,557,135,360 B, is below)
    assert r.activation_bytes == 2_701_131_776
    assert r.non_torch_bytes == GIB  # a PCIe card: the unlabelled TP term
    assert _qwen14b("0.7.2-v0", 2, "a100-40gb").non_torch_bytes == GIB * 208 // 100  # SXM4
    steps = {st.label: st for st in r.steps}
    assert "all-reduce output of 32,768 x 5,120 x 2 B (V0 from 0.7: out of place)" in (
        steps["activation peak"].formula)
    one = _qwen14b("0.7.2-v0", 1)
    assert one.activation_bytes == 32768 * (3 * 5120 + 3 * 13824) * 2  # no TP, no output


def test_log_254_books_the_terms_read_in_the_source() -> None:
    from kvplan.calibrate.compare import calibrate_files

    reports = calibrate_files([LOGS / "254-vllm-qwen2.5-14b-fp16-tp2-40gb-v0.7.2.log"])
    shapes = {c.quantity: c for r in reports for c in r.checks if c.basis == "shapes"}
    kv = shapes["KV memory"]
    # 39.50 GiB x 0.9 = 38,172,519,628 B - 14,770,033,664 weights - 2,701,131,776 activation
    # - 1 GiB non-torch = 19,627,612,364 B = 18.28 GiB (the log: 17.24; +10.74% before); task
    # h39rope adds the rotary cos/sin cache to the weights, 32,768 x 128 x 2 B = 8,388,608 B:
    # 19,619,223,756 B = 18.27 GiB
    assert kv.predicted == pytest.approx(19_619_223_756 / GIB, abs=0.005)


# --- the engine a log's own lines name -------------------------------------------------------------

# vLLM 0.7.2's V1 engine (VLLM_USE_V1=1) prints "# GPU blocks: N" from v1/core/kv_cache_utils.py
# and "Loading model weights took" from v1/worker/gpu_model_runner.py, as V0 prints them from its
# executor and model_runner.py (lines in the 0.7.2 formats, no release stated).
EARLY_V1 = ("INFO 02-11 07:40:45 gpu_model_runner.py:872] Loading model weights took 14.9595 GB\n"
            "INFO 02-11 07:40:49 kv_cache_utils.py:407] # GPU blocks: 9000\n"
            "INFO 02-11 07:40:49 kv_cache_utils.py:411] Maximum concurrency for 8192 tokens per "
            "request: 17.58x\n")
V0_SAME = ("INFO 02-11 07:40:45 model_runner.py:1115] Loading model weights took 14.9595 GB\n"
           "INFO 02-11 07:40:49 executor_base.py:110] # CUDA blocks: 9000, # CPU blocks: 2048\n"
           "INFO 02-11 07:40:49 executor_base.py:115] Maximum concurrency for 8192 tokens per "
           "request: 17.58x\n")


def test_an_early_v1_log_with_gpu_blocks_is_v1() -> None:
    run = parse_text(EARLY_V1, Path("x.log")).runs[0]
    assert run.values["blocks"] == 9000
    version, how = infer_vllm_version(run)
    assert version == "0.8.0"
    assert how == ("V1 engine by the log's line 1: gpu_model_runner.py; its \"# GPU blocks\" line "
                   "is the 0.7 series' V1 format: modelled as kvplan's first V1 series")
    assert flavour(version).v1
    v0 = parse_text(V0_SAME, Path("x.log")).runs[0]
    assert infer_vllm_version(v0) == ("0.6.4", "V0 inferred from the log format")


def test_a_v1_banner_before_08_is_modelled_as_the_first_v1_series() -> None:
    text = ("INFO 02-11 07:40:40 core.py:47] Initializing a V1 LLM engine (v0.7.2) with config: "
            "model='m'\n" + EARLY_V1)
    run = parse_text(text, Path("x.log")).runs[0]
    assert run.version == "0.7.2"
    assert infer_vllm_version(run)[0] == "0.8.0"


def test_v0_lines_under_a_release_that_shipped_both_engines_add_v0() -> None:
    # log 59: the header names 0.8.3 (V1 by default), its lines are V0's worker.py prose
    run = parse_file(LOGS / "59-vllm-qwen2.5-vl-72b-4xa100-40gb-v0.8.3-v0.log").runs[0]
    version, how = infer_vllm_version(run)
    assert version == "0.8.3-v0" and not flavour(version).v1
    assert "V0 engine by the log's line 9: worker.py:267] the current vLLM instance" in how


@pytest.mark.parametrize(("log", "expected"), [
    ("04-vllm-llama3.1-8b-l40s-v1.log", ("0.8.4", "stated")),  # V1 lines, V1 release
    ("110-vllm-llama3.2-3b-t4-colab-v0.8.2.log", ("0.8.2-v0", "stated")),  # "Falling back to V0"
    ("94-vllm-llama3-8b-a100-40gb-v0.6.6.log", ("0.6.6", "stated")),  # V0 only release
    ("254-vllm-qwen2.5-14b-fp16-tp2-40gb-v0.7.2.log", ("0.7.2-v0", "stated")),
])
def test_logs_whose_lines_agree_with_their_release_keep_it(log: str,
                                                           expected: tuple[str, str]) -> None:
    assert infer_vllm_version(parse_file(LOGS / log).runs[0]) == expected


def test_the_v0_fallback_warning_is_not_a_v1_mark() -> None:
    run = parse_text("INFO 05-05 15:15:24 [arg_utils.py:1854] Compute Capability < 8.0 is not "
                     "supported by the V1 Engine. Falling back to V0.\n"
                     "INFO [gpu_executor.py:76] # GPU blocks: 5691, # CPU blocks: 2048\n",
                     Path("x.log")).runs[0]
    assert run.settings["log_engine"] == "V0"
    assert infer_vllm_version(run)[0] == "0.6.4"
