"""The line under a `size`/`fleet` card that says how its KV pool per GPU was derived."""

from __future__ import annotations

from typing import Any

from kvplan.units import fmt_bytes

ENGINES_HINT = "--engine vllm|sglang|trtllm predicts what an engine allocates"


def pool_derivation(r: dict[str, Any], stated: bool) -> str | None:
    """How `KV pool per GPU` came about, from the record's own fields; None without a pool.

    Ideal profile: memory x utilization - weights - reserve (the planner's usable memory is
    floor(memory x utilization), so the printed terms agree to the rounding of fmt_bytes).
    An engine profile: the card's memory less what the engine holds back, every term the
    memory bar shows (memory - weights - non-KV - unallocated equals the pool exactly).
    """
    pool = r["kv_budget_bytes"]
    if not pool:
        return None  # no pool: the reason under the card says why
    if "engine" in r:
        unallocated = r["memory_bytes"] - r["weights_bytes"] - r["reserve_bytes"] - pool
        return (f"KV pool = {fmt_bytes(r['memory_bytes'])} - {fmt_bytes(r['weights_bytes'])} "
                f"weights - {fmt_bytes(r['reserve_bytes'])} non-KV (activations, CUDA graphs, "
                f"context) - {fmt_bytes(unallocated)} left unused (profile: {r['engine']} "
                f"{r['engine_version']}; kvplan explain shows its arithmetic)")
    if stated:
        return (f"KV pool = {fmt_bytes(pool)} as stated (--kv-budget-gib, or a file's "
                f"kv_budget_gib); utilization and reserve not applied (profile: ideal; "
                f"{ENGINES_HINT})")
    return (f"KV pool = {fmt_bytes(r['memory_bytes'])} x {r['memory_utilization']:g} - "
            f"{fmt_bytes(r['weights_bytes'])} weights - {fmt_bytes(r['reserve_bytes'])} reserve "
            f"(profile: ideal; {ENGINES_HINT})")
