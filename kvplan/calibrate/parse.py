"""Read engine start-up logs: the numbers vLLM (V0/V1), SGLang and TensorRT-LLM print.

A log file may hold several runs, separated by lines starting with `# --- run`. Lines starting
with `#` are comments, except `# engine:`, `# engine_version:`, `# model:` headers and
`# kvplan: key=value ...` directives, which state settings the log itself does not print (for
example the GPU or a command-line flag). Lines that look like memory lines but match no pattern
are kept in `unparsed` and reported, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kvplan.calibrate.directives import DIRECTIVE_KEYS  # noqa: F401  (re-exported)
from kvplan.calibrate.directives import directives as _directives
from kvplan.engines.interface import parse_version
from kvplan.errors import InputError

NUM = r"(-?[\d,]*\.?\d+)"


def _f(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass
class Run:
    """One engine start-up: what the log says, by key (GiB, tokens, ratios as floats)."""

    label: str
    engine: str | None = None
    version: str | None = None
    model_hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)  # from the log and directives
    lines: dict[str, tuple[int, str]] = field(default_factory=dict)  # key -> (line no, text)
    errors: list[str] = field(default_factory=list)  # engine refusal messages
    unparsed: list[tuple[int, str]] = field(default_factory=list)
    ranks: dict[int, float] = field(default_factory=dict)  # rank -> KV GiB it printed

    def put(self, key: str, value: float, lineno: int, text: str) -> None:
        self.values[key] = value
        self.lines[key] = (lineno, text.strip())


@dataclass
class LogFile:
    path: Path
    runs: list[Run]
    header: dict[str, str]


Handler = Callable[[Run, "re.Match[str]", int, str], None]
PATTERNS: list[tuple[str, re.Pattern[str], Handler]] = []


def pattern(engine: str, regex: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        PATTERNS.append((engine, re.compile(regex), fn))
        return fn

    return deco


def values(engine: str, regex: str, *keys: str) -> None:
    """A line whose numbered groups are, in order, the values of `keys` (in the log's units)."""

    def put(r: Run, m: re.Match[str], n: int, t: str) -> None:
        for i, key in enumerate(keys, start=1):
            r.put(key, _f(m[i]), n, t)

    PATTERNS.append((engine, re.compile(regex), put))


# --- vLLM -------------------------------------------------------------------------------------
values("vllm", r"Loading model weights took " + NUM + r" GB", "weights_gib")
# V1 prints "Model loading took X GiB memory"; V0 0.7-0.8 "Model loading took X GB and N seconds" (GiB too:
# vllm/worker/model_runner.py divides by 2**30).
values("vllm", r"Model loading took " + NUM + r" (?:GiB|GB)\b", "weights_gib")
# 0.6.5 prints the same summary with "duration=N seconds, " first and commas between the pairs.
values("vllm", r"Memory profiling results: (?:duration=[\d.]+ seconds, )?total_gpu_memory=" + NUM
       + r"GiB,? .*?peak_torch_memory=" + NUM + r"GiB,? .*?non_torch_memory=" + NUM
       + r"GiB,? kv_cache_size=" + NUM + r"GiB,? gpu_memory_utilization=" + NUM,
       "total_gib", "peak_torch_gib", "non_torch_gib", "kv_gib", "util")
values("vllm", r"\] total_gpu_memory\s+" + NUM + r"GiB", "total_gib")
values("vllm", r"\] gpu_memory_utilization\s+" + NUM, "util")
values("vllm", r"the current vLLM instance can use\s+" + NUM + r"GiB", "requested_gib")
values("vllm", r"\] model weights take\s+" + NUM + r"GiB\s*$", "weights_gib")
values("vllm", r"\] non_torch_memory\s+" + NUM + r"GiB", "non_torch_gib")
values("vllm", r"PyTorch activation peak memory\s+" + NUM + r"GiB", "activation_gib")
values("vllm", r"available_kv_cache_memory\s+" + NUM + r"GiB", "kv_gib")
values("vllm", r"total_gpu_memory \(" + NUM + r"GiB\) x gpu_memory_utilization \(" + NUM
       + r"\) = " + NUM + r"GiB", "total_gib", "util", "requested_gib")


@pattern("vllm", r"model weights take " + NUM + r"GiB; non_torch_memory takes " + NUM
         + r"GiB; PyTorch activation peak memory takes " + NUM
         + r"GiB; the rest of the memory reserved for KV Cache is " + NUM + r"GiB")
def _v0_prose_parts(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # With pipeline parallelism every stage prints one; the tightest (smallest KV) counts.
    kv = _f(m[4])
    if "kv_gib" in r.values and r.values["kv_gib"] <= kv:
        return
    r.put("weights_gib", _f(m[1]), n, t)
    r.put("non_torch_gib", _f(m[2]), n, t)
    r.put("activation_gib", _f(m[3]), n, t)
    r.put("kv_gib", kv, n, t)


@pattern("vllm", r"# (?:GPU|cuda|CUDA) blocks: (\d+)|^GPU blocks: (\d+)")
def _v0_blocks(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("blocks", _f(m[1] or m[2]), n, t)


values("vllm", r"GPU KV cache size:\s+" + NUM + r" tokens", "tokens")  # write-ups may align columns
# Hybrid attention/mamba models (vllm/model_executor/models/config.py): the raised attention block.
values("vllm", r"Setting attention block size to " + NUM + r" tokens", "hybrid_block")
values("vllm", r"Maximum concurrency for " + NUM + r" tokens per request: " + NUM + r"x",
       "max_model_len", "concurrency")


@pattern("vllm", r"Available KV cache memory: " + NUM + r" GiB")
def _v1_kv(r: Run, m: re.Match[str], n: int, t: str) -> None:
    kv = _f(m[1])
    rank = re.search(r"(?:rank=|Worker_TP)(\d+)", t)
    if rank:
        r.ranks[int(rank[1])] = kv
    if "kv_gib" in r.values and r.values["kv_gib"] <= kv:  # one line per rank: the smallest
        return
    r.put("kv_gib", kv, n, t)


@pattern("vllm", r"Free memory on device \(" + NUM + "/" + NUM + r" GiB\) on startup\. Desired GPU "
         r"memory utilization is \(" + NUM + ", " + NUM + r" GiB\)\. Actual usage is (.*?)\. ")
def _v1_free_line(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("free_gib", _f(m[1]), n, t)
    r.put("total_gib", _f(m[2]), n, t)
    r.put("util", _f(m[3]), n, t)
    r.put("requested_gib", _f(m[4]), n, t)
    usage = m[5]
    for key, rx in (
        ("weights_gib", NUM + r" GiB for weight"),
        ("consumed_gib", NUM + r" GiB for consumed memory"),
        ("activation_gib", NUM + r" GiB for peak activation"),
        ("non_torch_gib", NUM + r" GiB for non-torch memory"),
        ("cuda_graph_gib", NUM + r" GiB for CUDAGraph memory"),
    ):
        found = re.search(rx, usage)
        if found:
            r.put(key, _f(found[1]), n, t)
    cur = re.search(r"Current kv cache memory in use is (\d+) bytes", t)
    if cur:
        r.put("kv_in_use_gib", int(cur[1]) / 2**30, n, t)
    cur = re.search(r"Current kv cache memory in use is " + NUM + " GiB", t)
    if cur:
        r.put("kv_in_use_gib", _f(cur[1]), n, t)


@pattern("vllm", r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be "
         r"stored in KV cache \((\d+)\)")
def _v0_refusal(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("max_model_len", _f(m[1]), n, t)
    r.put("tokens", _f(m[2]), n, t)
    r.errors.append(t.strip())


@pattern("vllm", r"To serve at least one request .*?max seq len \((\d+)\), \(" + NUM
         + r" GiB KV cache is needed, which is larger than the available KV cache memory \("
         + NUM + r" GiB\)")
def _v1_refusal(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("max_model_len", _f(m[1]), n, t)
    r.put("needed_gib", _f(m[2]), n, t)
    r.put("kv_gib", _f(m[3]), n, t)
    r.errors.append(t.strip())


@pattern("vllm", r"EngineCore failed to start|No available memory for the cache blocks")
def _v1_failed(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.errors.append(t.strip())


@pattern("vllm",
         r"(?:Initializing a (V[01]) LLM engine \((v[^)]+)\)|vLLM API server version (\S+))")
def _v_version(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if m[1]:
        version = m[2].lstrip("v") + ("-v0" if m[1] == "V0" else "")
        r.settings["version"] = version
        for key, rx in (("max_model_len", r"max_seq_len=(\d+)"),
                        ("tp", r"tensor_parallel_size=(\d+)"),
                        ("pp", r"pipeline_parallel_size=(\d+)"),
                        ("enforce_eager", r"enforce_eager=(True|False)"),
                        ("model", r"model='([^']+)'")):
            found = re.search(rx, t)
            if found:
                r.settings.setdefault(key, found[1])
    elif "version" not in r.settings:
        r.settings["version"] = m[3]


@pattern("vllm", r"non-default args: (\{.*)")
def _v_args(r: Run, m: re.Match[str], n: int, t: str) -> None:
    for key, rx in (("max_model_len", r"'max_model_len': (\d+)"),
                    ("util", r"'gpu_memory_utilization': ([\d.]+)"),
                    ("tp", r"'tensor_parallel_size': (\d+)"),
                    ("pp", r"'pipeline_parallel_size': (\d+)"),
                    ("kv_dtype", r"'kv_cache_dtype': '(\w+)'"),
                    ("max_num_seqs", r"'max_num_seqs': (\d+)"),
                    ("max_num_batched_tokens", r"'max_num_batched_tokens': (\d+)"),
                    ("enforce_eager", r"'enforce_eager': (True|False)"),
                    ("kv_cache_memory_bytes", r"'kv_cache_memory_bytes': (\d+)"),
                    ("cpu_offload_gb", r"'cpu_offload_gb': ([\d.]+)"),
                    ("block_size", r"'block_size': (\d+)"),
                    ("model", r"'model': '([^']+)'")):
        found = re.search(rx, m[1])
        if found:
            r.settings[key] = found[1]


@pattern("vllm", r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
def _v_chunked(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if "max_num_batched_tokens" not in r.settings:  # not a flag: vLLM's own default, logged
        r.settings["max_num_batched_tokens"] = m[1]
        r.settings["batched_default"] = m[1]


values("vllm", r"Graph capturing finished in \d+ secs?, took " + NUM + r" GiB", "graphs_after_gib")


@pattern("vllm", r"CUDA graph memory profiling is enabled")
def _v_graph_estimate(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # vLLM >= 0.21 subtracting its graph estimate before sizing. An estimate printed without
    # this line ("CUDA graph pool memory: ... (estimated)") was not applied: logs 34, 35 size
    # the pool as requested - consumed - activation.
    r.settings.setdefault("graph_profiling", "1")


# --- SGLang -----------------------------------------------------------------------------------
values("sglang", r"Load weight begin\. avail mem=" + NUM + r" GB", "before_gib")


@pattern("sglang", r"Load weight end\..*?avail mem=" + NUM + r" GB")
def _s_after(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("after_gib", _f(m[1]), n, t)
    usage = re.search(r"mem usage=" + NUM + " GB", t)
    if usage:
        r.put("weights_gib", _f(usage[1]), n, t)
        r.values.setdefault("before_gib", _f(m[1]) + _f(usage[1]))
        r.lines.setdefault("before_gib", (n, t.strip()))


@pattern("sglang", r"KV Cache is allocated\.(?: dtype: \S+,)?(?: #tokens: (\d+),)? K size: " + NUM
         + r" GB, V size: " + NUM + " GB")
def _s_kv(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if m[1]:
        r.put("tokens", _f(m[1]), n, t)
    r.put("kv_gib", _f(m[2]) + _f(m[3]), n, t)


@pattern("sglang", r"KV Cache is allocated\.(?: dtype: \S+,)? #tokens: (\d+), KV size: " + NUM + " GB")
def _s_kv_mla(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # MLA pools (DeepSeek/Kimi shapes) keep one latent per token and log one size, not K and V.
    r.put("tokens", _f(m[1]), n, t)
    r.put("kv_gib", _f(m[2]), n, t)


@pattern("sglang", r"max_total_num_tokens=(\d+)")
def _s_tokens(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("tokens", _f(m[1]), n, t)
    ctx = re.search(r"context_len=(\d+)", t)
    if ctx:
        r.settings.setdefault("max_model_len", ctx[1])


@pattern("sglang", r"server_args=ServerArgs\((.*)")
def _s_args(r: Run, m: re.Match[str], n: int, t: str) -> None:
    for key, rx in (("mem_fraction_static", r"mem_fraction_static=([\d.]+)"),
                    ("tp", r"tp_size=(\d+)"), ("model", r"model_path='([^']+)'"),
                    ("chunked_prefill_size", r"chunked_prefill_size=(\d+)"),
                    ("cuda_graph_max_bs", r"cuda_graph_max_bs=(\d+)"),
                    ("max_running_requests", r"max_running_requests=(\d+)"),
                    ("max_tokens", r"max_total_tokens=(\d+)"),
                    ("page_size", r"page_size=(\d+)"),
                    ("attention_backend", r"(?<![_a-z])attention_backend='(\w+)'")):
        found = re.search(rx, m[1])
        if found:
            r.settings.setdefault(key, found[1])


@pattern("sglang", r"Attention backend not (?:specified|set)\. Use (\w+) backend by default")
def _s_backend(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["attention_backend"] = m[1]


@pattern("sglang", r"changing page_size from \w+ to (\d+)")
def _s_page(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["page_size"] = m[1]


values("sglang", r"Memory pool end\. avail mem=" + NUM + " GB", "pool_end_gib")


@pattern("sglang", r"Capture (?:piecewise )?cuda graph (?:begin|end)")
def _s_graphs(r: Run, m: re.Match[str], n: int, t: str) -> None:
    usage = re.search(r"mem usage=" + NUM + " GB", t)
    if usage:
        r.put("graphs_after_gib", r.values.get("graphs_after_gib", 0.0) + _f(usage[1]), n, t)


# --- TensorRT-LLM -----------------------------------------------------------------------------
values("trtllm", r"Memory usage when calculating max tokens in paged kv cache: total: " + NUM
       + r" GiB, available: " + NUM + " GiB", "total_gib", "available_gib")
values("trtllm", r"Number of blocks in KV cache primary pool: (\d+)", "blocks")


@pattern("trtllm", r"Number of tokens per block: (\d+)")
def _t_tpb(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["page_size"] = m[1]


@pattern("trtllm", r"Allocated " + NUM + r" GiB for max tokens in paged KV cache \((\d+)\)")
def _t_alloc(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # The PyTorch backend sizes the cache twice; the last line is the real pool.
    r.put("kv_gib", _f(m[1]), n, t)
    r.put("tokens", _f(m[2]), n, t)


@pattern("trtllm", r"Allocate (\d+) bytes for k/v cache")
def _t_alloc_bytes(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("kv_gib", _f(m[1]) / 2**30, n, t)


@pattern("trtllm", r"Using (\d+) (?:total )?tokens in paged KV cache")
def _t_using_tokens(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # TensorRT-LLM < 0.9 prints the tokens its fraction allows, before rounding up to blocks;
    # the 0.8 C++ runtime says "Using N total tokens in paged KV cache, and M blocks per sequence"
    r.put("tokens", _f(m[1]), n, t)


@pattern("trtllm", r"Both free_gpu_memory_fraction and max_tokens are set \(to " + NUM + r" and "
         + r"(\d+), respectively\)")
def _t_both(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["free_gpu_memory_fraction"] = f"{_f(m[1]):.4g}"
    r.settings["max_tokens"] = m[2]


@pattern("trtllm", r"Peak memory during memory usage profiling \(torch \+ non-torch\): " + NUM
         + r" GiB, available KV cache memory when calculating max tokens: " + NUM
         + r" GiB, fraction is set " + NUM + r", kv size is (\d+)\. device total memory " + NUM
         + r" GiB, , tmp kv_mem " + NUM + " GiB")
def _t_peak(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("peak_gib", _f(m[1]), n, t)
    r.put("available_kv_gib", _f(m[2]), n, t)
    r.settings["free_gpu_memory_fraction"] = f"{_f(m[3]):.4g}"
    r.put("kv_bytes_per_token", _f(m[4]), n, t)
    r.put("total_gib", _f(m[5]), n, t)
    r.put("tmp_kv_gib", _f(m[6]), n, t)


@pattern("trtllm", r"Peak memory during memory usage profiling \(torch \+ non-torch\): " + NUM
         + r" GiB, available KV cache memory when calculating max tokens: " + NUM
         + r" GiB, fraction is set " + NUM + r", kv size per token is (\d+) bytes/token\. "
         r"device total memory " + NUM + r" GiB, temporary kv cache memory during profiling "
         + NUM + " GiB")
def _t_peak_v2(r: Run, m: re.Match[str], n: int, t: str) -> None:
    _t_peak(r, m, n, t)  # the same six numbers, reworded in later 1.x releases


@pattern("trtllm", r"Reserving \S+ GiB for the multimodal encoder cache .*? " + NUM + r"\s*$")
def _t_mm_reserve(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("mm_encoder_cache_gib", _f(m[1]), n, t)


@pattern("trtllm", r"TensorRT-LLM version: (\S+)")
def _t_version(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["version"] = m[1]


values("trtllm", r"\[TRT-LLM\] \[I\] max_seq_len=(\d+)", "max_seq_len_final")
values("trtllm", r"maxSequenceLen are too large .*? they are reduced to (\d+)", "max_seq_len_final")


# Lines that carry memory numbers: reported when no pattern matched them.
INTERESTING = re.compile(r"\d\s*(GiB|GB|MiB|MB)\b|\d+ (blocks|tokens)\b|blocks: \d", re.I)
ENGINE_HINTS = (
    ("trtllm", re.compile(r"TensorRT-LLM|TRT-LLM")),
    ("sglang", re.compile(r"max_total_num_tokens|KV Cache is allocated|Load weight (begin|end)")),
    ("vllm", re.compile(r"vLLM|GPU KV cache size|GPU blocks|cuda blocks|Model loading took|"
                        r"Loading model weights took|Memory profiling")),
)


def parse_text(text: str, path: Path) -> LogFile:
    """Parse one log's text into runs. Never raises for unknown lines."""
    header: dict[str, str] = {}
    global_directives: dict[str, str] = {}
    runs: list[Run] = []
    current = Run(label=path.name)
    started = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\n")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("# --- run"):
            if started:
                runs.append(current)
            label = stripped.removeprefix("# --- ").split(":")[0].strip()
            current = Run(label=f"{path.name} {label}")
            current.settings.update(global_directives)
            started = True
            continue
        if stripped.startswith("# kvplan:"):
            pairs = _directives(stripped.removeprefix("# kvplan:"), path, lineno)
            (current.settings if started else global_directives).update(pairs)
            continue
        if stripped.startswith("#") and not re.match(r"#\s*(GPU|cuda|CUDA) blocks", stripped):
            head = re.match(r"#\s*(engine|engine_version|model|gpu):\s*(.*)", stripped)
            if head and head[1] not in header:
                header[head[1]] = head[2].strip()
            continue
        started = True
        matched = False
        for _kind, rx, handler in PATTERNS:
            found = rx.search(line)
            if found:
                handler(current, found, lineno, line)
                matched = True
        if not matched and INTERESTING.search(line) and _looks_numeric(line):
            current.unparsed.append((lineno, stripped[:160]))
    runs.append(current)
    engine = _detect_engine(header.get("engine", ""), text)
    for run in runs:
        for key, value in global_directives.items():
            run.settings.setdefault(key, value)
        _directive_version_over_dev_build(run, global_directives)
        run.engine = run.settings.get("engine", engine)
        run.version = run.settings.get("version") or _header_version(header)
        run.model_hint = _model_hint(run.settings.get("model") or header.get("model", ""))
    return LogFile(path=path, runs=runs, header=header)


def _directive_version_over_dev_build(run: Run, directives: dict[str, str]) -> None:
    """A `version=` directive replaces a logged version that names no release: a source build
    prints "vLLM API server version 0.1.dev7548+gbaba038" (log 09), which says nothing about
    the release line, and the directive was written for exactly that case."""
    stated = directives.get("version")
    logged = run.settings.get("version")
    if stated and logged and logged != stated and (parse_version(logged) or ()) < (0, 2):
        run.settings["version"] = stated


def parse_file(path: Path) -> LogFile:
    from kvplan.inputs import MAX_LOG_BYTES, read_text  # size and encoding checked

    text = read_text(path, MAX_LOG_BYTES, allow_nul=True)
    if not text.strip():
        raise InputError(f"{path}: the file is empty; give an engine's start-up log")
    return parse_text(text, path)


def _model_hint(text: str) -> str | None:
    """The model id a header or directive names: its first word, without the punctuation that
    follows it in prose ("# model: Qwen/Qwen3-14B, bf16" names Qwen/Qwen3-14B)."""
    word = text.strip().split(" ")[0].rstrip(",;:.)") if text.strip() else ""
    return word or None


def _looks_numeric(line: str) -> bool:
    return bool(re.search(r"\d", line))


def _detect_engine(header: str, text: str) -> str | None:
    head = header.strip().split(" ")[0].lower() if header else ""
    if head in ("vllm", "sglang", "trtllm"):
        return head
    for name, rx in ENGINE_HINTS:
        if rx.search(text):
            return name
    return None


def _header_version(header: dict[str, str]) -> str | None:
    text = header.get("engine_version", "")
    found = re.match(r"v?(\d+\.\d+(?:\.\d+)?)", text.strip())
    return found[1] if found else None
