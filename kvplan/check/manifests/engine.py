"""Engine options, as the engine resolved them (kvplan.check.argv), to kvplan/v1 fields."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.argv import TABLES, Invocation, Parsed

# canonical option -> (kvplan field, kind)
VLLM: dict[str, tuple[str, str]] = {
    "--model": ("model", "str"),
    "--served-model-name": ("served_name", "str"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "-tp": ("parallel.tensor", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "-pp": ("parallel.pipeline", "int"),
    "--data-parallel-size": ("dp", "int"),
    "-dp": ("dp", "int"),
    "--max-model-len": ("engine.max_model_len", "tokens"),
    "--gpu-memory-utilization": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--block-size": ("engine.block_size", "int"),
    "--max-num-seqs": ("engine.max_num_seqs", "int"),
    "--max-num-batched-tokens": ("engine.max_num_batched_tokens", "tokens"),
    "--enable-prefix-caching": ("engine.enable_prefix_caching", "true"),
    "--no-enable-prefix-caching": ("engine.enable_prefix_caching", "false"),
    "--disable-prefix-caching": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
    "-q": ("quantization", "str"),
}
SGLANG: dict[str, tuple[str, str]] = {
    "--model-path": ("model", "str"),
    "--model": ("model", "str"),
    "--served-model-name": ("served_name", "str"),
    "--tp-size": ("parallel.tensor", "int"),
    "--tensor-parallel-size": ("parallel.tensor", "int"),
    "--pp-size": ("parallel.pipeline", "int"),
    "--pipeline-parallel-size": ("parallel.pipeline", "int"),
    "--dp-size": ("dp", "int"),
    "--data-parallel-size": ("dp", "int"),
    "--context-length": ("engine.max_model_len", "tokens"),
    "--mem-fraction-static": ("engine.gpu_memory_utilization", "float"),
    "--kv-cache-dtype": ("engine.kv_cache_dtype", "str"),
    "--page-size": ("engine.block_size", "int"),
    "--max-running-requests": ("engine.max_num_seqs", "int"),
    "--chunked-prefill-size": ("engine.max_num_batched_tokens", "int"),
    "--disable-radix-cache": ("engine.enable_prefix_caching", "false"),
    "--dtype": ("engine.weight_dtype", "str"),
    "--quantization": ("quantization", "str"),
}
TRTLLM: dict[str, tuple[str, str]] = {
    "--tensor_parallel_size": ("parallel.tensor", "int"),
    "--tp_size": ("parallel.tensor", "int"),
    "--pipeline_parallel_size": ("parallel.pipeline", "int"),
    "--pp_size": ("parallel.pipeline", "int"),
    "--max_seq_len": ("engine.max_model_len", "int"),
    "--max_batch_size": ("engine.max_num_seqs", "int"),
    "--max_num_tokens": ("engine.max_num_batched_tokens", "int"),
}
FIELDS = {"vllm": VLLM, "sglang": SGLANG, "trtllm": TRTLLM}
# SGLang's own defaults that differ from kvplan/v1's (vLLM-named) defaults.
DEFAULTS = {"sglang": {"engine.block_size": 1, "engine.enable_prefix_caching": True}}
# what the flag is called in a fix, per engine
FLAG_NAMES = {
    "vllm": {"tp": "--tensor-parallel-size", "len": "--max-model-len", "seqs": "--max-num-seqs",
             "kv": "--kv-cache-dtype fp8"},
    "sglang": {"tp": "--tp-size", "len": "--context-length", "seqs": "--max-running-requests",
               "kv": "--kv-cache-dtype fp8_e4m3"},
    "trtllm": {"tp": "--tp_size", "len": "--max_seq_len", "seqs": "--max_batch_size",
               "kv": "kv_cache_config.dtype: fp8 (in --config)"},
}


@dataclass
class Found:
    """kvplan fields read from a manifest, with the line of each and what to call it."""

    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def put(self, path: str, value: Any, line: int, name: str) -> None:
        self.values[path] = value
        self.lines[path] = line
        self.names[path] = name


def tokens(text: str) -> int:
    """vLLM accepts 32k / 1M style lengths: k/m are powers of 1000, K/M powers of 1024."""
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", text.strip())
    if not match:
        raise ValueError(text)
    scale = {"": 1, "k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20, "g": 10**9, "G": 2**30}
    return int(match.group(1)) * scale[match.group(2)]


def convert(kind: str, raw: str) -> Any:
    if kind == "int":
        return int(raw)
    if kind == "tokens":
        return tokens(raw)
    if kind == "float":
        return float(raw)
    return raw


def _older_than_table(image: Any, table: str) -> bool:
    """Whether the image names a release older than the one the option table was read from
    (options removed since then are not refused: kvplan has no table for that release)."""
    from kvplan.engines.interface import parse_version
    from kvplan.errors import InputError

    if image is None:
        return False
    try:
        have, read = parse_version(str(image)), parse_version(table)
    except InputError:
        return False
    return have is not None and read is not None and have < read


@dataclass
class Refusal:
    """Why the engine would refuse to start on its command line (a FAIL, not an ERROR)."""

    field: str
    message: str
    line: int | None


def read_options(
    inv: Invocation, parsed: Parsed, found: Found, problems: list[Any], refusals: list[Refusal],
    notes: list[str], strict: bool,
) -> None:
    """The options kvplan uses into `found`; an option the engine does not know is a refusal
    (a note where the launcher adds its own options, or `strict` is off)."""
    from kvplan.deploy import Problem

    table = FIELDS[inv.engine]
    version = TABLES[inv.engine][1]
    name = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "trtllm-serve"}[inv.engine]
    older = _older_than_table(found.values.get("engine.version"), version)
    for flag, line, hint in parsed.unknown:
        text = f"{name} {version} has no option {flag}{hint}"
        if older:
            notes.append(f"{text}; the image is {inv.engine} {found.values['engine.version']}, "
                         "older than the option table: not checked")
        elif strict and not inv.dynamo:
            refusals.append(Refusal(flag, f"the engine refuses it: {text}", line))
        else:
            notes.append(f"{text} (not checked: {inv.entry} adds options of its own)")
    for flag, line, candidates in parsed.ambiguous:
        refusals.append(Refusal(flag, f"ambiguous option: could match {', '.join(candidates[:4])}",
                                line))
    if parsed.positional:
        first = parsed.positional[0]
        found.put("model", first.text, first.line, "the served model")
    for flag, (raw, line) in parsed.options.items():
        entry = table.get(flag)
        if entry is None:
            continue
        path, kind = entry
        if kind in ("true", "false"):
            found.put(path, kind == "true", line, flag)
            continue
        if raw is None:
            problems.append(Problem(flag, "needs a value", line))
            continue
        try:
            found.put(path, convert(kind, raw), line, flag)
        except ValueError:
            problems.append(Problem(flag, f"{raw!r} is not a number", line))
    for key, value in DEFAULTS.get(inv.engine, {}).items():
        found.values.setdefault(key, value)
