"""kvplan/engines' side of a deployment file: the engine refusals `kvplan check` FAILs on
(refusals.py) and the `engine:` block read as engine settings (deployment.py), each message word
for word and each renamed key under the engine's own name.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/refusals.py and
kvplan/engines/deployment.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.deploy.schema import Deployment
from kvplan.deploy.schema import Engine as Block
from kvplan.engines import Engine, EngineSettings
from kvplan.engines.deployment import check_engine_block, deployment_engine_settings, extra_settings
from kvplan.engines.refusals import engine_refusals
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.units import GIB


def dep(engine: dict[str, object], model: str = "llama-3-8b", tp: int = 1,
        ep: int | None = None) -> Deployment:
    return Deployment.model_validate({
        "apiVersion": "kvplan/v1", "name": "t", "model": model, "hardware": {"gpu": "h100"},
        "parallel": {"tensor": tp, "expert": ep}, "engine": engine,
        "traffic": {"peak_concurrent_users": 1}})


TEXT_ONLY = ('engine.limit_mm_per_prompt', 'vLLM refuses --limit-mm-per-prompt for a text-only '
             'model: llama-3-8b has no encoder ("limit_mm_per_prompt is only supported for '
             'multimodal models"); drop it')


def test_refusals_accumulate_in_order():
    got = engine_refusals(load_model("llama-3-8b"),
                          dep({"name": "vllm", "limit_mm_per_prompt": 1}, ep=2))
    assert got == [TEXT_ONLY, ("parallel.expert",
                               "expert parallelism 2: llama-3-8b has no experts; drop it")]


@pytest.mark.parametrize(("engine", "model", "ep", "expected"), [
    ({"name": "vllm", "limit_mm_per_prompt": 0}, "llama-3-8b", None, [TEXT_ONLY]),
    ({"name": "sglang", "limit_mm_per_prompt": 1}, "llama-3-8b", None, []),  # vLLM's refusal
    ({"name": "vllm", "limit_mm_per_prompt": 1}, "qwen2.5-vl-7b", None, []),
    ({"name": "vllm"}, "qwen3-30b-a3b", 3,
     [("parallel.expert", "expert parallelism 3 does not divide qwen3-30b-a3b's 128 experts")]),
    ({"name": "vllm"}, "qwen3-30b-a3b", 4, []),
    ({"name": "sglang"}, "qwen3-30b-a3b", 128, []),
    ({"name": "vllm"}, "llama-3-8b", 1, []),  # ep 1 is no expert parallelism
    ({"name": "vllm", "speculative_model": "llama-3.2-1b"}, "llama-3-8b", None, []),
    # a draft not in the catalog is kvplan.deploy's ERROR, not a refusal here
    ({"name": "vllm", "speculative_model": "no-such-draft"}, "llama-3-8b", None, []),
])
def test_refusals_by_engine_and_model(engine: dict[str, object], model: str, ep: int | None,
                                      expected: list[tuple[str, str]]):
    assert engine_refusals(load_model(model), dep(engine, model, ep=ep)) == expected


def test_a_draft_the_targets_tp_cannot_split_is_refused():
    # Qwen2.5-0.5B has 14 attention heads: tp 4 does not divide them
    got = engine_refusals(load_model("llama-3.1-70b"),
                          dep({"name": "vllm", "speculative_model": "qwen2.5-0.5b"},
                              "llama-3.1-70b", tp=4))
    assert got == [("engine.speculative_model",
                    "the draft model qwen2.5-0.5b: tensor parallelism 4 does not divide "
                    "qwen2.5-0.5b's 14 attention heads; vLLM shards the draft with the target's "
                    "tensor parallelism")]
    # SGLang is not asked about a vLLM draft
    assert engine_refusals(load_model("llama-3.1-70b"), dep(
        {"name": "sglang", "speculative_model": "qwen2.5-0.5b"}, "llama-3.1-70b", tp=4)) == []


@pytest.mark.parametrize("name", ["vllm", "sglang", "trtllm"])
def test_an_unreadable_version_is_refused_for_a_serving_engine(name: str):
    with pytest.raises(InputError) as err:
        check_engine_block(Block(name=name, version="latest"))
    assert str(err.value) == ("engine.version: cannot read engine version 'latest'; write it "
                              "like 0.10.2")
    check_engine_block(Block(name=name, version="0.10.2"))
    check_engine_block(Block(name=name))


@pytest.mark.parametrize("name", ["ideal", "transformers"])
def test_versions_of_ideal_and_transformers_are_not_release_numbers(name: str):
    check_engine_block(Block(name=name, version="static"))


def test_extra_settings_for_one_engine_or_all():
    block = Block(name="vllm", enforce_eager=True, kv_cache_memory_bytes=5 * GIB,
                  cpu_offload_gb=1.5, cuda_graph_max_bs=8, limit_mm_per_prompt=0)
    # vLLM reads its own keys (0 is a value, False is not); SGLang's cuda_graph_max_bs is left out
    assert extra_settings(block, "vllm") == {
        "enforce_eager": True, "kv_cache_memory_bytes": 5 * GIB,
        "cpu_offload_bytes": 3 * GIB // 2, "limit_mm_per_prompt": 0}
    assert extra_settings(block, "sglang") == {"cuda_graph_max_bs": 8}
    assert extra_settings(block) == {
        "enforce_eager": True, "kv_cache_memory_bytes": 5 * GIB,
        "cpu_offload_bytes": 3 * GIB // 2, "limit_mm_per_prompt": 0, "cuda_graph_max_bs": 8}
    assert extra_settings(Block(name="vllm", enforce_eager=False)) == {}


def test_two_keys_for_one_setting_must_agree():
    same = Block(name="trtllm", max_tokens_in_paged_kv_cache=1000, max_total_tokens=1000)
    assert extra_settings(same) == {"max_tokens": 1000}
    assert extra_settings(same, "trtllm") == {"max_tokens": 1000}
    assert extra_settings(same, "sglang") == {"max_tokens": 1000}
    with pytest.raises(InputError) as err:
        extra_settings(Block(name="trtllm", max_tokens_in_paged_kv_cache=1000,
                             max_total_tokens=2000))
    assert str(err.value) == "engine.max_total_tokens: conflicts with another key setting max_tokens"


def test_ideal_has_no_engine_settings():
    assert deployment_engine_settings(Block(name="ideal", max_num_seqs=4)) is None


def test_vllm_settings_from_a_block():
    block = Block(name="vllm", version="0.10.2", gpu_memory_utilization=0.8, max_num_seqs=64,
                  max_num_batched_tokens=4096, speculative_model="llama-3.2-1b",
                  num_speculative_tokens=3, enforce_eager=True, block_size=32)
    s = deployment_engine_settings(block)
    draft = load_model("llama-3.2-1b")
    assert s == EngineSettings(
        engine=Engine.vllm, version="0.10.2", memory_fraction=Fraction(4, 5),
        max_num_batched_tokens=4096, max_num_seqs=64, enforce_eager=True,
        num_speculative_tokens=3, draft_model=draft, draft_params=draft.params_total)
    # the cap is the profile's only when asked
    assert deployment_engine_settings(block, cap_sequences=True) == EngineSettings(
        engine=Engine.vllm, version="0.10.2", memory_fraction=Fraction(4, 5),
        max_num_batched_tokens=4096, max_num_seqs=64, enforce_eager=True,
        num_speculative_tokens=3, draft_model=draft, draft_params=draft.params_total,
        cap_max_num_seqs=True)
    # an unstated utilization is the engine's own default, not the schema's 0.9
    plain = deployment_engine_settings(Block(name="vllm"), cap_sequences=True)
    assert plain == EngineSettings(engine=Engine.vllm)


def test_sglang_and_trtllm_read_the_vllm_names_under_their_own():
    sg = Block(name="sglang", max_num_seqs=64, max_num_batched_tokens=4096, block_size=32)
    assert deployment_engine_settings(sg, cap_sequences=True) == EngineSettings(
        engine=Engine.sglang, max_running_requests=64, chunked_prefill_size=4096,
        page_size_tokens=32)
    # without the cap max_num_seqs stays as given (kvplan check applies it), and SGLang's profile
    # still reads it as max_running_requests for what it moves, not as a cap on the users (task
    # h62review: the request-to-token map, 0.5.22's graph batch); block_size unstated is vLLM's
    # 16, not SGLang's page size
    assert deployment_engine_settings(Block(name="sglang", max_num_seqs=64,
                                            max_num_batched_tokens=4096)) == EngineSettings(
        engine=Engine.sglang, max_num_seqs=64, max_running_requests=64, check_caps_users=True,
        chunked_prefill_size=4096)
    assert deployment_engine_settings(Block(name="sglang")) == EngineSettings(
        engine=Engine.sglang)
    trt = Block(name="trtllm", max_num_seqs=64, max_num_batched_tokens=4096, block_size=32,
                max_tokens_in_paged_kv_cache=1000)
    assert deployment_engine_settings(trt, cap_sequences=True) == EngineSettings(
        engine=Engine.trtllm, max_batch_size=64, max_num_batched_tokens=4096,
        page_size_tokens=32, max_tokens=1000)
    assert deployment_engine_settings(Block(name="trtllm", block_size=32)) == EngineSettings(
        engine=Engine.trtllm, page_size_tokens=32)


def test_settings_an_engine_would_refuse_are_named():
    # a block built without validation (the schema refuses 0 itself)
    block = Block.model_construct(name="vllm", version=None, gpu_memory_utilization=0.9,
                                  max_num_seqs=0, max_num_batched_tokens=None)
    with pytest.raises(InputError) as err:
        deployment_engine_settings(block)
    assert str(err.value) == "engine: max_num_seqs must be a positive integer, got 0"
