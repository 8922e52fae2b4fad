"""vLLM 0.34's own sizing lines (issue #13 task h42v034), read in the vllm==0.34.0 wheel.

The extensible KV cache (kvplan.engines.vllm_extensible) sizes the pool after warm-up, so the
"Available KV cache memory" line `determine_available_memory` still prints (gpu_worker.py:795-798)
and the "Current kv cache memory in use" of the "Free memory on device" line (:1153-1173) are the
reserve before warm-up, not the pool; the pool is the "Memory after warmup" line's blocks, which
replaces them (and any per-rank figures) once read. Format strings, as the 0.34.0 source has them
(`format_gib` is `round(b / 2**30, 2)`, utils/mem_utils.py:32):

- v1/worker/extensible_kv_cache.py:693-706 (every rank; the blocks are the minimum over the
  ranks, gpu_worker.py:1229-1237): "Memory after warmup: %s GiB free, %s GiB committed to the KV
  cache, %s GiB kept for transient activations (%s GiB allocated at peak, %s GiB of torch
  reservation growth); %d KV cache blocks (%s GiB) fit within the requested %s GiB. Torch may
  reserve up to %s GiB."
- :536-540: "Extended KV cache to %d blocks (%.2f GiB)." (the physical bytes committed, VMM
  granules included).
- :662-672 (an explicit gpu_memory_utilization in (0.7, 1.0) that withholds 1 GiB or more):
  "gpu_memory_utilization=%s caps this instance at %s GiB, keeping %s GiB of free device memory
  out of the KV cache."
- v1/worker/gpu_worker.py:696-708 (kv_cache_memory_bytes given): "Initial free memory %s GiB,
  reserved %s GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped
  memory profiling."
- :607-610: "Updated engine memory budget after disk fallback: %s GiB".
- :166-173 (ROCm): "Free memory grew by %s GiB during profiling (initial %s GiB, current %s GiB).
  Sizing the KV cache from the %s GiB torch reserved instead of the profiling difference."
- :1112-1119: "CUDA graph pool memory: %s GiB (actual), %s GiB (estimated), difference: %s GiB
  (%.1f%%)." (`round(b / 2**30, 2)`; printed only where an estimate was taken, the cache off).
- v1/worker/utils.py:773-780: "Weights are held outside this process: of the %s GiB utilization
  budget, %s GiB is externally held and %s GiB remains for the engine's own allocations."
- :763-771, :789-796 (refusals, the cache off): "Free memory on device %s (%s/%s GiB) on startup
  is less than desired GPU memory utilization (%s, %s GiB)." (the device name between "device"
  and the bracket, which the older line's pattern does not allow; the first also "... the
  engine's budget after excluding external process's weights ...").
- v1/core/kv_cache_planning.py:1441-1446 (the memory "%s GiB GPU", " + %s GiB host" with
  HiSparse) in :1458-1463 "Auto-fit max_model_len: using max_model_len=%d, which fits in the KV
  cache memory left after CUDA graph capture and warmup (%s).", :1466-1472 "Auto-fit
  max_model_len: full model context length %d fits in available KV cache memory (%s)%s", :1478-
  1485 "Auto-fit max_model_len: reduced from %d to %d to fit in available KV cache memory (%s)%s"
  (the tentative note "; the final length is set after CUDA graph capture and warmup", :1452-
  1456) and :1494-1499 / :1506-1514 "--max-model-len auto reduced max_model_len from %d to %d
  (%s)." with "%s GiB GPU left for the KV cache after CUDA graph capture and warmup" or "...
  available for the KV cache" (:1488-1492).

Unchanged in 0.34.0 and read by kvplan.calibrate.lines_vllm: "Model loading took %s GiB memory
and %.6f seconds" (gpu/model_runner.py:441-444), "Available KV cache memory: %s GiB"
(gpu_worker.py:795-798), "CUDA graph memory profiling is enabled ..." (:809-819), "Free memory
on device (...)" (:1153-1173), "Graph capturing finished in %.0f secs, took %.2f GiB"
(gpu/model_runner.py:1216-1219) and "%s KV cache size: %s tokens, Maximum concurrency for %s
tokens per request: %.2fx" (v1/core/kv_cache_utils.py:1168-1175, one line, "GPU" on CUDA;
"GPU + host" with HiSparse, whose tokens count the host pool: not read).
"""

from __future__ import annotations

import re

from kvplan.calibrate.lines import NUM, Run, _f, pattern, values

AFTER_WARMUP = "kv_after_warmup"  # a setting: the pool came from the post-warm-up lines

WARMUP = re.compile(
    r"Memory after warmup: " + NUM + r" GiB free, " + NUM + r" GiB committed to the KV cache, "
    + NUM + r" GiB kept for transient activations \(" + NUM + r" GiB allocated at peak, " + NUM
    + r" GiB of torch reservation growth\); (\d+) KV cache blocks \(" + NUM + r" GiB\) fit "
    r"within the requested " + NUM + r" GiB\. Torch may reserve up to " + NUM + r" GiB")


@pattern("vllm", WARMUP.pattern)
def _warmup(r: Run, m: re.Match[str], n: int, t: str) -> None:
    kv = _f(m[7])
    first = r.settings.get(AFTER_WARMUP) is None
    if first:  # the reserve before warm-up is not the pool: drop it and its per-rank figures
        r.ranks.clear()
        r.values.pop("kv_gib", None)
    r.settings[AFTER_WARMUP] = "1"
    r.settings["enable_extensible_kv_cache"] = "True"
    rank = re.search(r"(?:rank=|Worker_TP)(\d+)", t)
    if rank:
        r.ranks[int(rank[1])] = kv
    if "kv_gib" in r.values and r.values["kv_gib"] <= kv:  # one line per rank: the smallest
        return
    for i, key in enumerate(("warmup_free_gib", "warmup_committed_gib", "warmup_kept_gib",
                             "warmup_peak_gib", "warmup_growth_gib", "warmup_blocks", "kv_gib",
                             "requested_gib", "torch_limit_gib"), start=1):
        r.put(key, _f(m[i]), n, t)


@pattern("vllm", r"Extended KV cache to (\d+) blocks \(" + NUM + r" GiB\)\.")
def _extended(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if "extended_blocks" in r.values and r.values["extended_blocks"] <= _f(m[1]):
        return
    r.put("extended_blocks", _f(m[1]), n, t)
    r.put("extended_gib", _f(m[2]), n, t)
    if r.settings.get(AFTER_WARMUP) is None:  # no "Memory after warmup" line before it
        r.ranks.clear()
        r.settings[AFTER_WARMUP] = "1"
        r.settings["enable_extensible_kv_cache"] = "True"
        r.put("kv_gib", _f(m[2]), n, t)


values("vllm", r"gpu_memory_utilization=" + NUM + r" caps this instance at " + NUM
       + r" GiB, keeping " + NUM + r" GiB of free device memory out of the KV cache",
       "util", "requested_gib", "withheld_gib")
values("vllm", r"Initial free memory " + NUM + r" GiB, reserved " + NUM + r" GiB memory for KV "
       r"Cache as specified by kv_cache_memory_bytes config", "free_gib", "kv_gib")
values("vllm", r"Updated engine memory budget after disk fallback: " + NUM + r" GiB",
       "requested_gib")
values("vllm", r"Free memory grew by " + NUM + r" GiB during profiling \(initial " + NUM
       + r" GiB, current " + NUM + r" GiB\)\. Sizing the KV cache from the " + NUM
       + r" GiB torch reserved", "free_growth_gib", "free_gib", "free_after_gib",
       "torch_reserved_gib")
values("vllm", r"CUDA graph pool memory: " + NUM + r" GiB \(actual\), " + NUM
       + r" GiB \(estimated\)", "graph_pool_gib", "graph_pool_estimate_gib")
values("vllm", r"Weights are held outside this process: of the " + NUM + r" GiB utilization "
       r"budget, " + NUM + r" GiB is externally held and " + NUM + r" GiB remains for the "
       r"engine's own allocations", "budget_gib", "external_weights_gib", "requested_gib")


@pattern("vllm", r"Free memory on device \S+ \(" + NUM + "/" + NUM + r" GiB\) on startup is "
         r"less than (?:desired GPU memory utilization|the engine's budget after excluding "
         r"external process's weights) \(" + NUM + ", " + NUM + r" GiB\)")
def _free_refusal(r: Run, m: re.Match[str], n: int, t: str) -> None:
    for i, key in enumerate(("free_gib", "total_gib", "util", "requested_gib"), start=1):
        r.put(key, _f(m[i]), n, t)
    r.errors.append(t.strip())


AUTOFIT_MEMORY = NUM + r" GiB GPU(?: \+ " + NUM + r" GiB host)?"


@pattern("vllm", r"Auto-fit max_model_len: (?:using max_model_len=(\d+), which fits in the KV "
         r"cache memory left after CUDA graph capture and warmup|full model context length "
         r"(\d+) fits in available KV cache memory|reduced from \d+ to (\d+) to fit in "
         r"available KV cache memory) \(" + AUTOFIT_MEMORY + r"\)"
         r"|--max-model-len auto reduced max_model_len from \d+ to (\d+) \(" + AUTOFIT_MEMORY
         + r" (?:left for|available for) the KV cache")
def _autofit(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # The tentative lines (before warm-up) come first; the final one replaces them.
    length = next(g for g in (m[1], m[2], m[3], m[6]) if g)
    gib = m[4] if m[4] is not None else m[7]
    r.put("autofit_max_model_len", _f(length), n, t)
    r.put("autofit_kv_gib", _f(gib), n, t)
