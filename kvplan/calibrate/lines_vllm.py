"""vLLM (V0 and V1) start-up lines kvplan reads."""

from __future__ import annotations

import re

from kvplan.calibrate.lines import NUM, Run, _f, pattern, setting, values

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


# Write-ups may align columns. With TP/PP every worker prints its own size before vLLM unifies them to
# the smallest (vllm/v1/core/kv_cache_utils.py unify_kv_cache_configs: "changes the num_blocks of each
# worker to the smallest among all workers"): one line per worker, the smallest is the pool.
@pattern("vllm", r"GPU KV cache size:\s+" + NUM + r" tokens")
def _v1_tokens(r: Run, m: re.Match[str], n: int, t: str) -> None:
    tokens = _f(m[1])
    if "tokens" in r.values and r.values["tokens"] <= tokens:
        return
    r.put("tokens", tokens, n, t)


# Hybrid attention/mamba models (vllm/model_executor/models/config.py): the raised attention block.
values("vllm", r"Setting attention block size to " + NUM + r" tokens", "hybrid_block")


@pattern("vllm", r"Maximum concurrency for " + NUM + r" tokens per request: " + NUM + r"x")
def _v1_concurrency(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # one line per worker, as "GPU KV cache size" above: the smallest is the engine's
    if "concurrency" in r.values and r.values["concurrency"] <= _f(m[2]):
        return
    r.put("max_model_len", _f(m[1]), n, t)
    r.put("concurrency", _f(m[2]), n, t)


@pattern("vllm", r"Available KV cache memory: " + NUM + r" GiB")
def _v1_kv(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if r.settings.get("kv_after_warmup"):  # 0.34's pool, sized after warm-up (lines_vllm034)
        return
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
        r.read_settings(t, (("max_model_len", r"max_seq_len=(\d+)"),
                            ("tp", r"tensor_parallel_size=(\d+)"),
                            ("pp", r"pipeline_parallel_size=(\d+)"),
                            ("enforce_eager", r"enforce_eager=(True|False)"),
                            ("disable_custom_all_reduce",
                             r"disable_custom_all_reduce=(True|False)"),
                            ("model", r"model='([^']+)'")))
    elif "version" not in r.settings:
        r.settings["version"] = m[3]


# Which engine printed the lines (kvplan.calibrate.resolve.infer_vllm_version): V1's own banner and
# modules (vllm/v1/: engine/core.py, core/kv_cache_utils.py, worker/gpu_model_runner.py,
# worker/gpu_worker.py, its EngineCore process) or V0's banner, fallback warning and profiler prose
# (vllm/engine/llm_engine.py, vllm/worker/worker.py). Early V1 (0.7.x; the 0.7.2 wheel's
# v1/core/kv_cache_utils.py) prints "# GPU blocks: N" as V0's executor does, so a log's module
# names are what tell them apart; the first engine a run's lines name is kept.
V1_MARK = re.compile(r"Initializing a V1 LLM engine|EngineCore|vllm\.v1\.|\bv1/|"
                     r"\b(?:kv_cache_utils|gpu_model_runner|gpu_worker|core_client)\.py\b")
V0_MARK = re.compile(r"Initializing a V0 LLM engine|Falling back to V0|"
                     r"\bworker\.py:\d+\]? (?:Memory profiling|the current vLLM instance can use)")


@pattern("vllm", V1_MARK.pattern + "|" + V0_MARK.pattern)
def _v_engine_mark(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if "log_engine" not in r.settings:
        r.settings["log_engine"] = "V1" if V1_MARK.search(t) else "V0"
        r.settings["log_engine_line"] = f"line {n}: {m[0]}"


@pattern("vllm", r"non-default args: (\{.*)")
def _v_args(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.read_settings(m[1], (("max_model_len", r"'max_model_len': (\d+)"),
                           ("util", r"'gpu_memory_utilization': ([\d.]+)"),
                           ("tp", r"'tensor_parallel_size': (\d+)"),
                           ("pp", r"'pipeline_parallel_size': (\d+)"),
                           ("kv_dtype", r"'kv_cache_dtype': '(\w+)'"),
                           ("max_num_seqs", r"'max_num_seqs': (\d+)"),
                           ("max_num_batched_tokens", r"'max_num_batched_tokens': (\d+)"),
                           ("enforce_eager", r"'enforce_eager': (True|False)"),
                           ("disable_custom_all_reduce", r"'disable_custom_all_reduce': (True|False)"),
                           ("kv_cache_memory_bytes", r"'kv_cache_memory_bytes': (\d+)"),
                           ("cpu_offload_gb", r"'cpu_offload_gb': ([\d.]+)"),
                           ("enable_extensible_kv_cache",
                            r"'enable_extensible_kv_cache': (True|False)"),
                           ("block_size", r"'block_size': (\d+)"),
                           ("model", r"'model': '([^']+)'")), replace=True)


@pattern("vllm", r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
def _v_chunked(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # not a flag: vLLM's own default, logged. A later such line replaces an earlier one (not a
    # flag's or a directive's value): `vllm serve --model X` (0.11.2, log 262) prints a default
    # 2,048 before the banner, then the engine's resolved 8,192 after "Using max model len"
    logged = r.settings.get("batched_default")
    if "max_num_batched_tokens" not in r.settings or logged == r.settings["max_num_batched_tokens"]:
        r.settings["max_num_batched_tokens"] = m[1]
        r.settings["batched_default"] = m[1]


values("vllm", r"Graph capturing finished in \d+ secs?, took " + NUM + r" GiB", "graphs_after_gib")


# The CUDA-graph estimate and the utilization vLLM suggests for it (0.19.0 `gpu_worker.py:448-470`:
# round(util + estimate / total, 4), total = cudaMemGetInfo's, `MemorySnapshot`, mem_utils.py:104;
# the estimate printed "%.2f GiB", gpu_model_runner.py:5955-5957): together they bound the
# runtime total (kvplan.engines.vllm_total_bound). 0.19 prints "from U to S", 0.21 on "=U is
# equivalent to ... increase --gpu-memory-utilization to S".
# " total" is optional: write-ups quoting the line drop it (log 480's walkthrough). The format:
# 0.22.1 `v1/worker/gpu_model_runner.py:6365-6368` "Estimated CUDA graph memory: %.2f GiB total".
values("vllm", r"Estimated CUDA graph memory: " + NUM + r" GiB(?: total)?", "cg_estimate_gib")


# The graphs the old runner samples (0.22.1 `gpu_model_runner.py:6279-6286`: "Profiling CUDA graph
# memory: %s", each mode with descs as f"{mode.name}={len(descs)} (largest={descs[0].num_tokens})",
# joined by ", "): a check of kvplan's capture sizes (kvplan.calibrate.graph_checks).
@pattern("vllm", r"Profiling CUDA graph memory: ((?:[A-Z_]+=\d+ \(largest=\d+\)(?:, )?)+)")
def _v_graph_counts(r: Run, m: re.Match[str], n: int, t: str) -> None:
    for mode, count, largest in re.findall(r"([A-Z_]+)=(\d+) \(largest=(\d+)\)", m[1]):
        r.put(f"cg_{mode.lower()}_graphs", _f(count), n, t)
        r.put(f"cg_{mode.lower()}_largest", _f(largest), n, t)
values("vllm", r"increase --gpu-memory-utilization from " + NUM + r" to " + NUM + r" to maintain",
       "cg_util_from", "cg_util_to")
values("vllm", r"The current --gpu-memory-utilization=" + NUM + r" is equivalent to .*?"
       r"increase --gpu-memory-utilization to " + NUM + r"\.", "cg_util_from", "cg_util_to")


@pattern("vllm", r"CUDA graph memory profiling is enabled")
def _v_graph_estimate(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # vLLM >= 0.21 subtracting its graph estimate before sizing. An estimate printed without
    # this line ("CUDA graph pool memory: ... (estimated)") was not applied: logs 34, 35 size
    # the pool as requested - consumed - activation.
    r.settings.setdefault("graph_profiling", "1")


# The top-k/top-p sampler vLLM 0.10 profiles (kvplan.engines.vllm_sort_sampler): FlashInfer's
# fused kernel, or PyTorch's sort when FlashInfer is not installed or not enabled
# (v1/sample/ops/topk_topp_sampler.py, 0.10.0-0.10.2).
setting("vllm", r"Using FlashInfer for top-p & top-k sampling", "topk_topp_sampler", "flashinfer")
setting("vllm", r"FlashInfer is (?:not available|available, but it is not enabled)\. Falling back",
        "topk_topp_sampler", "native")
# 0.8.0-0.8.5 sort even where FlashInfer 0.2.3 or newer imports (topk_topp_sampler.py, 0.8.3
# :34-49: "Currently, FlashInfer top-p & top-k sampling sampler is disabled because
# FlashInfer>=v0.2.3 is not backward compatible. Falling back to the PyTorch-native ...").
setting("vllm", r"FlashInfer top-p & top-k sampling sampler is disabled because FlashInfer>=v0\.2\.3",
        "topk_topp_sampler", "native")

# The TP transport (kvplan.engines.vllm_nontorch): vLLM's custom all-reduce warns when the GPUs
# cannot reach each other's memory (device_communicators/custom_all_reduce.py, 0.10.1.1: "your
# platform lacks GPU P2P capability or P2P test failed"): NCCL then runs over host memory. A group
# across nodes ("spans across nodes") is host too unless NCCL logs GPUDirect RDMA over
# InfiniBand/RoCE (NCCL_DEBUG=INFO: "NET/IB ... GDRDMA", "GPU Direct RDMA Enabled").
setting("vllm", r"Custom allreduce is disabled because your platform lacks GPU P2P capability",
        "no_p2p", "1")
setting("vllm", r"Custom allreduce is disabled because this process group spans across nodes",
        "spans_nodes", "1")
setting("vllm", r"NCCL INFO .*(?:GDRDMA|GPU Direct RDMA Enabled|NET/IB ?: ?Using)", "gpudirect", "1")
