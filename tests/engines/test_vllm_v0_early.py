"""vLLM V0 before 0.6.4 (kvplan.engines.vllm_v0_early): which peak each release measured, its
profile batch defaults, and the all-reduce inputs 0.2.5 held under tensor parallelism. Expected
values are worked by hand from the rules the module quotes from vLLM's source."""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.interface import Interval
from kvplan.engines.vllm_series import batching_defaults, flavour
from kvplan.engines.vllm_v0_early import (
    PEAK_ALLOCATED,
    PEAK_DEVICE,
    PEAK_GROWTH,
    early_batched_tokens,
    early_peak,
    record_stream_hold,
)
from kvplan.specs import load_hardware, load_model


@pytest.mark.parametrize(("version", "v1", "peak"), [
    ("0.1.7", False, PEAK_ALLOCATED), ("0.2.4", False, PEAK_ALLOCATED),
    ("0.2.5", False, PEAK_DEVICE), ("0.3.0", False, PEAK_DEVICE),
    ("0.3.1", False, PEAK_GROWTH), ("0.4.1", False, PEAK_GROWTH), ("0.6.3.post1", False, PEAK_GROWTH),
    ("0.6.4", False, None), ("0.8.5-v0", False, None), ("0.10.2", True, None), (None, False, None),
])
def test_which_peak_each_release_measured(version: str | None, v1: bool, peak: str | None):
    assert early_peak(version, v1) == peak


@pytest.mark.parametrize(("version", "context", "batched"), [
    ("0.2.5", 4096, 4096), ("0.3.0", 1024, 2048), ("0.4.1", 65536, 65536),  # max(L, 2048)
    ("0.5.2", 65536, 65536),  # chunked prefill not yet on by default
    ("0.5.3", 32768, 32768), ("0.5.3", 32769, 512), ("0.6.3", 131072, 512),
    ("0.6.4", 131072, 512), ("0.6.4", 8192, 8192),
    ("0.6.5", 131072, None),  # 2,048 from 0.6.5: vllm_series.batching_defaults
])
def test_early_profile_batch(version: str, context: int, batched: int | None):
    assert early_batched_tokens(version, context) == batched
    if batched is not None:
        assert batching_defaults(context, "a100-80gb", flavour(version), 80 << 30) == (batched, 256)


def test_the_025_all_reduce_inputs_held_with_tensor_parallelism():
    model = load_model("llama-2-70b")
    # (2 x 80 layers + 1) x 4,096 tokens x 8,192 hidden x 2 B = 10,804,527,104 (10.06 GiB)
    assert record_stream_hold("0.2.5", False, model, 4, 4096) == Interval(10_804_527_104, 0,
                                                                           10_804_527_104)
    assert record_stream_hold("0.2.5", False, model, 1, 4096) is None  # no all-reduce
    # the smallest TP with an all-reduce already holds them (the same bytes: per GPU, not x TP)
    assert record_stream_hold("0.2.5", False, model, 2, 4096) == Interval(10_804_527_104, 0,
                                                                           10_804_527_104)
    assert record_stream_hold("0.2.6", False, model, 4, 4096) is None  # AVOID_RECORD_STREAMS
    assert record_stream_hold("0.2.4", False, model, 4, 4096) is None  # allocated peak only
    assert record_stream_hold("0.2.5", True, model, 4, 4096) is None


def _run(version: str, tp: int, model: str = "llama-2-70b"):
    req = SizeRequest(model=load_model(model), gpu=load_hardware("a100-80gb"),
                      context_tokens=4096, tp=tp)
    return run_engine(req, EngineSettings(engine=Engine.vllm, version=version))


def test_the_hold_enters_the_activation_peak_of_025_only():
    # A model outside kvplan.engines.vllm_v0_reserved's replay (MoE): the hold is added to the
    # allocated-peak model, (2 x 32 + 1) x 4,096 x 4,096 x 2 B = 2,181,038,080
    r5, r6 = _run("0.2.5", 4, "mixtral-8x7b"), _run("0.2.6", 4, "mixtral-8x7b")
    assert r5.activation_bytes - r6.activation_bytes == 2_181_038_080
    assert r5.activation_bytes_low == r6.activation_bytes_low
    steps = {st.label: st for st in r5.steps}
    assert "65 all-reduce inputs of 4,096 x 4,096 x 2 B held by record_stream" in (
        steps["activation peak"].formula)
    # Llama-2-70B is replayed through the caching allocator: the held o_proj/down outputs also
    # keep the next layer from reusing their blocks, so 0.2.5 books more than the 161 x 64 MiB
    # (10,804,527,104 B) held (tests/engines/test_vllm_v0_reserved.py)
    d5, d6 = _run("0.2.5", 4), _run("0.2.6", 4)
    assert d5.activation_bytes - d6.activation_bytes > 10_804_527_104
    steps = {st.label: st for st in d5.steps}
    assert "160 all-reduce inputs held by record_stream (vLLM 0.2.5)" in (
        steps["activation peak"].formula)
    # 0.2.4 books no non-torch memory (torch.cuda.max_memory_allocated)
    assert _run("0.2.4", 4).non_torch_bytes == 0 and r6.non_torch_bytes == 1 << 29


@pytest.mark.parametrize(("version", "lines"), [
    ("0.2.5", ["# GPU blocks: "]), ("0.6.2", ["# GPU blocks: "]),
    ("0.6.3", ["# GPU blocks: ", "Maximum concurrency for 4096 tokens per request: "]),
    ("0.7.3", ["# GPU blocks: ", "Maximum concurrency for 4096 tokens per request: "]),
])
def test_the_concurrency_line_is_printed_from_0_6_3(version: str, lines: list[str]):
    """V0 logs "Maximum concurrency" from 0.6.3 (PR #8831, in the 0.6.3 wheel's gpu_executor.py);
    the logs of 0.2.5, 0.3.0, 0.4.1 and 0.6.3.dev114 in tests/assets/logs print only the blocks."""
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("a100-80gb"),
                      context_tokens=4096)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version=version))
    assert len(r.log_lines) == len(lines)
    assert all(got.startswith(want) for got, want in zip(r.log_lines, lines, strict=True))
