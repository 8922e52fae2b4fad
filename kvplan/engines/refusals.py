"""Settings an engine refuses at start-up for a given model (what `kvplan check` FAILs on before
any arithmetic, naming the setting): pure, from the model spec and the engine block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.errors import InputError

if TYPE_CHECKING:
    from kvplan.deploy.schema import Deployment
    from kvplan.specs.schema import HardwareSpec, ModelSpec


def aiter_refusal(engine: str, backend: str | None, gpu: HardwareSpec) -> str | None:
    """Why SGLang's aiter attention backend cannot run on `gpu` (None: it can, or it is not set).

    aiter is AMD's ROCm kernel library: sglang 0.5.21's layers/attention/aiter_backend.py imports
    its kernels under `try: from aiter import ...` and on ImportError only prints "aiter is AMD
    specific kernel library. Please make sure aiter is installed on your AMD device."; the
    backend then calls those kernels in its first forward (CUDA-graph capture or the warm-up
    request at start-up), so on a GPU that is not AMD's the server fails to start. Nothing in
    server_args.py refuses it earlier (arg_groups/attention_hook.py only derates the fraction).
    """
    if engine != "sglang" or backend != "aiter" or gpu.vendor.lower() == "amd":
        return None
    return (f"SGLang's aiter attention backend needs a ROCm (AMD) GPU; {gpu.name} is "
            f"{gpu.vendor.upper()}'s: aiter's kernels are not installed there (sglang "
            "layers/attention/aiter_backend.py: \"aiter is AMD specific kernel library\") and "
            "SGLang fails at its first forward; give another --attention-backend (triton, "
            "flashinfer, fa3) or drop it")


def transport_refusal(engine: str, transport: str | None) -> str | None:
    """Why an engine other than vLLM refuses a stated TP transport (None: vLLM, or unset).

    Only kvplan's vLLM profile books its TP term by transport (kvplan.engines.vllm_nontorch);
    SGLang's profile books its own start-up TP term by the GPU label's form factor
    (kvplan.engines.sglang STARTUP_TP / STARTUP_TP_NVLINK), TensorRT-LLM's sizes the pool from
    free memory after its own start-up, and transformers runs one process without NCCL."""
    from kvplan.engines.interface import TP_TRANSPORTS

    if transport is not None and transport not in TP_TRANSPORTS:
        return f"tp_transport must be one of {', '.join(TP_TRANSPORTS)}, got {transport!r}"
    if transport is None or engine == "vllm":
        return None
    return (f"tp_transport {transport} applies only to vllm, not {engine}: "
            f"{transport_unread(engine)}; drop it or choose --engine vllm")


def transport_unread(engine: str) -> str:
    """Why `engine`'s profile does not read the TP transport (one clause)."""
    return {"sglang": "kvplan's SGLang profile picks its TP start-up term by the GPU label's "
                      "NVLink form factor, not by transport",
            "trtllm": "its pool is a share of the free memory after start-up, which already "
                      "holds the transport's buffers",
            "transformers": "it runs one process without NCCL",
            }.get(engine, "it books no tensor-parallel buffers")


def attention_dp_refusal(engine: str, tp: int, dp: int) -> str | None:
    """Why a stated attention_dp cannot be planned: SGLang's data-parallel attention alone is
    modelled (kvplan.engines.sglang_dp), and it must divide the tensor-parallel size (SGLang
    asserts `tp_size % dp_size == 0`, server_args.py:1381 in 0.5.5)."""
    if engine != "sglang":
        return (f"attention_dp {dp} is SGLang's data-parallel attention (--enable-dp-attention "
                f"--dp-size); kvplan models it for sglang only, not {engine}; drop it or choose "
                "--engine sglang")
    if tp % dp:
        return (f"attention_dp {dp} does not divide tensor parallelism {tp}: SGLang asserts "
                "tp_size % dp_size == 0 (server_args.py:1381 in 0.5.5); choose a divisor of tp")
    return None


def engine_refusals(model: ModelSpec, dep: Deployment,
                    engine_words: bool = False) -> list[tuple[str, str]]:
    """(field, why) for each flag the deployment's engine would refuse for `model` (empty: it
    would start); `engine_words`: the cache dtype is spelled as the engine's own option (a
    manifest's --kv-cache-dtype), not kvplan's --kv-dtype (kvplan.engines.kv_spelling)."""
    from kvplan.capacity.parallel import tp_problem
    from kvplan.engines.kv_spelling import block_refusal
    from kvplan.engines.vllm_flag_versions import missing_flags

    e, tp, ep = dep.engine, dep.parallel.tensor, dep.parallel.expert
    out: list[tuple[str, str]] = missing_flags(e)
    if e.name == "vllm":
        from kvplan.engines.vllm_model_releases import release_refusal

        if (why := release_refusal(model.model_type, e.version)) is not None:
            out.append(("engine.version", why))
    if e.name == "vllm" and e.limit_mm_per_prompt is not None and not model.params_encoder:
        out.append(("engine.limit_mm_per_prompt", "vLLM refuses --limit-mm-per-prompt for a "
                    f"text-only model: {model.name} has no encoder (\"limit_mm_per_prompt is "
                    "only supported for multimodal models\"); drop it"))
    if ep is not None and ep > 1:
        if model.moe is None:
            out.append(("parallel.expert",
                        f"expert parallelism {ep}: {model.name} has no experts; drop it"))
        elif model.moe.num_experts % ep:
            out.append(("parallel.expert", f"expert parallelism {ep} does not divide "
                        f"{model.name}'s {model.moe.num_experts} experts"))
    if (spelled := block_refusal(e, engine_words)) is not None:  # the cache dtype as written
        out.append(spelled)
    if e.name == "sglang" and e.moe_dense_tp_size is not None:
        from kvplan.engines.interface import EngineSettings
        from kvplan.engines.sglang_dp import refusal

        why = refusal(tp, EngineSettings(version=e.version, moe_dense_tp_size=e.moe_dense_tp_size))
        if why is not None:
            out.append(("engine.moe_dense_tp_size", why))
    if e.name == "vllm" and e.disable_hybrid_kv_cache_manager is False:
        from kvplan.engines.vllm_hybrid_off import explicit_refusal
        from kvplan.engines.vllm_series import flavour

        fl = flavour(e.version)
        why = explicit_refusal(model, fl.version, fl.v1, False, e.chunked_local_hybrid)
        if why is not None:
            out.append(("engine.disable_hybrid_kv_cache_manager", why))
    if e.name == "vllm" and e.disable_hybrid_kv_cache_manager:
        from kvplan.engines.vllm_groups import unify_refusal

        why = unify_refusal(model)
        if why is not None:
            out.append(("engine.disable_hybrid_kv_cache_manager", why))
    if e.name == "vllm" and e.speculative_model is not None:
        from kvplan.deploy.engine_block import draft_spec

        try:
            draft = draft_spec(e.speculative_model)
        except InputError:
            return out  # an ERROR from kvplan.deploy: the draft is not in the catalog
        problem = tp_problem(draft, tp)
        if problem is not None:
            out.append(("engine.speculative_model", f"the draft model {draft.name}: {problem}; "
                        "vLLM shards the draft with the target's tensor parallelism"))
    return out
