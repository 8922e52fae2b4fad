"""What check reads for each engine beyond its option table, one function per engine (task
h44review: these were `if inv.engine == ...` branches in read_options and Workload.engine).

Each runs once read_options has mapped the command's options (and SGLang's defaults) into the
workload's fields, in the order given here: the steps of one engine may read what its earlier
steps set (TensorRT-LLM's --kv_cache_dtype is checked before its options file overrides it, and
its backend after). Options no other engine's table maps are read only here: vLLM's
--speculative-config and --enable-expert-parallel, TensorRT-LLM's --config file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvplan.check.argv import Parsed
    from kvplan.check.manifests.workload import Workload


def _vllm(w: Workload, parsed: Parsed, image: str) -> None:
    """-cc / --compilation-config and -O / --optimization-level, --speculative-config,
    --enable-expert-parallel, then the container's V0 switch (VLLM_USE_V1), the hybrid KV cache
    manager's own switches (--kv-transfer-config, --kv-events-config and
    VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE) and vLLM 0.10's
    sampler path from the image and VLLM_USE_FLASHINFER_SAMPLER."""
    from kvplan.check.manifests.compilation import read_compilation
    from kvplan.check.manifests.hybrid_off import read_hybrid_off
    from kvplan.check.manifests.optimization import dotted_o_read, read_optimization
    from kvplan.check.manifests.pool_flags import expert_parallel, speculative
    from kvplan.check.manifests.sampler import ENV, read_sampler
    from kvplan.check.manifests.v0_env import read_v0

    read_compilation(parsed, w.found, w.problems, w.notes, dotted_o_read(w.found))
    read_optimization(parsed, w.found, w.problems, w.refusals, w.notes)
    speculative(w.found, w.problems, w.refusals, parsed)
    expert_parallel(w.found, w.notes)
    read_v0(w.found, w.env, w.notes)
    read_hybrid_off(parsed, w.found, w.env, w.notes, w.refusals)
    env = w.container.get("env") or []
    at = next((i for i, e in enumerate(env) if isinstance(e, dict) and e.get("name") == ENV),
              None)
    line = w.doc.line(*w.c_at, "env", at) if at is not None and w.c_at else None
    read_sampler(image, w.env, line, w.found, w.notes, w.refusals)


def _sglang(w: Workload, parsed: Parsed, image: str) -> None:
    """--cuda-graph-bs / --cuda-graph-max-bs and their decode/prefill forms, --enable-ep-moe."""
    from kvplan.check.manifests.pool_flags import sglang_deepep_moe, sglang_ep_moe
    from kvplan.check.manifests.sglang_graphs import read_graph_options

    read_graph_options(parsed, w.found, w.notes, w.problems)
    sglang_ep_moe(w.found, w.notes)
    sglang_deepep_moe(w.found, w.notes)


def _trtllm(w: Workload, parsed: Parsed, image: str) -> None:
    """--kv_cache_dtype (its release and value), the --config / --extra_llm_api_options file,
    then whether the backend takes the flag's cache dtype."""
    from kvplan.check.manifests.pool_flags import trtllm_options
    from kvplan.check.manifests.trtllm_kv import trtllm_kv_backend, trtllm_kv_flag

    trtllm_kv_flag(w.found, w.notes, w.problems, w.refusals)
    trtllm_options(w.found, w.notes, w.problems, w.path, w.files)
    trtllm_kv_backend(w.found, w.problems)


READERS: dict[str, Callable[[Workload, Parsed, str], None]] = {
    "vllm": _vllm, "sglang": _sglang, "trtllm": _trtllm,
}
