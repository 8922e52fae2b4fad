"""vLLM turning its hybrid KV cache manager off by itself (task h100vllmhyb,
kvplan.engines.vllm_hybrid_off; read in the 0.9.1-0.34.0 wheels: chunked local attention from
0.10.1 unless VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1, config/vllm.py:1205-1225 in
0.19.1; 0.9.1-0.9.2 spec chunked layers as full attention, gpu_model_runner.py:2295-2306).

Llama-4-Scout (model_specs/llama-4-scout.yaml, from its config.json: 48 layers, every fourth a
NoPE full-attention layer, the other 36 chunked within attention_chunk_size 8,192; 8 KV heads
x head_dim 128): at TP 4 a layer holds 2 heads x 128 x 2 (K, V) x 2 B = 1,024 B a token. Full
attention: one group of 48 layers, 16 x 48 x 1,024 = 786,432 B a block; the hybrid manager:
groups of 12 (12 full, 36 chunked), 16 x 12 x 1,024 = 196,608 B a block id. The pool's bytes
do not move; the figures below are worked by hand from it."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineResult, EngineSettings, vllm
from kvplan.engines.vllm_hybrid_off import chunked_off, env_moot, explicit_refusal
from kvplan.specs import load_hardware, load_model

FULL_BLOCK = 16 * 48 * 1024
HYBRID_BLOCK = 16 * 12 * 1024


def _run(gpu: str, version: str, env: bool | None = None, ctx: int = 131_072) -> EngineResult:
    req = SizeRequest(model=load_model("llama-4-scout"), gpu=load_hardware(gpu),
                      context_tokens=ctx, tp=4)
    return vllm.profile(req, EngineSettings(engine=Engine.vllm, version=version,
                                            chunked_local_hybrid=env))


def test_scout_h100_0191_full_attention_by_default() -> None:
    off = _run("h100", "0.19.1")
    kept = _run("h100", "0.19.1", env=True)
    pool = off.kv_cache_bytes
    assert pool == kept.kv_cache_bytes == 13_603_664_149
    assert off.blocks == pool // FULL_BLOCK == 17_297
    assert kept.blocks == pool // HYBRID_BLOCK == 69_191
    # a 131,072-token request: 8,192 blocks of the one group -> 2 sequences
    assert off.size.users_per_replica == 17_297 // 8_192 == 2
    # kept: 8,192 (full group) + 3 chunked groups x (ceil(min(8,191 + 8,192, 131,072) / 16) + 1)
    assert kept.size.users_per_replica == 69_191 // (8_192 + 3 * (1_024 + 1)) == 6
    assert any("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE" in a
               for a in off.size.assumptions)
    assert not any("turns its hybrid" in a for a in kept.size.assumptions)


def test_scout_h200_by_release() -> None:
    # 0.10.0 groups ChunkedLocalAttentionSpec layers (no default rule until 0.10.1)
    grouped = _run("h200", "0.10.0")
    pool = grouped.kv_cache_bytes
    assert pool == 67_182_013_615
    assert grouped.blocks == pool // HYBRID_BLOCK == 341_705
    assert grouped.size.users_per_replica == 341_705 // (8_192 + 3 * 1_025) == 30
    for version in ("0.10.1", "0.9.2"):  # 0.10.1: the rule; 0.9.2: no chunked spec
        flat = _run("h200", version)
        assert flat.kv_cache_bytes == pool
        assert flat.blocks == pool // FULL_BLOCK == 85_426
        assert flat.size.users_per_replica == 85_426 // 8_192 == 10


def test_the_rule_by_release_and_model() -> None:
    scout, gemma = load_model("llama-4-scout"), load_model("gemma-3-27b")
    assert chunked_off(scout, "0.9.0", True, None) is None  # not read before 0.9.1
    assert chunked_off(scout, "0.9.1", True, None) is not None
    assert chunked_off(scout, "0.10.0", True, None) is None
    assert chunked_off(scout, "0.34.0", True, None) is not None
    assert chunked_off(scout, "0.34.0", True, True) is None
    assert chunked_off(scout, "0.8.5", False, None) is None  # V0
    assert chunked_off(gemma, "0.19.1", True, None) is None  # sliding window, not chunked
    assert env_moot(gemma, "0.19.1", True) is not None
    assert env_moot(scout, "0.10.0", True) is not None
    assert env_moot(scout, "0.10.1", True) is None


def test_explicit_enable_raises_from_0130() -> None:
    scout = load_model("llama-4-scout")
    assert explicit_refusal(scout, "0.12.0", True, False, None) is None  # plain bool: overridden
    why = explicit_refusal(scout, "0.13.0", True, False, None)
    assert why is not None and "explicitly enabled but is not supported" in why
    assert explicit_refusal(scout, "0.13.0", True, False, True) is None
    assert explicit_refusal(scout, "0.13.0", True, None, None) is None


def _size(*extra: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from kvplan.cli import app

    res = CliRunner().invoke(app, ["size", "llama-4-scout", "-g", "h100", "--tp", "4", "-c",
                                   "131072", "--engine", "vllm", *extra])
    return res.exit_code, " ".join(res.output.split())


def test_flags_that_cannot_move_the_plan_are_refused() -> None:
    # --disable-...: vLLM 0.19.1 turns the manager off itself; --no-disable-... raises from
    # 0.13.0 and is overridden before it; the variable on 0.10.0, which does not read it
    code, out = _size("--engine-version", "0.19.1", "--disable-hybrid-kv-cache-manager")
    assert code == 2 and "so the option changes nothing" in out
    code, out = _size("--engine-version", "0.19.1", "--no-disable-hybrid-kv-cache-manager")
    assert code == 2 and "explicitly enabled but is not supported" in out
    code, out = _size("--engine-version", "0.11.0", "--no-disable-hybrid-kv-cache-manager")
    assert code == 2 and "plain bool this rule overrides" in out
    code, out = _size("--engine-version", "0.10.0", "--chunked-local-hybrid")
    assert code == 2 and "does not read VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE" in out
    # both stated on 0.19.1: the manager kept on, 6 sequences (test above)
    code, out = _size("--engine-version", "0.19.1", "--no-disable-hybrid-kv-cache-manager",
                      "--chunked-local-hybrid")
    assert code == 0 and "Users per replica 6 on 4 GPUs" in out
