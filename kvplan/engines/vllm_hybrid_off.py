"""When vLLM turns its hybrid KV cache manager off by itself (task h100vllmhyb).

`--disable-hybrid-kv-cache-manager` is modelled in kvplan.engines.vllm_groups.unified: a stage
with full-attention and sliding-window (or chunked-local) layers becomes one group of every
layer, each holding the whole context. vLLM also sets the flag itself in
`VllmConfig.__post_init__`; read in the wheels on PyPI (`pip download vllm==X --no-deps`):

- chunked local attention (Llama 4, `model_config.attention_chunk_size` set), the manager on,
  no speculative EAGLE draft:
  - 0.9.1-0.9.2: no rule, but the runner has no chunked spec: `get_kv_cache_spec` makes a
    `SlidingWindowSpec` only for `attn_module.sliding_window`, every other layer, the chunked
    ones included, a `FullAttentionSpec` (v1/worker/gpu_model_runner.py:2295-2306 in 0.9.1),
    so the pool is planned as full attention there too;
  - 0.10.0: `ChunkedLocalAttentionSpec`, grouped by the hybrid manager; the manager is turned
    off only beside an EAGLE draft (config.py:4670-4676);
  - 0.10.1 on: turned off unless `VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1`
    ("There is a latency regression when using chunked local attention with the hybrid KV
    cache manager. Disabling it, by default.", config/__init__.py:3667-3684 in 0.10.1 and
    0.10.1.1, config/vllm.py:905-925 in 0.13.0, :1205-1225 in 0.19.1, :1508-1528 in 0.25.0,
    from :2157 in 0.34.0);
  - from 0.13.0 `--no-disable-hybrid-kv-cache-manager` stated beside a condition that turns
    it off raises "Hybrid KV cache manager was explicitly enabled but is not supported in
    this configuration." (config/vllm.py:945-954 in 0.13.0, :1245-1254 in 0.19.1); before
    0.13.0 the field is a plain bool (a BooleanOptionalAction, arg_utils.py:217 and :855-857 in
    0.9.1) whose False the rule overrides (config.py:4657-4676 in 0.10.0).
- a KV connector (`--kv-transfer-config`): off in 0.9.1-0.12.x (config.py:4500-4503 in 0.9.1,
  config/vllm.py:892-905 in 0.12.0); 0.13.0-0.21.x off only when no preference is stated
  (config/vllm.py:927-943 in 0.13.0, :1227-1243 in 0.19.1); from 0.22.0 only when the
  connector class does not subclass `SupportsHMA` (config/vllm.py:1440-1475 in 0.22.0,
  `KVConnectorFactory.supports_hma_config` from 0.23.0, :1479-1500), which kvplan does not
  read: `check` refuses the connector on such a model there unless the preference is stated.
- KV cache events (`--kv-events-config`): off in 0.9.1-0.19.x (config.py:4504-4506 in 0.9.1,
  config/vllm.py:1202-1204 in 0.19.1); the rule is gone from 0.20.0 (config/vllm.py:1259-1290).
- speculative decoding: only the EAGLE case above (from 0.34.0 any draft that reads the
  target's hidden states, `uses_target_hidden_states`): kvplan refuses EAGLE-style methods and
  drafts beside sliding-window targets (kvplan.engines.vllm_flags), so it is never planned.
- a platform without hybrid support (not CUDA or ROCm): kvplan plans GPUs only.

The connector and events rules are applied where their flags are read (`check`'s manifests,
kvplan.check.manifests.hybrid_off), by setting engine.disable_hybrid_kv_cache_manager as
vLLM does; the chunked-local rule by release here, with engine.chunked_local_hybrid for the
environment variable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.engines.release import read_numbers
from kvplan.specs.schema import LayerKind

if TYPE_CHECKING:
    from kvplan.specs.schema import ModelSpec

HYBRID_FROM = (0, 9, 1)  # the first release read (--disable-hybrid-kv-cache-manager)
CHUNKED_SPEC_FROM = (0, 10, 0)  # ChunkedLocalAttentionSpec; 0.9.1-0.9.2 spec them full
CHUNKED_OFF_FROM = (0, 10, 1)  # VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE
EXPLICIT_RAISES_FROM = (0, 13, 0)  # tri-state field: --no-disable... beside a condition raises
CONNECTOR_BY_CLASS_FROM = (0, 22, 0)  # connector classes that subclass SupportsHMA keep it
EVENTS_UNTIL = (0, 20, 0)  # --kv-events-config no longer turns it off
ENV = "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"


def chunked_local(model: ModelSpec) -> bool:
    """Whether vLLM sees attention_chunk_size: Llama 4 with its chunked (RoPE) layers, which
    kvplan's spec holds as sliding layers with the chunk as window (kvplan.specs.hf_layers)."""
    kinds = set(model.layer_kinds())
    return model.model_type == "llama4" and LayerKind.sliding in kinds and LayerKind.full in kinds


def _ver(version: str | None) -> tuple[int, ...] | None:
    return read_numbers(version) if version else None


def chunked_off(model: ModelSpec, version: str | None, v1: bool,
                allow_env: bool | None) -> str | None:
    """Why vLLM plans Llama 4's chunked layers as full attention by itself at `version`
    (module docstring), or None where it groups them (or the release was not read)."""
    ver = _ver(version)
    if not v1 or not chunked_local(model) or (ver is not None and ver < HYBRID_FROM):
        return None
    if ver is not None and ver < CHUNKED_SPEC_FROM:
        return (f"vLLM {version} has no chunked-local cache spec: {model.name}'s chunked layers "
                "are cached as full attention, each holding the whole context "
                "(v1/worker/gpu_model_runner.py:2295-2306 get_kv_cache_spec in 0.9.1)")
    if ver is not None and ver < CHUNKED_OFF_FROM:
        return None
    if allow_env:
        return None
    said = f"vLLM {version}" if version else "vLLM"
    return (f"{said} turns its hybrid KV cache manager off for chunked local attention "
            f"({model.name}) unless {ENV}=1 (\"There is a latency regression when using chunked "
            "local attention with the hybrid KV cache manager. Disabling it, by default.\", "
            "config/vllm.py:1216-1225 in 0.19.1, from 0.10.1): every chunked layer is cached as "
            "full attention, holding the whole context")


def explicit_refusal(model: ModelSpec, version: str | None, v1: bool, stated: bool | None,
                     allow_env: bool | None) -> str | None:
    """vLLM 0.13.0+ raises when --no-disable-hybrid-kv-cache-manager meets chunked local
    attention without the environment variable; None where it starts."""
    ver = _ver(version)
    if stated is not False or not v1 or allow_env or not chunked_local(model):
        return None
    if ver is not None and ver < EXPLICIT_RAISES_FROM:
        return None
    said = f"vLLM {version}" if version else "vLLM"
    return (f"{said} would not start: \"Hybrid KV cache manager was explicitly enabled but is "
            "not supported in this configuration.\" (config/vllm.py:1245-1254 in 0.19.1, from "
            f"0.13.0): {model.name} has chunked local attention, which turns the manager off "
            f"unless {ENV}=1; set engine.chunked_local_hybrid (that variable) or drop "
            "--no-disable-hybrid-kv-cache-manager")


def env_moot(model: ModelSpec, version: str | None, v1: bool) -> str | None:
    """Why engine.chunked_local_hybrid cannot change the plan, or None where it does."""
    ver = _ver(version)
    if not v1:
        return f"the V0 engine has no hybrid KV cache manager; {ENV} is read by V1 only"
    if not chunked_local(model):
        return (f"{model.name} has no chunked local attention (attention_chunk_size), which is "
                f"all {ENV} is read for (config/vllm.py:1205-1225 in 0.19.1)")
    if ver is not None and ver < CHUNKED_OFF_FROM:
        return (f"vLLM {version} does not read {ENV} (first read in 0.10.1, "
                "config/__init__.py:3675)")
    return None


def manager_off(model: ModelSpec, version: str | None, v1: bool, stated: bool | None,
                allow_env: bool | None) -> bool:
    """Whether the pool is planned as full attention: the flag stated, or vLLM's own rule."""
    return bool(stated) or chunked_off(model, version, v1, allow_env) is not None


__all__ = ["CHUNKED_OFF_FROM", "CHUNKED_SPEC_FROM", "CONNECTOR_BY_CLASS_FROM", "ENV",
           "EVENTS_UNTIL", "EXPLICIT_RAISES_FROM", "HYBRID_FROM", "chunked_local", "chunked_off",
           "env_moot", "explicit_refusal", "manager_off"]
