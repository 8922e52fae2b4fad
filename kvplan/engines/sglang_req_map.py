"""SGLang's request-to-token map (`ReqToTokenPool.req_to_token`), per release.

The map is an int32 table with a row per request slot and a column per position of the context:
rows x (context_len + 4) x 4 B on every GPU (sglang/srt/mem_cache/memory_pool.py ReqToTokenPool:
`torch.zeros((size, max_context_len), dtype=torch.int32, device=device)`; the `+ 4` columns are
model_runner's `max_context_len=self.model_config.context_len + 4`, from 0.5.1 `+
extra_max_context_len`, 4 plus the speculative draft tokens, which kvplan does not model).

Where it comes from: the memory mem_fraction_static leaves over, not the KV pool's. In every wheel
read SGLang sizes the pool first (profile_max_num_token / _profile_available_bytes: the memory
free after the weights less pre-load memory x (1 - mem_fraction_static), divided by the cell; no
term for the map) and allocates the map afterwards, before the pool (init_memory_pool /
_init_pools). So the map never moves max_total_num_tokens; it takes its bytes out of the reserve
left beside the pool, and SGLang does not start when it is larger than what the weights and the
pool leave (sgl-project/sglang#5755: Llama-4-Scout at its 10,485,760-token default context,
"Tried to allocate 80.04 GiB ... 20.08 GiB is free", 2,049 x 10,485,764 x 4 B).

Read in the wheels of 0.3.2, 0.4.2, 0.4.6.post5, 0.4.7, 0.4.10, 0.5.1, 0.5.5, 0.5.8-0.5.14, 0.5.16,
0.5.17, 0.5.21 and 0.5.23 (the pool sized before the map: model_runner.py
profile_max_num_token :334 / init_memory_pool :376 then ReqToTokenPool :402 in 0.3.2; :535 /
:583 / :620 in 0.4.2; :785 / :843 / :903 in 0.4.6.post5; :801 / :859 / :933 in 0.4.7; :1044 /
:1185 / :1268 in 0.5.1; model_runner_kv_cache_mixin.py :144 / :875 / :465 in 0.5.10;
mem_cache/kv_cache_configurator.py _profile_available_bytes :2990, _resolve_memory_pool_config
:3182-3186, the map built before the token pool in _init_pools :743-745 in 0.5.23, whose
DefaultPoolConfigurator.calculate_pool_sizes, model_executor/pool_configurator.py :637-647,
divides the budget by the cell alone):
- rows: max_num_reqs + 1 through 0.4.6.postN (`ReqToTokenPool(size=max_num_reqs + 1, ...)`,
  model_runner.py :403 in 0.3.2, :621 in 0.4.2, :904 in 0.4.6.post5; logs 14, 15, 21, 57, 58 and
  136 print the scheduler's `max_running_requests=2049`, the pool's size); max_num_reqs in
  0.4.7-0.5.10 (`size=max_num_reqs`: 0.4.7 :934, 0.4.10 :1169, 0.5.1 :1268, 0.5.5 :1680;
  memory_pool.py `(size, max_context_len)`, :145 in 0.5.10); max_num_reqs + 1 again from 0.5.11, a
  padding row 0 for CUDA-graph padded batches (memory_pool.py :150 `(size + 1, max_context_len)` in
  0.5.11; `self._alloc_size = size + 1` :145 in 0.5.12, :275 in 0.5.17, :300 in 0.5.21, :402 in
  0.5.23).
- max_num_reqs, with T the pool's tokens and C the served context: through 0.5.9 a stated
  --max-running-requests as given, else min(max(int(T_profiled / C x 512), 2,048), 4,096), T
  as profiled, before --max-total-tokens and the page (model_runner.py :395 in 0.3.2, :849 in
  0.4.6.post5, :1193 in 0.5.1; model_runner_kv_cache_mixin.py :348 in 0.5.9). From 0.5.10
  (_resolve_max_num_reqs, model_runner_kv_cache_mixin.py :840-851) with T the final capacity
  (after the cap and the page): estimated = max(min(int(T / C x 512), 4,096), 2,048); unstated
  min(estimated, T // 2); stated min(stated, estimated) through 0.5.13 (:885 in 0.5.13) and
  min(stated, T // 2) from 0.5.14 (:991 in 0.5.14; kv_cache_configurator.py :1729 in 0.5.17,
  :3129 in 0.5.23, where resolve_max_num_reqs is :3119-3132). With data-parallel attention a
  stated count is each worker's share from 0.5.10: `max_num_reqs // self.dp_size` (0.5.10
  model_runner_kv_cache_mixin.py :849, dp_size the attention DP size, model_runner.py :319),
  `max(1, max_num_reqs // self.attn_dp_size)` in 0.5.23 (kv_cache_configurator.py :3128); the
  wheels between were not read for the floor, which moves only a count below the DP size; 0.5.9
  passes the count as given (model_runner_kv_cache_mixin.py :340; task h70review: kvplan booked
  the whole count before).
Not modelled: the decode-disaggregation and hybrid Mamba request pools (DecodeReqToTokenPool,
HybridReqToTokenPool: the same table, plus their own state), speculative decoding's extra columns,
and the opt-in unified memory pool of 0.5.23 (--enable-unified-memory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kvplan.engines.common import gib
from kvplan.engines.interface import Steps, parse_version
from kvplan.engines.sglang_defaults import DEFAULT_VERSION

# int32 entries; columns = context + EXTRA_COLUMNS (the module docstring's `+ 4`)
ENTRY_BYTES = 4
EXTRA_COLUMNS = 4
SLOTS_MIN, SLOTS_MAX, SLOTS_PER_CONTEXT = 2048, 4096, 512
ROWS_EQUAL_FROM = (0, 4, 7)  # rows = max_num_reqs (before: max_num_reqs + 1)
PADDING_ROW_FROM = (0, 5, 11)  # rows = max_num_reqs + 1 (a padding row 0)
RESOLVED_FROM = (0, 5, 10)  # _resolve_max_num_reqs: the final capacity, capped at T // 2
STATED_HALF_FROM = (0, 5, 14)  # a stated count capped at T // 2 (before: at the estimate)
PER_WORKER_FLOOR_FROM = (0, 5, 23)  # a stated count per DP-attention worker: max(1, n // dp)
SOURCE = "sglang mem_cache/memory_pool.py ReqToTokenPool, int32"


@dataclass(frozen=True)
class ReqMap:
    """The map's shape and bytes, and how its slot count was reached."""

    max_num_reqs: int
    rows: int
    columns: int
    bytes: int
    slots_how: str
    rows_how: str


def _v(version: str | None) -> tuple[int, ...]:
    return (parse_version(version or DEFAULT_VERSION) or ())[:3]


def max_num_reqs(version: str | None, context: int, profiled: int, tokens: int,
                 stated: int | None, attention_dp: int = 1) -> tuple[int, str]:
    """SGLang's request slots (max_num_reqs) and the rule that gave them: `profiled` the tokens
    profile_max_num_token gave, `tokens` the pool after --max-total-tokens and the page,
    `attention_dp` the data-parallel attention workers a stated count is shared by."""
    ver = _v(version)
    flag = "--max-running-requests"
    if stated is not None and attention_dp > 1 and ver >= RESOLVED_FROM:
        flag = f"--max-running-requests {stated:,} // attention DP {attention_dp} ="
        stated = stated // attention_dp if ver < PER_WORKER_FLOOR_FROM else \
            max(1, stated // attention_dp)  # each worker's own map (module docstring)
    if ver < RESOLVED_FROM:
        if stated is not None:
            return stated, "--max-running-requests"
        est = int(profiled / context * SLOTS_PER_CONTEXT)  # SGLang's float expression
        return (min(max(est, SLOTS_MIN), SLOTS_MAX),
                f"min(max(int(profiled tokens {profiled:,} / context {context:,} x 512), 2,048), "
                "4,096) (SGLang before 0.5.10)")
    est = max(min(int(tokens / context * SLOTS_PER_CONTEXT), SLOTS_MAX), SLOTS_MIN)
    if stated is not None and ver < STATED_HALF_FROM:
        return min(stated, est), (f"min({flag} {stated:,}, estimate {est:,}) "
                                  "(SGLang 0.5.10-0.5.13)")
    cap = stated if stated is not None else est
    said = f"{flag} {stated:,}" if stated is not None else (
        f"estimate {est:,} = max(min(int(tokens / context {context:,} x 512), 4,096), 2,048)")
    return min(cap, tokens // 2), f"min({said}, tokens {tokens:,} // 2)"


def rows_for(version: str | None, slots: int) -> tuple[int, str]:
    """The map's rows for `slots` request slots in that release."""
    ver = _v(version)
    if ROWS_EQUAL_FROM <= ver < PADDING_ROW_FROM:
        return slots, "max_num_reqs (SGLang 0.4.7-0.5.10)"
    return slots + 1, ("max_num_reqs + 1 (a padding row, SGLang 0.5.11 on)"
                       if ver >= PADDING_ROW_FROM else "max_num_reqs + 1 (SGLang before 0.4.7)")


def req_to_token_map(version: str | None, context: int, profiled: int, tokens: int,
                     stated: int | None, attention_dp: int = 1) -> ReqMap:
    """The request-to-token map SGLang `version` allocates on each GPU for a `context`-token
    model (module docstring)."""
    slots, slots_how = max_num_reqs(version, context, max(profiled, 0), max(tokens, 0), stated,
                                    attention_dp)
    rows, rows_how = rows_for(version, max(slots, 0))
    columns = context + EXTRA_COLUMNS
    return ReqMap(slots, rows, columns, rows * columns * ENTRY_BYTES, slots_how, rows_how)


def longest_context(version: str | None, left: int, profiled: int, tokens: int,
                    stated: int | None, upto: int, attention_dp: int = 1) -> int:
    """The longest context up to `upto` whose map fits in `left` bytes (0 when none does): the
    binary search the fix's --context-length comes from."""
    return _largest(upto, lambda n: req_to_token_map(version, n, profiled, tokens, stated,
                                                     attention_dp).bytes <= left)


def _largest(upto: int, fits: Callable[[int], bool]) -> int:
    """The largest n in 1..upto that `fits` (bisection: fits holds up to some n), else 0."""
    lo, hi = 0, upto
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def map_steps(st: Steps, version: str | None, context: int, profiled: int, tokens: int,
              stated: int | None, attention_dp: int = 1, also: str | None = None) -> ReqMap:
    """The map's steps for `explain`, after the KV pool's: its rows, columns and bytes, and what
    the weights and the pool leave for it (SGLang allocates it beside the pool); `also` names a
    step beside the pool that comes out of the same memory (a speculative draft's)."""
    rmap = req_to_token_map(version, context, profiled, tokens, stated, attention_dp)
    st.given("request slots (max_num_reqs)", rmap.max_num_reqs, "slots", rmap.slots_how)
    st.op("request-to-token rows", "sum", ["request slots (max_num_reqs)",
                                           rmap.rows - rmap.max_num_reqs], "rows", rmap.rows_how)
    st.op("request-to-token columns", "sum", [context, EXTRA_COLUMNS], "tokens",
          "context_len + 4")
    st.op("request-to-token map", "mul",
          ["request-to-token rows", "request-to-token columns", ENTRY_BYTES], "bytes",
          f"rows x columns x 4 B ({SOURCE}; allocated after the pool is sized, out of what "
          "mem_fraction_static leaves)")
    st.op("left after the KV pool", "sum", ["free after weights", "-KV pool"]
          + ([f"-{also}"] if also else []), "bytes", "free after weights - KV pool"
          + (f" - {also}" if also else "") + " (the map, activations and CUDA graphs share it)")
    st.op("left after the map", "sum", ["left after the KV pool", "-request-to-token map"],
          "bytes", "left after the KV pool - request-to-token map (below 0: SGLang stops)")
    return rmap


def most_slots(version: str | None, context: int, left: int, profiled: int, tokens: int,
               attention_dp: int = 1) -> int:
    """The largest --max-running-requests whose map fits in `left` bytes (0 when none does)."""
    return _largest(max(tokens, 1) * attention_dp, lambda n: req_to_token_map(
        version, context, profiled, tokens, n, attention_dp).bytes <= left)


def map_refusal(rmap: ReqMap, context: int, left: int, longest: int, slots: int) -> str:
    """Why SGLang stops when the map does not fit, and the two ways out (`longest`: the longest
    --context-length whose map fits, `slots`: the most --max-running-requests that fit)."""
    ways = []
    if longest > 0:
        ways.append(f"--context-length {longest:,} or less (now {context:,})")
    if slots > 0:
        ways.append(f"--max-running-requests {slots:,} or less")
    return (f"SGLang would not start: its request-to-token map (ReqToTokenPool: {rmap.rows:,} "
            f"request slots x {rmap.columns:,} positions x 4 B = {gib(rmap.bytes)} a GPU) does not "
            f"fit in the {gib(max(left, 0))} the weights and the KV pool leave"
            + (f"; the map alone fits with {' or with '.join(ways)} (SGLang's activations and "
               "CUDA graphs use the same memory, which kvplan does not book: leave them room)"
               if ways else ""))
