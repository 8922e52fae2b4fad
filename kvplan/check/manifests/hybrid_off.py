"""vLLM turning its hybrid KV cache manager off by itself, read from a command line and its
container's environment (task h100vllmhyb; the rules and their source lines are in
kvplan.engines.vllm_hybrid_off):

- `--kv-transfer-config` (a KV connector): 0.9.1-0.12.x turn the manager off; 0.13.0-0.21.x
  when no --disable-hybrid-kv-cache-manager / --no-... is stated; from 0.22.0 only for a
  connector class that does not subclass SupportsHMA, which kvplan does not read (noted, with
  what to state to plan either way);
- `--kv-events-config`: 0.9.1-0.19.x turn it off (from 0.13.0 a stated --no-... then raises);
  0.20.0 on do not (noted);
- VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE in the environment: engine.chunked_local_hybrid.

Where vLLM turns the manager off, engine.disable_hybrid_kv_cache_manager is set to true as vLLM
sets it, so the plan caches sliding-window and chunked-local layers as full attention beside
full ones (a model without both kinds is unchanged).
"""

from __future__ import annotations

from typing import Any

from kvplan.check.argv import Parsed
from kvplan.check.manifests.engine import Found, Refusal

FIELD = "engine.disable_hybrid_kv_cache_manager"
CONNECTOR = "--kv-transfer-config"
EVENTS = "--kv-events-config"


def _release(found: Found) -> tuple[str, tuple[int, ...]]:
    from kvplan.engines.release import read_numbers
    from kvplan.engines.vllm_series import flavour

    fl = flavour(str(found.values["engine.version"]) if found.values.get("engine.version")
                 else None)
    # the V0 engine has no hybrid manager: read as a release before it
    return fl.version, (read_numbers(fl.version) or ()) if fl.v1 else ()


def _turn_off(found: Found, flag: str, line: int, why: str, notes: list[str]) -> None:
    if found.values.get(FIELD) is None:
        found.values[FIELD] = True
        found.lines[FIELD] = line
        found.names[FIELD] = flag
    notes.append(why)


def read_hybrid_off(parsed: Parsed, found: Found, env: dict[str, str], notes: list[str],
                    refusals: list[Refusal]) -> None:
    """Apply vLLM's own rules for the connector and events flags and read the environment
    variable (module docstring)."""
    from kvplan.engines import vllm_hybrid_off as h

    version, ver = _release(found)
    stated = found.values.get(FIELD)
    raw = env.get(h.ENV)
    if raw is not None:
        try:
            found.values["engine.chunked_local_hybrid"] = bool(int(raw.strip()))
        except ValueError:
            notes.append(f"{h.ENV}={raw!r} is not an integer (vllm/envs.py reads "
                         "bool(int(...))): not read")
    src = "(kvplan.engines.vllm_hybrid_off)"
    if CONNECTOR in parsed.options:
        line = parsed.options[CONNECTOR][1]
        if ver < h.HYBRID_FROM:
            notes.append(f"{CONNECTOR}: vLLM {version} (this engine) has no hybrid KV cache "
                         "manager to turn off (V1, first in 0.9.1); the pool is unmoved")
        elif ver >= h.CONNECTOR_BY_CLASS_FROM and stated is None:
            notes.append(f"{CONNECTOR}: vLLM {version} turns its hybrid KV cache manager off "
                         "only for a connector class that does not subclass SupportsHMA "
                         "(config/vllm.py:1479-1500 in 0.23.0), which kvplan does not read: "
                         "planned with the manager on; on a model with sliding-window or "
                         "chunked-local layers beside full ones, state "
                         "--disable-hybrid-kv-cache-manager to plan it off " + src)
        elif ver < h.EXPLICIT_RAISES_FROM or stated is None:
            _turn_off(found, CONNECTOR, line, (
                f"{CONNECTOR}: vLLM {version} turns its hybrid KV cache manager off with a KV "
                "connector (config.py:4500-4503 in 0.9.1, config/vllm.py:927-943 in 0.13.0): "
                "sliding-window and chunked-local layers are planned as full attention " + src),
                notes)
    if EVENTS in parsed.options:
        line = parsed.options[EVENTS][1]
        if ver < h.HYBRID_FROM or ver >= h.EVENTS_UNTIL:
            notes.append(f"{EVENTS}: vLLM {version} does not turn its hybrid KV cache manager "
                         "off for KV cache events (0.9.1-0.19.x did, config/vllm.py:1202-1204 "
                         "in 0.19.1); the pool is unmoved")
        elif stated is False and ver >= h.EXPLICIT_RAISES_FROM:
            refusals.append(Refusal(FIELD, (
                f"vLLM {version} would not start: \"Hybrid KV cache manager was explicitly "
                "enabled but is not supported in this configuration.\" (config/vllm.py:"
                f"1245-1254 in 0.19.1): {EVENTS} turns the manager off (:1202-1204) and "
                "--no-disable-hybrid-kv-cache-manager asks for it; drop one of them"),
                found.lines.get(FIELD, line)))
        else:
            _turn_off(found, EVENTS, line, (
                f"{EVENTS}: vLLM {version} turns its hybrid KV cache manager off with KV cache "
                "events (config.py:4504-4506 in 0.9.1, config/vllm.py:1202-1204 in 0.19.1): "
                "sliding-window and chunked-local layers are planned as full attention " + src),
                notes)


__all__: list[Any] = ["read_hybrid_off"]
