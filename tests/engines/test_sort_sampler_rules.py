"""The 0.8-0.16 sort sampler's rules at their boundaries (kvplan/engines/vllm_sort_sampler.py): which
releases sort (0.10-0.11 unless FlashInfer is installed, 0.12-0.16 unless opted in), from how many
rows and above which vocabulary, and the exact note a plan carries for each reason a stated path
moves nothing (the mutation sample of stop 26 left these branches untested)."""

from __future__ import annotations

import pytest

from kvplan.engines import Engine, EngineSettings
from kvplan.engines.activation import V1_SAMPLER_BYTES_PER_LOGIT
from kvplan.engines.vllm_sort_sampler import (
    OPT_IN_DEFAULT,
    PIP_DEFAULT,
    SORT_SAMPLER_BYTES_PER_LOGIT,
    flashinfer_opt_in,
    sampler_note,
    sorts_in_profile,
    unused_reason,
    v1_sampler_bytes,
)
from kvplan.errors import InputError
from kvplan.specs import load_model

QWEN3 = load_model("qwen3-32b")  # vocabulary 151,936
SMALL = QWEN3.model_copy(update={"vocab_size": 4096})
JUST_ABOVE = QWEN3.model_copy(update={"vocab_size": 4097})


def _s(path: str | None = None) -> EngineSettings:
    return EngineSettings(engine=Engine.vllm, topk_topp_sampler=path)


@pytest.mark.parametrize(("version", "sorts", "opt_in"), [
    ("0.7.3", False, False), ("0.8", True, False), ("0.8.0", True, False),
    ("0.8.3", True, False), ("0.9.2", True, False), ("0.10", True, False), ("0.10.0", True, False),
    ("0.10.1.1", True, False), ("0.10.2", True, False), ("0.11", True, False),
    ("0.11.0", True, False), ("0.12.0", True, True), ("0.13.0", True, True),
    ("0.16.0", True, True), ("0.16.9", True, True), ("0.17", False, False),
    ("0.17.1", False, False), ("0.19.0", False, False), (None, False, False),
])
def test_the_0_8_to_0_16_series_sort(version: str | None, sorts: bool, opt_in: bool) -> None:
    # read in the 0.10.0-0.18.0 wheels: 0.17.1 masks with Triton from 8 rows; 0.8.0-0.9.2 read
    # in task h36v083 (the same apply_top_k_top_p sort); 0.7.3 is V0 by default
    assert sorts_in_profile(version) is sorts
    assert flashinfer_opt_in(version) is opt_in


@pytest.mark.parametrize(("rows", "model", "path", "expected"), [
    (128, QWEN3, None, SORT_SAMPLER_BYTES_PER_LOGIT),
    (128, QWEN3, "native", SORT_SAMPLER_BYTES_PER_LOGIT),
    (128, QWEN3, "flashinfer", V1_SAMPLER_BYTES_PER_LOGIT),
    (127, QWEN3, None, V1_SAMPLER_BYTES_PER_LOGIT),
    (1024, JUST_ABOVE, None, SORT_SAMPLER_BYTES_PER_LOGIT),
    (1024, SMALL, None, V1_SAMPLER_BYTES_PER_LOGIT),
])
def test_bytes_at_the_boundaries(rows: int, model: object, path: str | None,
                                 expected: tuple[int, int, int]) -> None:
    for version in ("0.10.0", "0.11.0", "0.13.0", "0.16.0"):
        assert v1_sampler_bytes(version, rows, model, _s(path)) == expected  # type: ignore[arg-type]
    assert v1_sampler_bytes("0.17.1", rows, model, _s(path)) == V1_SAMPLER_BYTES_PER_LOGIT  # type: ignore[arg-type]


def test_the_unstated_note_where_the_sort_applies_and_nowhere_else() -> None:
    note = f"topk_topp_sampler unstated: native, {PIP_DEFAULT}"
    assert sampler_note("0.10.0", True, False, 128, QWEN3, _s()) == note
    assert sampler_note("0.10.0", True, False, 1024, JUST_ABOVE, _s()) == note
    assert sampler_note("0.11.0", True, False, 1024, QWEN3, _s()) == note
    assert sampler_note("0.12.0", True, False, 256, QWEN3, _s()) == (
        f"topk_topp_sampler unstated: native, {OPT_IN_DEFAULT}")
    for args in (("0.10.0", False, False, 1024, QWEN3), ("0.10.0", True, True, 1024, QWEN3),
                 ("0.10.0", True, False, 127, QWEN3), ("0.10.0", True, False, 1024, SMALL),
                 ("0.17.1", True, False, 1024, QWEN3)):
        assert sampler_note(*args, _s()) is None, args  # type: ignore[arg-type]
    # a stated path that moves the pool needs no note
    assert sampler_note("0.10.0", True, False, 1024, QWEN3, _s("flashinfer")) is None
    assert sampler_note("0.10.0", True, False, 1024, QWEN3, _s("native")) is None


def test_each_reason_a_stated_path_moves_nothing() -> None:
    assert unused_reason("0.17.1", True, False, 1024, QWEN3) == (
        "only the 0.8-0.16 series (0.8.0-0.16.x) sort the logits natively in their profiling "
        "sampler; vLLM 0.17.1 samples as it does with FlashInfer or without it")
    assert unused_reason(None, True, False, None, None) == (
        "only the 0.8-0.16 series (0.8.0-0.16.x) sort the logits natively in their profiling "
        "sampler; vLLM unstated (the newest modelled) samples as it does with FlashInfer or "
        "without it")
    assert unused_reason("0.10.0", False, False, 1024, QWEN3) == (
        "the V0 engine's sampler does not take this path")
    assert unused_reason("0.10.0", True, True, 1024, QWEN3) == (
        "Model Runner V2's lean profiling sampler runs no top-k/top-p")
    assert unused_reason("0.10.0", True, False, 127, QWEN3) == (
        "127 sampler rows take PyTorch's full-sort path (fewer than 128), not modelled: the V1 "
        "sampler's 16 B a logit either way")
    assert unused_reason("0.10.0", True, False, 1024, SMALL) == (
        "a vocabulary of 4,096 takes PyTorch's small in-place sort (not modelled): the V1 "
        "sampler's 16 B a logit either way")
    for rows, model in ((128, QWEN3), (None, QWEN3), (1024, None), (1024, JUST_ABOVE)):
        assert unused_reason("0.10.2", True, False, rows, model) is None
    assert sampler_note("0.10.0", True, False, 127, QWEN3, _s("native")) == (
        "topk_topp_sampler native: 127 sampler rows take PyTorch's full-sort path (fewer than "
        "128), not modelled: the V1 sampler's 16 B a logit either way, so it is not used")
    assert sampler_note("0.10.0", True, False, 1024, SMALL, _s("native")) == (
        "topk_topp_sampler native: a vocabulary of 4,096 takes PyTorch's small in-place sort (not "
        "modelled): the V1 sampler's 16 B a logit either way, so it is not used")


def test_an_unknown_path_is_refused_naming_the_paths() -> None:
    with pytest.raises(InputError) as err:
        v1_sampler_bytes("0.10.0", 1024, QWEN3, _s("sort"))
    assert str(err.value) == "topk_topp_sampler 'sort': expected one of native, flashinfer"
