"""Mutation tests of kvplan/engines/vllm_hybrid_off.py (task mutnew): every answer of
chunked_off, explicit_refusal, env_moot and manager_off by release, engine and model, word for
word. The releases are the module's, read in the vLLM wheels: the flag first read in 0.9.1,
ChunkedLocalAttentionSpec from 0.10.0 (0.9.1-0.9.2 spec chunked layers as full attention,
gpu_model_runner.py:2295-2306 in 0.9.1), the default rule from 0.10.1 (config/__init__.py:3667-
3684), the explicit enable raising from 0.13.0 (config/vllm.py:945-954), the connector by class
from 0.22.0, the events rule gone in 0.20.0.

Llama-4-Scout (model_specs/llama-4-scout.yaml, model_type llama4, layer_pattern [sliding,
sliding, sliding, full]: the chunked layers held as sliding) is the chunked-local model;
Gemma-3-27B has sliding-window layers but no attention_chunk_size; Llama-3-8B only full layers."""

from __future__ import annotations

import pytest

from kvplan.engines import vllm_hybrid_off as h
from kvplan.engines.vllm_hybrid_off import (
    chunked_local,
    chunked_off,
    env_moot,
    explicit_refusal,
    manager_off,
)
from kvplan.specs import load_model
from kvplan.specs.schema import LayerKind, ModelSpec

SCOUT, GEMMA, LLAMA = load_model("llama-4-scout"), load_model("gemma-3-27b"), load_model("llama-3-8b")
ENV = "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"


def _pattern(model: ModelSpec, *kinds: LayerKind) -> ModelSpec:
    """The spec with another layer pattern (Scout's shapes with one kind of layer only)."""
    return model.model_copy({"attention": model.attention.model_copy(
        {"layer_pattern": list(kinds)})})


def test_the_releases() -> None:
    assert (h.HYBRID_FROM, h.CHUNKED_SPEC_FROM, h.CHUNKED_OFF_FROM, h.EXPLICIT_RAISES_FROM,
            h.CONNECTOR_BY_CLASS_FROM, h.EVENTS_UNTIL) == (
        (0, 9, 1), (0, 10, 0), (0, 10, 1), (0, 13, 0), (0, 22, 0), (0, 20, 0))
    assert h.ENV == ENV


def test_chunked_local_is_llama4_with_both_kinds() -> None:
    assert chunked_local(SCOUT)
    assert not chunked_local(GEMMA)  # sliding and full, but not llama4
    assert not chunked_local(LLAMA)
    assert not chunked_local(_pattern(SCOUT, LayerKind.full))  # llama4, no chunked layer
    assert not chunked_local(_pattern(SCOUT, LayerKind.sliding))  # llama4, no full layer


OLD = ("vLLM {} has no chunked-local cache spec: llama-4-scout's chunked layers are cached as "
       "full attention, each holding the whole context (v1/worker/gpu_model_runner.py:2295-2306 "
       "get_kv_cache_spec in 0.9.1)")
RULE = ("{} turns its hybrid KV cache manager off for chunked local attention (llama-4-scout) "
        f"unless {ENV}=1 (\"There is a latency regression when using chunked local attention "
        "with the hybrid KV cache manager. Disabling it, by default.\", config/vllm.py:1216-1225 "
        "in 0.19.1, from 0.10.1): every chunked layer is cached as full attention, holding the "
        "whole context")


@pytest.mark.parametrize(("version", "expected"), [
    ("0.9.0", None), ("0.8.5", None),  # before the flag: not read
    ("0.9.1", OLD.format("0.9.1")), ("0.9.2", OLD.format("0.9.2")),
    ("0.10.0", None),  # grouped: the rule comes in 0.10.1
    ("0.10.1", RULE.format("vLLM 0.10.1")), ("0.19.1", RULE.format("vLLM 0.19.1")),
    (None, RULE.format("vLLM"))])
def test_chunked_off_by_release(version: str | None, expected: str | None) -> None:
    assert chunked_off(SCOUT, version, True, None) == expected
    assert chunked_off(SCOUT, version, True, False) == expected  # the variable stated 0


@pytest.mark.parametrize("version", ["0.9.1", "0.10.1", None])
def test_chunked_off_not_for_v0_other_models_or_the_variable(version: str | None) -> None:
    assert chunked_off(SCOUT, version, False, None) is None
    assert chunked_off(GEMMA, version, True, None) is None
    assert chunked_off(LLAMA, version, True, None) is None
    if version != "0.9.1":  # 0.9.1-0.9.2 have no chunked spec: the variable cannot help
        assert chunked_off(SCOUT, version, True, True) is None
    else:
        assert chunked_off(SCOUT, version, True, True) == OLD.format("0.9.1")


EXPLICIT = ("{} would not start: \"Hybrid KV cache manager was explicitly enabled but is not "
            "supported in this configuration.\" (config/vllm.py:1245-1254 in 0.19.1, from "
            f"0.13.0): llama-4-scout has chunked local attention, which turns the manager off "
            f"unless {ENV}=1; set engine.chunked_local_hybrid (that variable) or drop "
            "--no-disable-hybrid-kv-cache-manager")


@pytest.mark.parametrize(("version", "expected"), [
    ("0.12.0", None), ("0.13.0", EXPLICIT.format("vLLM 0.13.0")),
    ("0.34.0", EXPLICIT.format("vLLM 0.34.0")), (None, EXPLICIT.format("vLLM"))])
def test_explicit_refusal_by_release(version: str | None, expected: str | None) -> None:
    assert explicit_refusal(SCOUT, version, True, False, None) == expected
    assert explicit_refusal(SCOUT, version, True, False, False) == expected


@pytest.mark.parametrize("version", ["0.13.0", None])
def test_explicit_refusal_needs_every_condition(version: str | None) -> None:
    assert explicit_refusal(SCOUT, version, True, None, None) is None  # not stated
    assert explicit_refusal(SCOUT, version, True, True, None) is None  # --disable-... stated
    assert explicit_refusal(SCOUT, version, False, False, None) is None  # V0
    assert explicit_refusal(SCOUT, version, True, False, True) is None  # the variable set
    assert explicit_refusal(GEMMA, version, True, False, None) is None
    assert explicit_refusal(LLAMA, version, True, False, None) is None


def test_env_moot_says_why() -> None:
    v0 = f"the V0 engine has no hybrid KV cache manager; {ENV} is read by V1 only"
    assert env_moot(SCOUT, "0.19.1", False) == v0
    assert env_moot(GEMMA, None, False) == v0
    assert env_moot(GEMMA, "0.19.1", True) == (
        f"gemma-3-27b has no chunked local attention (attention_chunk_size), which is all {ENV} "
        "is read for (config/vllm.py:1205-1225 in 0.19.1)")
    for version in ("0.10.0", "0.9.1"):
        assert env_moot(SCOUT, version, True) == (
            f"vLLM {version} does not read {ENV} (first read in 0.10.1, config/__init__.py:3675)")
    assert env_moot(SCOUT, "0.10.1", True) is None
    assert env_moot(SCOUT, None, True) is None


def test_manager_off_the_flag_or_the_rule() -> None:
    assert manager_off(LLAMA, "0.19.1", True, True, None)  # stated
    assert not manager_off(LLAMA, "0.19.1", True, None, None)
    assert not manager_off(LLAMA, "0.19.1", True, False, None)
    assert manager_off(SCOUT, "0.19.1", True, None, None)  # vLLM's own rule
    assert manager_off(SCOUT, "0.19.1", True, False, None)
    assert not manager_off(SCOUT, "0.19.1", True, None, True)  # the variable keeps it on
    assert not manager_off(SCOUT, "0.10.0", True, None, None)
    assert manager_off(SCOUT, "0.10.0", True, True, None)
