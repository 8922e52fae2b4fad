"""The one table: each command-line flag and the field of the kvplan/v1 record it sets.

docs/record.md prints this table; tests/record/test_flags.py checks every flag of size, fleet and
explain against it. A flag sets its field whether the record comes from flags alone or from a
file (then it overrides the file's value, with a note). Flags that are not fields of the record
are listed in OUTPUT_FLAGS (how to print, how to expand), never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class FlagField:
    """One flag: its name, the dotted field it sets, and how the value maps."""

    flag: str
    field: str
    comma_list: bool = False  # a comma list expands one record into one per value
    scale: int = 1  # the field holds value x scale (headroom 0.2 -> headroom_pct 20)
    also: tuple[tuple[str, Any], ...] = ()  # fields set with it when the value is truthy
    clears: tuple[str, ...] = ()  # fields of the file it replaces (one of two alternatives)
    engines: tuple[str, ...] = ()  # an engine's own spelling: refused for any other engine
    generic: str = ""  # the flag every engine shares for the same field (for messages)
    json_keys: tuple[tuple[str, str], ...] = ()  # a JSON object: its key -> the field it sets
    negative: str = ""  # a boolean's off spelling (--no-X), named when it sets false

    def spelled(self, value: Any) -> str:
        """The flag as given: the off spelling for false where there is one."""
        return self.negative if value is False and self.negative else self.flag

    def value(self, raw: Any) -> Any:
        if self.scale != 1:
            return float(Fraction(str(raw)) * self.scale)
        return raw


_LOAD_RATE = ("traffic.arrival_rate_per_s", "traffic.mean_duration_s")
_PCTS = ("traffic.context_tokens.p50", "traffic.context_tokens.p95",
         "traffic.context_tokens.p99")

# parameter name in the commands -> the flag and its field
FLAGS: dict[str, FlagField] = {f.flag.removeprefix("--").replace("-", "_"): f for f in (
    FlagField("--gpu", "hardware.gpu", comma_list=True),
    FlagField("--context", "engine.max_model_len", comma_list=True),
    FlagField("--max-model-len", "engine.max_model_len"),
    FlagField("--avg-context", "traffic.context_tokens.mean"),
    FlagField("--kv-dtype", "engine.kv_cache_dtype", comma_list=True),
    FlagField("--weight-dtype", "engine.weight_dtype"),
    FlagField("--allocation", "engine.allocation", comma_list=True),
    FlagField("--block-size", "engine.block_size"),
    FlagField("--kv-group-size", "engine.kv_group_size"),
    FlagField("--tp", "parallel.tensor", comma_list=True),
    FlagField("--pp", "parallel.pipeline"),
    FlagField("--nodes", "parallel.nodes"),
    FlagField("--ep", "parallel.expert"),
    FlagField("--memory-utilization", "engine.gpu_memory_utilization"),
    FlagField("--reserve-gib", "engine.reserve_gib"),
    FlagField("--kv-budget-gib", "engine.kv_budget_gib"),
    FlagField("--shared-prefix-tokens", "traffic.shared_prefix_tokens",
              also=(("engine.enable_prefix_caching", True),)),
    FlagField("--engine", "engine.name"),
    FlagField("--engine-version", "engine.version"),
    FlagField("--max-num-batched-tokens", "engine.max_num_batched_tokens"),
    FlagField("--max-num-seqs", "engine.max_num_seqs"),
    # vLLM
    FlagField("--enforce-eager", "engine.enforce_eager"),
    FlagField("--kv-cache-memory-bytes", "engine.kv_cache_memory_bytes"),
    FlagField("--cpu-offload-gb", "engine.cpu_offload_gb"),
    FlagField("--limit-mm-per-prompt", "engine.limit_mm_per_prompt"),
    FlagField("--speculative-model", "engine.speculative_model"),
    FlagField("--num-speculative-tokens", "engine.num_speculative_tokens"),
    FlagField("--speculative-config", "engine.speculative_model",
              json_keys=(("model", "engine.speculative_model"),
                         ("num_speculative_tokens", "engine.num_speculative_tokens"))),
    FlagField("--tp-transport", "engine.tp_transport"),
    FlagField("--disable-custom-all-reduce", "engine.disable_custom_all_reduce"),
    FlagField("--disable-hybrid-kv-cache-manager", "engine.disable_hybrid_kv_cache_manager",
              negative="--no-disable-hybrid-kv-cache-manager"),
    FlagField("--chunked-local-hybrid", "engine.chunked_local_hybrid",
              negative="--no-chunked-local-hybrid"),
    FlagField("--topk-topp-sampler", "engine.topk_topp_sampler"),
    FlagField("--entrypoint", "engine.entrypoint"),
    FlagField("--enable-extensible-kv-cache", "engine.enable_extensible_kv_cache",
              negative="--no-enable-extensible-kv-cache"),
    FlagField("--cudagraph-capture-sizes", "engine.cudagraph_capture_sizes"),
    FlagField("--max-cudagraph-capture-size", "engine.max_cudagraph_capture_size"),
    FlagField("--cudagraph-mode", "engine.cudagraph_mode"),
    # SGLang
    FlagField("--page-size", "engine.block_size", engines=("sglang", "trtllm"),
              generic="--block-size"),
    FlagField("--chunked-prefill-size", "engine.max_num_batched_tokens", engines=("sglang",),
              generic="--max-num-batched-tokens"),
    FlagField("--cuda-graph-max-bs", "engine.cuda_graph_max_bs"),
    FlagField("--max-running-requests", "engine.max_num_seqs", engines=("sglang",),
              generic="--max-num-seqs"),
    FlagField("--max-total-tokens", "engine.max_total_tokens"),
    FlagField("--attention-backend", "engine.attention_backend"),
    FlagField("--mm-feature-transport", "engine.mm_feature_transport"),
    FlagField("--attention-dp", "parallel.attention_dp"),
    FlagField("--moe-dense-tp-size", "engine.moe_dense_tp_size"),
    FlagField("--enable-dp-lm-head", "engine.enable_dp_lm_head"),
    FlagField("--moe-a2a-backend", "engine.moe_a2a_backend"),
    FlagField("--speculative-algorithm", "engine.speculative_algorithm"),
    FlagField("--speculative-num-steps", "engine.speculative_num_steps"),
    FlagField("--speculative-eagle-topk", "engine.speculative_eagle_topk"),
    FlagField("--speculative-num-draft-tokens", "engine.speculative_num_draft_tokens"),
    # TensorRT-LLM
    FlagField("--max-batch-size", "engine.max_num_seqs", engines=("trtllm",),
              generic="--max-num-seqs"),
    FlagField("--max-num-tokens", "engine.max_num_batched_tokens", engines=("trtllm",),
              generic="--max-num-batched-tokens"),
    FlagField("--max-seq-len", "engine.max_model_len", engines=("trtllm",),
              generic="--max-model-len"),
    FlagField("--tokens-per-block", "engine.block_size", engines=("trtllm",),
              generic="--block-size"),
    FlagField("--free-gpu-memory-fraction", "engine.gpu_memory_utilization",
              engines=("trtllm",), generic="--memory-utilization"),
    FlagField("--max-tokens-in-paged-kv-cache", "engine.max_tokens_in_paged_kv_cache"),
    FlagField("--trtllm-config", "engine.trtllm_config"),
    FlagField("--trt-activation-bytes", "engine.trt_activation_bytes"),
    FlagField("--trtllm-backend", "engine.trtllm_backend"),
    FlagField("--peak-users", "traffic.peak_concurrent_users", clears=_LOAD_RATE),
    FlagField("--arrival-rate", "traffic.arrival_rate_per_s",
              clears=("traffic.peak_concurrent_users",)),
    FlagField("--mean-duration-s", "traffic.mean_duration_s",
              clears=("traffic.peak_concurrent_users",)),
    FlagField("--peak-to-mean", "traffic.peak_to_mean"),
    FlagField("--context-p50", "traffic.context_tokens.p50",
              clears=("traffic.context_tokens.sample",)),
    FlagField("--context-p95", "traffic.context_tokens.p95",
              clears=("traffic.context_tokens.sample",)),
    FlagField("--context-p99", "traffic.context_tokens.p99",
              clears=("traffic.context_tokens.sample",)),
    FlagField("--context-sample", "traffic.context_tokens.sample", clears=_PCTS),
    FlagField("--risk", "traffic.risk"),
    FlagField("--min-tokens-per-s-per-user", "traffic.min_tokens_per_s_per_user"),
    FlagField("--prompt-tokens", "traffic.prompt_tokens"),
    FlagField("--headroom", "requirement.headroom_pct", scale=100),
    FlagField("--min-users", "requirement.min_users"),
    FlagField("--bandwidth-efficiency", "hardware.bandwidth_efficiency"),
    FlagField("--flops-efficiency", "hardware.flops_efficiency"),
)}

# fields that several flags set together, for messages
HINTS = {
    "traffic": "--peak-users N, or --arrival-rate with --mean-duration-s",
    "traffic.context_tokens": "--avg-context, two of --context-p50/--context-p95/--context-p99, "
    "or --context-sample",
}

# the price flags set hardware.price_per_hour_usd for the record's GPU (a table by GPU name)
PRICE_FLAGS = {
    "--price-per-hour": "hardware.price_per_hour_usd (USD, or GPU=USD for that GPU, the GPU "
                        "named as `--gpu` takes it: `H100=2` and `\"NVIDIA H100 80GB HBM3=2\"` price "
                        "h100-sxm-80gb; two prices for one GPU are refused)",
    "--prices": "hardware.price_per_hour_usd (a table by GPU; the record's GPU's row)",
}

# flags that are not fields of the record: how to print, where to write, how to expand
OUTPUT_FLAGS = {
    "--format": "output format",
    "--output": "where the output goes",
    "--save": "writes the planned record as a kvplan/v1 file",
    "--allow-no-fit": "exit status only: 0 instead of 1 when no plan fits",
    "--search": "expands one record into every GPU, TP size and cache precision",
    "--search-gpus": "limits --search to these GPUs",
    "--top": "--search only: the N first configurations shown",
    "--measure": "size only: checks the prediction on a device (a model, not a file)",
    "--device": "--measure only",
    "--tolerance": "--measure only",
    "--time-limit": "--measure only",
    "--layers": "--measure only",
    "--debug": "global: the full traceback of an error (any position)",
    "--no-color": "global: plain output (any position)",
}


def by_flag(flag: str) -> FlagField | None:
    """The table's row of a flag (--page-size -> its FlagField)."""
    return FLAGS.get(flag.removeprefix("--").replace("-", "_"))


def flag_for(field: str) -> str | None:
    """The flag that sets a field (the first listed), for messages."""
    for f in FLAGS.values():
        if f.field == field:
            return f.flag
    return None


def table_markdown() -> str:
    """The flag -> field table, as docs/record.md shows it."""
    rows = ["| flag | field of the kvplan/v1 record | notes |", "|---|---|---|"]
    for f in FLAGS.values():
        notes = []
        if f.comma_list:
            notes.append("comma list: one record per value")
        if f.scale != 1:
            notes.append(f"x {f.scale}")
        notes.extend(f"also sets {k}: {str(v).lower()}" for k, v in f.also)
        if f.clears:
            notes.append("replaces " + ", ".join(f.clears))
        if f.json_keys:
            notes.append("a JSON object: " + ", ".join(f"{k} sets {fld}"
                                                       for k, fld in f.json_keys))
        if f.engines:
            notes.append(f"{' and '.join(f.engines)} only (others: {f.generic})")
        if f.negative:
            notes.append(f"true; `{f.negative}` sets it false")
        rows.append(f"| `{f.flag}` | `{f.field}` | {'; '.join(notes)} |")
    for flag, what in PRICE_FLAGS.items():
        rows.append(f"| `{flag}` | `hardware.price_per_hour_usd` | {what.partition(' ')[2]} |")
    return "\n".join(rows) + "\n"
