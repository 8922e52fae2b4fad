"""`kvplan size` says how its KV pool per GPU was derived, under the memory bar (task h45cli)."""

from __future__ import annotations

from tests.conftest import invoke

HINT = "--engine vllm|sglang|trtllm predicts what an engine allocates)"


def _tail(runner, *args: str) -> str:
    result = invoke(runner, "size", "llama-3.1-8b", *args)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # the line wraps at 80 columns


def test_ideal_footer_names_each_term(runner) -> None:
    """h100-sxm-80gb: 85,045,477,376 B / 2^30 = 79.2048 -> '79.2 GiB'; llama-3.1-8b bf16
    weights 16,060,522,496 B / 2^30 = 14.9575 -> '14.96 GiB'; default utilization 0.9 and
    reserve 2 GiB; pool 54.33 GiB (the card's row)."""
    out = _tail(runner)
    assert "KV pool per GPU 54.33 GiB" in out
    assert ("KV pool = 79.2 GiB x 0.9 - 14.96 GiB weights - 2 GiB reserve (profile: ideal; "
            + HINT) in out


def test_ideal_footer_follows_the_options(runner) -> None:
    """--memory-utilization 0.8 --reserve-gib 3: floor(85,045,477,376 x 0.8) - 16,060,522,496
    - 3 x 2^30 = 48,754,547,308 B = 45.41 GiB, the pool the card prints."""
    out = _tail(runner, "--memory-utilization", "0.8", "--reserve-gib", "3")
    assert "KV pool per GPU 45.41 GiB" in out
    assert "KV pool = 79.2 GiB x 0.8 - 14.96 GiB weights - 3 GiB reserve (profile: ideal;" in out


def test_stated_budget_says_nothing_was_subtracted(runner) -> None:
    """--kv-budget-gib 40: the pool is 40 GiB as given; no utilization, no reserve."""
    out = _tail(runner, "--kv-budget-gib", "40")
    assert ("KV pool = 40 GiB as stated (--kv-budget-gib, or a file's kv_budget_gib); "
            "utilization and reserve not "
            "applied (profile: ideal; " + HINT) in out


def test_engine_footer_names_the_profile(runner) -> None:
    """--engine vllm: the pool is what the memory bar's other parts leave; the line names the
    profile and its version and sends the reader to explain for the engine's arithmetic."""
    out = _tail(runner, "--engine", "vllm", "--engine-version", "0.34.0")
    assert "non-KV (activations, CUDA graphs, context)" in out
    assert "(profile: vllm 0.34.0; kvplan explain shows its arithmetic)" in out
    assert "profile: ideal" not in out


def test_no_pool_no_footer(runner) -> None:
    """llama-3.1-70b on one l4: bf16 weights (~131 GiB) overfill its 21.95 GiB, the pool is 0 and
    the reason says why; no derivation line for a pool that does not exist."""
    result = invoke(runner, "size", "llama-3.1-70b", "-g", "l4", "--allow-no-fit")
    assert "KV pool per GPU  none" in result.output
    assert "KV pool =" not in result.output
