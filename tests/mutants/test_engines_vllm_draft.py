"""Mutation tests of the vLLM draft-model code (task mut2; added by task vllmleft in
kvplan/engines/vllm_flags.py): `draft_release_refusal`'s two refusals word for word at each
release boundary, and `v0_split_steps`' three steps whole (label, operation, arguments, unit and
words), with their numbers worked by hand.

The releases are the ones the module read in the wheels on PyPI: 0.8.0-0.9.2 fall back from V1
to V0 for a draft model (_raise_or_fallback, vllm/engine/arg_utils.py:1440 in 0.8.5, :1442 in
0.9.2); 0.10.0-0.14.1 raise NotImplementedError ("Speculative decoding with draft model is not
supported yet", arg_utils.py:1497-1498 in 0.10.2; "Draft model speculative decoding is not
supported yet" from 0.11.0, :1793-1794 in 0.14.1); 0.15.0 runs it (config/speculative.py
:403-404). V0 splits blocks evenly (split_num_cache_blocks_evenly,
vllm/spec_decode/spec_decode_worker.py:1140-1160 in 0.6.6)."""

from __future__ import annotations

import pytest

from kvplan.engines.steps import Step, Steps
from kvplan.engines.vllm_flags import draft_release_refusal, v0_split_steps


def _not_started(said: str, words: str) -> str:
    return (f"vLLM {said} does not start with a draft model: \"{words}\" (NotImplementedError, "
            "vllm/engine/arg_utils.py:1497-1498 in 0.10.2, :1793-1794 in 0.14.1; V1 takes "
            "ngram, medusa, EAGLE and MTP drafts only, and the V0 engine's spec_decode is gone "
            "from the 0.10.0 wheel); serve vLLM 0.15.0 or newer, or drop --speculative-model")


def _fallback(said: str) -> str:
    return (f"vLLM {said} runs a draft model on its V0 engine: V1 takes only ngram and EAGLE "
            "drafts and falls back to V0 for any other (_raise_or_fallback, "
            "vllm/engine/arg_utils.py:1440 in 0.8.5, :1442 in 0.9.2); plan --engine-version "
            f"{said}-v0")


OLD = "Speculative decoding with draft model is not supported yet"  # 0.10.x
NEW = "Draft model speculative decoding is not supported yet"  # 0.11.0 on


@pytest.mark.parametrize(("version", "words"), [
    ("0.10.0", OLD), ("0.10.2", OLD), ("0.10.99", OLD),
    # "0.11" reads as (0, 11), below (0, 11, 0) as a tuple: still 0.11's words
    ("0.11", NEW), ("0.11.0", NEW), ("0.14.1", NEW), ("0.14.99", NEW)])
@pytest.mark.parametrize("v1", [True, False])
def test_0_10_to_0_14_do_not_start_word_for_word(version: str, words: str, v1: bool) -> None:
    assert draft_release_refusal(version, v1) == _not_started(version, words)


@pytest.mark.parametrize("version", ["0.8.0", "0.8.5", "0.9.2", "0.9.99"])
def test_0_8_to_0_9_fall_back_to_v0_word_for_word(version: str) -> None:
    assert draft_release_refusal(version, True) == _fallback(version)
    assert draft_release_refusal(version, False) is None  # the '-v0' plan runs it


@pytest.mark.parametrize("version", ["0.7.99", "0.15.0", "0.15.1", "0.34.0", None])
@pytest.mark.parametrize("v1", [True, False])
def test_releases_that_run_a_draft(version: str | None, v1: bool) -> None:
    assert draft_release_refusal(version, v1) is None


def test_a_release_with_a_suffix_reads_its_first_three_numbers() -> None:
    # "0.10.1.1" is a PyPI release (0.10.1's fix): its first three numbers, 0.10.1
    assert draft_release_refusal("0.10.1.1", True) == _not_started("0.10.1.1", OLD)
    assert draft_release_refusal("0.9.0.1", True) == _fallback("0.9.0.1")


def test_v0_split_steps_whole() -> None:
    # Llama-3-8B's 2,097,152 B blocks beside Llama-3.2-1B's 524,288 B (16 tokens; 32 x 8 x 128
    # and 16 x 8 x 64, K + V, 2 B): 10,000,000,000 B hold floor(4,768.37) = 4,768 scorer blocks,
    # 4,768 x 2,097,152 = 9,999,220,736 B, / 2,621,440 = floor(3,814.4) = 3,814 blocks each
    st = Steps()
    st.given("KV cache memory", 10_000_000_000, "bytes", "")
    st.given("target bytes per block", 2_097_152, "bytes", "")
    st.given("bytes per block", 2_621_440, "bytes", "")
    v0_split_steps(st)
    assert st.items[3:] == [
        Step("target blocks", 4_768, "blocks",
             "floor(KV cache memory / target bytes per block): the scorer's blocks", "div",
             ("KV cache memory", "target bytes per block")),
        Step("target blocks x target bytes", 9_999_220_736, "bytes",
             "target blocks x target bytes per block", "mul",
             ("target blocks", "target bytes per block")),
        Step("blocks (raw)", 3_814, "blocks",
             "int(target blocks x target / (target + draft bytes per block)): the same number of "
             "blocks for both models (spec_decode_worker.py split_num_cache_blocks_evenly)",
             "div", ("target blocks x target bytes", "bytes per block")),
    ]


def test_a_draft_beside_two_kv_cache_groups_is_refused() -> None:
    """V1 models the draft for a target whose layers form one KV cache group: two groups (a
    sliding-window and a full-attention group, as Gemma-2's alternating layers) are refused."""
    from kvplan.capacity import SizeRequest
    from kvplan.engines import Engine, EngineSettings
    from kvplan.engines.vllm_flags import draft_block_bytes
    from kvplan.errors import InputError
    from kvplan.specs import load_hardware, load_model

    req = SizeRequest(model=load_model("gemma-2-27b"), gpu=load_hardware("h100"),
                      context_tokens=4096)
    s = EngineSettings(engine=Engine.vllm, draft_model=load_model("llama-3.2-1b"))
    with pytest.raises(InputError) as err:
        draft_block_bytes(req, s, 2, True)
    assert str(err.value) == ("a draft model beside gemma-2-27b's sliding-window or hybrid layers "
                              "is not modelled (its KV cache groups); plan without it")
