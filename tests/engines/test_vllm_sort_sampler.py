"""vLLM 0.10's profiling sampler without FlashInfer: PyTorch's top-k/top-p sort (issue #13,
task h26v010: the ~2.7 GiB a GPU logs 213-215 and 234 left unbooked).

Every byte is read in source (kvplan/engines/vllm_sort_sampler.py): vLLM 0.10.0/0.10.1.1/0.10.2
(_dummy_sampler_run, Sampler.forward, apply_top_k_top_p), PyTorch's SortStable.cu
segmented_sort_pairs and cub's DispatchSegmentedRadixSort; nothing here is fitted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.parse import parse_text
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.activation import V1_SAMPLER_BYTES_PER_LOGIT
from kvplan.engines.vllm_sort_sampler import (
    SORT_PEAK,
    SORT_SAMPLER_BYTES_PER_LOGIT,
    sorts_in_profile,
    v1_sampler_bytes,
)
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

QWEN3_ROWS, QWEN3_VOCAB = 1024, 151_936  # max_num_seqs on >= 70 GiB GPUs; Qwen3's vocabulary
LOGITS = QWEN3_ROWS * QWEN3_VOCAB  # 155,582,464


def test_the_sort_holds_38_bytes_a_logit() -> None:
    # bf16 logits 2 + fp32 copy 4 + sorted fp32 values 4 + int64 indices 8 (the sort's outputs)
    # + reverse_indices int64 8 (SortStable.cu) + cub's 3rd keys fp32 4 and 3rd values int64 8
    assert SORT_PEAK == 2 + 4 + 4 + 8 + 8 + 4 + 8 == 38
    assert SORT_SAMPLER_BYTES_PER_LOGIT == (12, 38, 40)
    # log 132 (0.10.2, 1,024 x 151,936 logits) printed 5.58 GiB of peak activation
    assert LOGITS * SORT_PEAK == 5_912_133_632
    assert 5.50 < LOGITS * SORT_PEAK / 2**30 < 5.58


def test_only_the_0_8_to_0_16_series_are_gated_in() -> None:
    # 0.11-0.16 read in task h27v1miss (0.17.1 masks with Triton); 0.8.0-0.9.2 in task h36v083
    assert [v for v in ("0.7.3", "0.8.0", "0.8.3", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2",
                        "0.11.0", "0.16.0", "0.17.1", "0.19.0", None)
            if sorts_in_profile(v)] == ["0.8.0", "0.8.3", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2",
                                        "0.11.0", "0.16.0"]


def test_the_path_rows_and_vocabulary_pick_the_figure() -> None:
    model = load_model("qwen3-32b")
    s = EngineSettings(engine=Engine.vllm)
    assert v1_sampler_bytes("0.10.0", 1024, model, s) == SORT_SAMPLER_BYTES_PER_LOGIT
    # the FlashInfer path (logged "Using FlashInfer for top-p & top-k sampling."): no sort
    fi = EngineSettings(engine=Engine.vllm, topk_topp_sampler="flashinfer")
    assert v1_sampler_bytes("0.10.0", 1024, model, fi) == V1_SAMPLER_BYTES_PER_LOGIT
    # fewer than 128 rows take segmented_sort_pairs_by_full_sort: not this figure
    assert v1_sampler_bytes("0.10.0", 127, model, s) == V1_SAMPLER_BYTES_PER_LOGIT
    assert v1_sampler_bytes("0.10.0", 128, model, s) == SORT_SAMPLER_BYTES_PER_LOGIT
    # other releases keep the V1 sampler's 16 B
    assert v1_sampler_bytes("0.19.0", 1024, model, s) == V1_SAMPLER_BYTES_PER_LOGIT
    with pytest.raises(InputError, match="topk_topp_sampler"):
        v1_sampler_bytes("0.10.0", 1024, model, EngineSettings(engine=Engine.vllm,
                                                               topk_topp_sampler="sort"))


def _activation(version: str, sampler: str | None = None) -> int:
    req = SizeRequest(model=load_model("qwen3-32b"), gpu=load_hardware("h100"),
                      context_tokens=32768, kv_dtype=DType.fp8, tp=8)
    res = run_engine(req, EngineSettings(engine=Engine.vllm, version=version,
                                         topk_topp_sampler=sampler))
    return res.activation_bytes


def test_qwen3_32b_tp8_on_h100_books_the_sort() -> None:
    # the forward (8,192 tokens x 24,960 elements x 2 B = 408,944,640 B) is below the sampler
    assert _activation("0.10.0") == LOGITS * 38 == 5_912_133_632
    assert _activation("0.10.0", "flashinfer") == LOGITS * 16 == 2_489_319_424
    assert _activation("0.10.0", "native") == 5_912_133_632
    assert _activation("0.19.0") == 2_489_319_424  # the Triton top-k/top-p, unchanged


def test_the_log_line_and_the_directive_state_the_path() -> None:
    head = "INFO 08-15 10:05:36 [api_server.py:1755] vLLM API server version 0.10.0\n"
    fi = head + ("(EngineCore_0 pid=2881) INFO 09-04 01:29:01 [topk_topp_sampler.py:50] "
                 "Using FlashInfer for top-p & top-k sampling.\n")
    native = head + ("(VllmWorker rank=2 pid=629124) WARNING 08-15 10:08:11 "
                     "[topk_topp_sampler.py:59] FlashInfer is not available. Falling back to the "
                     "PyTorch-native implementation of top-p & top-k sampling. For the best "
                     "performance, please install FlashInfer.\n")
    assert parse_text(fi, Path("x.log")).runs[0].settings["topk_topp_sampler"] == "flashinfer"
    assert parse_text(native, Path("x.log")).runs[0].settings["topk_topp_sampler"] == "native"
    # vLLM 0.8.x with FlashInfer 0.2.3 or newer installed still sorts (task h36v083, read in the
    # 0.8.0-0.8.5 wheels: topk_topp_sampler.py 0.8.3 :34-49)
    v08 = ("INFO 04-14 06:00:52 [api_server.py:1034] vLLM API server version 0.8.3\n"
           "INFO 04-14 06:01:12 [topk_topp_sampler.py:44] Currently, FlashInfer top-p & top-k "
           "sampling sampler is disabled because FlashInfer>=v0.2.3 is not backward compatible. "
           "Falling back to the PyTorch-native implementation of top-p & top-k sampling.\n")
    assert parse_text(v08, Path("x.log")).runs[0].settings["topk_topp_sampler"] == "native"
    stated = parse_text("# kvplan: topk_topp_sampler=flashinfer\n" + head, Path("x.log"))
    assert stated.runs[0].settings["topk_topp_sampler"] == "flashinfer"
    with pytest.raises(InputError, match="native or flashinfer"):
        parse_text("# kvplan: topk_topp_sampler=sorted\n" + head, Path("x.log"))



def test_a_measured_activation_takes_no_sampler_note() -> None:
    """With the activation peak read from a log, the sampler's bytes do not enter: no pip-default
    note, and a stated path is noted as not used (never silently)."""
    from kvplan.engines import Measured

    req = SizeRequest(model=load_model("qwen3-32b"), gpu=load_hardware("h100"),
                      context_tokens=32768, kv_dtype=DType.fp8, tp=8)
    expected = {None: [], "native": ["topk_topp_sampler native: the activation peak is measured "
                                     "(log), so it is not used"]}
    for path, notes in expected.items():
        res = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.10.0",
                                             topk_topp_sampler=path,
                                             measured=Measured(activation_bytes=2 * 2**30)))
        assert res.activation_bytes == 2 * 2**30
        assert [a for a in res.size.assumptions if a.startswith("topk_topp_sampler")] == notes
    unmeasured = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.10.0"))
    assert any(a.startswith("topk_topp_sampler unstated: native")
               for a in unmeasured.size.assumptions)
