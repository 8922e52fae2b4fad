"""Mutation tests of kvplan/engines/sglang_req_map.py (task h71mut): every rule's branch and its
words, with figures by hand from the rules the module cites (sglang model_runner.py /
model_runner_kv_cache_mixin.py / kv_cache_configurator.py, memory_pool.py ReqToTokenPool, per
release as its docstring lists them):

- max_num_reqs before 0.5.10: a stated count as given, else min(max(int(T_profiled / C x 512),
  2,048), 4,096);
- from 0.5.10: est = max(min(int(T / C x 512), 4,096), 2,048); stated min(stated, est) through
  0.5.13, min(stated, T // 2) from 0.5.14; unstated min(est, T // 2); with DP attention a stated
  count is n // dp from 0.5.10, max(1, n // dp) from 0.5.23;
- rows: max_num_reqs + 1 before 0.4.7 and from 0.5.11, max_num_reqs in 0.4.7-0.5.10;
- bytes: rows x (C + 4) x 4 (int32).
"""

from __future__ import annotations

from kvplan.engines.interface import Step, Steps
from kvplan.engines.sglang_req_map import (
    ReqMap,
    _largest,
    longest_context,
    map_refusal,
    map_steps,
    max_num_reqs,
    most_slots,
    req_to_token_map,
    rows_for,
)

CLAMP = "min(max(int(profiled tokens 1,000 / context 32,768 x 512), 2,048), 4,096) (SGLang before 0.5.10)"


def test_slots_before_0_5_10_and_their_words() -> None:
    """int(1,000 / 32,768 x 512) = int(15.625) = 15 -> clamped to 2,048; int(10,000,000 / 1,000 x
    512) = 5,120,000 -> 4,096; int(5,000 / 1,000 x 512) = 2,560 stays. A stated count is taken
    as given, with the flag as its words. The estimate reads the profiled tokens, not the pool."""
    assert max_num_reqs("0.5.9", 32_768, 1_000, 999_999, None) == (2048, CLAMP)
    assert max_num_reqs("0.5.9", 1_000, 10_000_000, 1, None)[0] == 4096
    assert max_num_reqs("0.5.9", 1_000, 5_000, 1, None)[0] == 2560
    assert max_num_reqs("0.4.6", 32_768, 1_000, 1_000, 7) == (7, "--max-running-requests")
    # DP attention does not divide a stated count before 0.5.10
    assert max_num_reqs("0.5.9", 32_768, 1_000, 1_000, 64, attention_dp=2) == (
        64, "--max-running-requests")


def test_slots_from_0_5_10_and_their_words() -> None:
    """From 0.5.10 the estimate reads the final pool T: int(10,000 / 2,000 x 512) = 2,560 (in the
    clamp), int(10,000,000 / 1,000 x 512) -> 4,096, and 15 -> 2,048; then min(., T // 2)."""
    est = "max(min(int(tokens / context {c} x 512), 4,096), 2,048)"
    assert max_num_reqs("0.5.23", 2_000, 1, 10_000, None) == (
        2560, f"min(estimate 2,560 = {est.format(c='2,000')}, tokens 10,000 // 2)")
    assert max_num_reqs("0.5.23", 1_000, 1, 10_000_000, None)[0] == 4096
    # 0.5.10 is the first release of the rule: the final pool, capped at 1,000 // 2
    assert max_num_reqs("0.5.10", 32_768, 999_999, 1_000, None)[0] == 500
    assert max_num_reqs("0.5.23", 32_768, 999_999, 1_000, None) == (
        500, f"min(estimate 2,048 = {est.format(c='32,768')}, tokens 1,000 // 2)")
    # 0.5.12, stated 5,000 over the estimate 1,562 -> 2,048: the estimate
    assert max_num_reqs("0.5.12", 32_768, 1, 100_000, 5000) == (
        2048, "min(--max-running-requests 5,000, estimate 2,048) (SGLang 0.5.10-0.5.13)")
    assert max_num_reqs("0.5.13", 32_768, 1, 100_000, 100)[0] == 100
    # 0.5.14: stated capped at T // 2 = 3,000, not at the estimate
    assert max_num_reqs("0.5.14", 32_768, 1, 6_000, 5000) == (
        3000, "min(--max-running-requests 5,000, tokens 6,000 // 2)")
    assert max_num_reqs("0.5.14", 32_768, 1, 100_000, 2500)[0] == 2500


def test_a_stated_count_per_attention_dp_worker() -> None:
    """64 // 2 = 32 from 0.5.10 (the words say so); 1 // 4 = 0 in 0.5.10-0.5.22 and max(1, 0) = 1
    from 0.5.23; 3 // 2 = 1 either way; one worker keeps the plain flag words."""
    assert max_num_reqs("0.5.23", 40_960, 1, 400_000, 64, attention_dp=2) == (
        32, "min(--max-running-requests 64 // attention DP 2 = 32, tokens 400,000 // 2)")
    assert max_num_reqs("0.5.12", 40_960, 1, 400_000, 64, attention_dp=2) == (
        32, "min(--max-running-requests 64 // attention DP 2 = 32, estimate 4,096) "
        "(SGLang 0.5.10-0.5.13)")
    assert max_num_reqs("0.5.10", 40_960, 1, 400_000, 64, attention_dp=2)[0] == 32
    assert max_num_reqs("0.5.23", 40_960, 1, 400_000, 1, attention_dp=4)[0] == 1
    assert max_num_reqs("0.5.22", 40_960, 1, 400_000, 1, attention_dp=4)[0] == 0
    assert max_num_reqs("0.5.23", 40_960, 1, 400_000, 3, attention_dp=2)[0] == 1
    assert max_num_reqs("0.5.23", 40_960, 1, 400_000, 64, attention_dp=1) == (
        64, "min(--max-running-requests 64, tokens 400,000 // 2)")


def test_rows_and_their_words() -> None:
    assert rows_for("0.4.6", 10) == (11, "max_num_reqs + 1 (SGLang before 0.4.7)")
    assert rows_for("0.4.7", 10) == (10, "max_num_reqs (SGLang 0.4.7-0.5.10)")
    assert rows_for("0.5.10", 10) == (10, "max_num_reqs (SGLang 0.4.7-0.5.10)")
    assert rows_for("0.5.11", 10) == (11, "max_num_reqs + 1 (a padding row, SGLang 0.5.11 on)")
    assert rows_for(None, 10) == rows_for("0.5.23", 10)  # the default release, 0.5.23


def test_the_map_record() -> None:
    """0.5.23, C 100, T 1,000, unstated: 500 slots, 501 rows, 104 columns, 501 x 104 x 4 =
    208,416 B; a negative pool counts as 0 tokens: min(2,048, 0 // 2) = 0 slots, 1 row."""
    rmap = req_to_token_map("0.5.23", 100, 1_000, 1_000, None)
    assert rmap == ReqMap(500, 501, 104, 208_416, rmap.slots_how, rmap.rows_how)
    assert rmap.slots_how.startswith("min(estimate 4,096")  # int(1,000 / 100 x 512) = 5,120
    assert rmap.rows_how == "max_num_reqs + 1 (a padding row, SGLang 0.5.11 on)"
    empty = req_to_token_map("0.5.23", 100, -5, -5, None)
    assert (empty.max_num_reqs, empty.rows, empty.bytes) == (0, 1, 416)
    # before 0.5.10 a negative profile counts as 0: int(0 / 100 x 512) = 0 -> 2,048 slots
    assert req_to_token_map("0.5.9", 100, -5, 1_000, None).max_num_reqs == 2048
    # a negative slot count (0.5.22: 1 // 4 = 0) is never below 0 rows + 1
    assert req_to_token_map("0.4.6", 100, 1_000, 1_000, -3).rows == 1


def test_largest_bisection() -> None:
    assert _largest(0, lambda n: True) == 0
    assert _largest(100, lambda n: True) == 100
    assert _largest(100, lambda n: False) == 0
    assert _largest(100, lambda n: n <= 37) == 37
    assert _largest(1, lambda n: n <= 1) == 1
    assert _largest(2, lambda n: n <= 1) == 1


def test_longest_context() -> None:
    """0.5.23, T 1,000, unstated: 501 rows at every context (the estimate is >= 2,048 > 500), so
    a context n fits in 501 x (n + 4) x 4 B: 208,416 B holds 100, one byte less 99."""
    assert longest_context("0.5.23", 208_416, 1_000, 1_000, None, 1_000) == 100
    assert longest_context("0.5.23", 208_415, 1_000, 1_000, None, 1_000) == 99
    assert longest_context("0.5.23", 208_416, 1_000, 1_000, None, 50) == 50
    # stated 10 slots, 11 rows: 11 x 104 x 4 = 4,576 B holds 100
    assert longest_context("0.5.23", 4_576, 1_000, 1_000, 10, 1_000) == 100
    # stated 20 over DP 2: 10 slots a worker, the same 100
    assert longest_context("0.5.23", 4_576, 1_000, 1_000, 20, 1_000, attention_dp=2) == 100


def test_longest_context_and_most_slots_read_the_release() -> None:
    """0.4.7 books max_num_reqs rows (no padding row) and a stated count as given: 10 slots, 10
    rows, 10 x 104 x 4 = 4,160 B hold a 100-token context, and 4,160 B hold 10 slots at C 100
    (0.5.23 would give 11 rows: 90 tokens, 9 slots)."""
    assert longest_context("0.4.7", 4_160, 1_000, 1_000, 10, 1_000) == 100
    assert most_slots("0.4.7", 100, 4_160, 1_000, 1_000) == 10


def test_longest_context_where_longer_contexts_get_fewer_slots() -> None:
    """Before 0.5.10 the unstated slots fall as the context grows: profiled 1,000 tokens give
    min(max(int(512,000 / n), 2,048), 4,096) slots + 1 row (0.4.6), so 2,089,416 B hold n <= 123
    (4,097 x 127 x 4 = 2,081,276; n = 124: 2,097,664) and again n = 250 (2,049 x 254 x 4 =
    2,081,784; n = 251: 2,049 x 255 x 4 = 2,089,980): the longest that fits is 250."""
    assert longest_context("0.4.6", 2_089_416, 1_000, 1_000, None, 1_000) == 250


def test_most_slots() -> None:
    """0.5.23, C 100, T 1,000: n slots take (n + 1) x 104 x 4 B, so 4,576 B holds 10; over DP 2
    a stated n is n // 2 a worker, so 21 (10 a worker); everything fits: up to T x DP; T 0
    searches up to 1."""
    assert most_slots("0.5.23", 100, 4_576, 1_000, 1_000) == 10
    assert most_slots("0.5.23", 100, 4_575, 1_000, 1_000) == 9
    assert most_slots("0.5.23", 100, 4_576, 1_000, 1_000, attention_dp=2) == 21
    assert most_slots("0.5.23", 100, 10**12, 1_000, 1_000) == 1_000
    assert most_slots("0.5.23", 100, 10**12, 1_000, 1_000, attention_dp=3) == 3_000
    assert most_slots("0.5.23", 100, 10**12, 0, 0) == 1


def test_map_steps() -> None:
    """The steps explain prints, after the pool's: 0.5.23, C 100, T 1,000, unstated."""
    st = Steps()
    st.given("free after weights", 1_000_000, "bytes", "x")
    st.given("KV pool", 600_000, "bytes", "y")
    rmap = map_steps(st, "0.5.23", 100, 1_000, 1_000, None)
    assert rmap.bytes == 208_416
    assert st.items[2:] == [
        Step("request slots (max_num_reqs)", 500, "slots", rmap.slots_how),
        Step("request-to-token rows", 501, "rows", rmap.rows_how, "sum",
             ("request slots (max_num_reqs)", 1)),
        Step("request-to-token columns", 104, "tokens", "context_len + 4", "sum", (100, 4)),
        Step("request-to-token map", 208_416, "bytes",
             "rows x columns x 4 B (sglang mem_cache/memory_pool.py ReqToTokenPool, int32; "
             "allocated after the pool is sized, out of what mem_fraction_static leaves)", "mul",
             ("request-to-token rows", "request-to-token columns", 4)),
        Step("left after the KV pool", 400_000, "bytes",
             "free after weights - KV pool (the map, activations and CUDA graphs share it)",
             "sum", ("free after weights", "-KV pool")),
        Step("left after the map", 191_584, "bytes",
             "left after the KV pool - request-to-token map (below 0: SGLang stops)", "sum",
             ("left after the KV pool", "-request-to-token map")),
    ]


def test_map_steps_read_the_release_and_one_worker() -> None:
    """0.4.7 with --max-running-requests 64 (one attention worker unless given): 64 slots as
    stated, 64 rows (no padding row), 64 x 104 x 4 = 26,624 B."""
    st = Steps()
    st.given("free after weights", 1_000_000, "bytes", "x")
    st.given("KV pool", 600_000, "bytes", "y")
    rmap = map_steps(st, "0.4.7", 100, 1_000, 1_000, 64)
    assert (rmap.max_num_reqs, rmap.rows, rmap.bytes) == (64, 64, 26_624)
    assert st.items[3] == Step("request-to-token rows", 64, "rows",
                               "max_num_reqs (SGLang 0.4.7-0.5.10)", "sum",
                               ("request slots (max_num_reqs)", 0))
    # 0.5.12 divides a stated count by the attention DP size: one worker by default, 64 slots
    st = Steps()
    st.given("free after weights", 1_000_000, "bytes", "x")
    st.given("KV pool", 600_000, "bytes", "y")
    assert map_steps(st, "0.5.12", 100, 1_000, 1_000, 64).max_num_reqs == 64


def test_map_refusal_words() -> None:
    """2,049 x 10,485,764 x 4 = 85,941,321,744 B = 80.04 GiB; 15,082,861,184 B = 14.05 GiB."""
    rmap = ReqMap(2048, 2049, 10_485_764, 85_941_321_744, "", "")
    head = ("SGLang would not start: its request-to-token map (ReqToTokenPool: 2,049 request "
            "slots x 10,485,764 positions x 4 B = 80.04 GiB a GPU) does not fit in the ")
    tail = (" (SGLang's activations and CUDA graphs use the same memory, which kvplan does not "
            "book: leave them room)")
    assert map_refusal(rmap, 10_485_760, 15_082_861_184, 0, 0) == (
        head + "14.05 GiB the weights and the KV pool leave")
    assert map_refusal(rmap, 10_485_760, -1, 0, 0) == (
        head + "0.00 GiB the weights and the KV pool leave")
    assert map_refusal(rmap, 10_485_760, 15_082_861_184, 1, 0) == (
        head + "14.05 GiB the weights and the KV pool leave; the map alone fits with "
        "--context-length 1 or less (now 10,485,760)" + tail)
    assert map_refusal(rmap, 10_485_760, 15_082_861_184, 0, 1) == (
        head + "14.05 GiB the weights and the KV pool leave; the map alone fits with "
        "--max-running-requests 1 or less" + tail)
    assert map_refusal(rmap, 10_485_760, 15_082_861_184, 1_840_267, 358) == (
        head + "14.05 GiB the weights and the KV pool leave; the map alone fits with "
        "--context-length 1,840,267 or less (now 10,485,760) or with "
        "--max-running-requests 358 or less" + tail)
