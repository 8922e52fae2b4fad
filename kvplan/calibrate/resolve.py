"""From a parsed run to what the engine profile needs: the model, the GPU, the settings.

Settings a log does not print come from `# kvplan: key=value` directives (spec, gpu, tp,
version, ...); a model is resolved from a `spec=` directive (catalog name or a YAML path
relative to the log) or from the log's model id matched against the catalog's hf_id.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from kvplan.calibrate.parse import Run
from kvplan.capacity.plan import SizeRequest
from kvplan.deploy.engine_keys import reads
from kvplan.engine_traits import traits
from kvplan.engines import Engine, EngineSettings
from kvplan.engines import vllm as vllm_profile
from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_series import BOTH_ENGINES, forces_v0
from kvplan.engines.vllm_total_bound import within_bounds
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import GIB, DType, parse_dtype


def _num(run: Run, *keys: str) -> float | None:
    for key in keys:
        if key in run.values:
            return run.values[key]
        if key in run.settings:
            try:
                return float(run.settings[key])
            except ValueError:
                return None
    return None


def _path_or_name(ref: str, base: Path) -> str:
    if ref.endswith((".yaml", ".yml")):
        candidate = (base / ref) if not Path(ref).is_absolute() else Path(ref)
        return str(candidate)
    return ref


def resolve_model(run: Run, base: Path) -> tuple[ModelSpec | None, str]:
    """The spec a run refers to: a `spec=` directive, else the catalog entry with its hf_id."""
    ref = run.settings.get("spec")
    if ref:
        try:
            return load_model(_path_or_name(ref, base)), "spec directive"
        except InputError as err:
            raise InputError(f"directive `# kvplan: spec={ref}`: {err}") from None
    hint = run.model_hint
    if not hint or "/" not in hint:
        return None, ("model not stated in the log: add a `# model: <hub id>` line (or "
                      "`# kvplan: spec=<catalog name or spec file>`) above its first line")
    from kvplan.specs.resolve import catalog_match

    match = catalog_match(hint)  # the one resolver's rules: name, hf_id or a sourced alias
    if match is None:
        return None, f"model not in catalog: {hint}"
    return load_model(match[0]), f"catalog {match[1]} for {hint}"


def resolve_gpu(run: Run, base: Path) -> tuple[HardwareSpec | None, str]:
    total = _num(run, "total_gib")
    if total is not None and not 0 < total <= 2**20:  # up to 1 PiB, docs/limits.md
        raise InputError(f"the log gives the GPU's total memory as {total} GiB; a start-up log "
                         "of a real GPU shows a positive total; check the log")
    ref = run.settings.get("gpu")
    if total is not None:
        # the log's total; a gpu directive beside it still names the form factor (NVLink or not)
        named = load_hardware(_path_or_name(ref, base)) if ref else None
        return HardwareSpec(
            name="log-gpu",
            vendor="unknown",
            label=f"GPU with {total} GiB (from the log)" + (f", {named.label}" if named else ""),
            device_names=list(named.device_names) if named else [],
            memory_bytes=int(total * GIB),
            memory_source="total memory printed in the start-up log",
            memory_bandwidth_bytes_per_s=1,
            bf16_dense_flops=1,
            fp8_supported=True,
            source="start-up log (calibration only)",
        ), f"total {total} GiB from the log"
    if ref:
        gpu, bound = within_bounds(load_hardware(_path_or_name(ref, base)), run.values)
        return gpu, f"gpu directive {ref}" + (f"; {bound}" if bound else "")
    return None, "GPU total not printed and not stated"


def _sglang_gpu_mib(run: Run) -> float | None:
    """nvidia-smi total SGLang sizes its defaults by: stated, else start-up free + 0.4 GiB."""
    smi = _num(run, "nvidia_smi_mib")
    if smi is None and "before_gib" in run.values:
        before = run.values["before_gib"]
        if before <= 0:  # reached the stand-in GPU's schema as exit 3 before task h51sweep
            lineno = run.lines["before_gib"][0]
            raise InputError(f"line {lineno}: the GPU's free memory at start-up is {before:g} GB; "
                             "a start-up log of a real GPU shows a positive figure; check the "
                             "line")
        smi = int((before + 0.4) * 1024)
    return smi


def _stand_in_gpu(run: Run | None = None) -> HardwareSpec:
    """A GPU for profiles that take every memory figure from the log."""
    smi = _sglang_gpu_mib(run) if run is not None else None
    return HardwareSpec(
        name="log-gpu", vendor="unknown", label="memory from the log",
        memory_bytes=int(smi) * 2**20 if smi else 1 << 50,
        memory_source="not used: free memory measured in the log",
        nvidia_smi_mib=int(smi) if smi else None,
        memory_bandwidth_bytes_per_s=1, bf16_dense_flops=1, fp8_supported=True,
        source="start-up log (calibration only)")


# The first release kvplan models as V1 (vllm_series.V1_FROM; both engines shipped in
# vllm_series.BOTH_ENGINES).
V1_FIRST_MODELLED = "0.8.0"


def infer_vllm_version(run: Run) -> tuple[str, str]:
    """The version to model a vLLM run with, and how it was chosen.

    The engine the log's own lines name (lines_vllm V1_MARK / V0_MARK: V1's banner and v1/
    modules, V0's banner and worker.py profiler prose) decides V0 or V1: a stated release in
    which both engines shipped gets "-v0" when the lines are V0's, and a log that states no
    release is V1 when they are V1's, even where it prints "# GPU blocks" (the 0.7 series' V1
    printed it from v1/core/kv_cache_utils.py, the 0.7.2 wheel; 0.8.0 prints "GPU KV cache
    size" instead)."""
    mark = run.settings.get("log_engine")
    why = run.settings.get("log_engine_line", "")
    ver = parse_version(run.version) if run.version else None
    if ver is not None and ver >= (0, 2):
        stated = str(run.version)
        forced_v0 = forces_v0(stated)
        if mark == "V0" and not forced_v0 and BOTH_ENGINES[0] <= ver < BOTH_ENGINES[1]:
            return stated + "-v0", f"stated; V0 engine by the log's {why}"
        if mark == "V1" and not forced_v0 and ver < BOTH_ENGINES[0]:
            return V1_FIRST_MODELLED, (f"stated {stated}; V1 engine by the log's {why}: modelled "
                                       "as kvplan's first V1 series")
        return stated, "stated"
    texts = " ".join(text for _, text in run.lines.values()) + " ".join(run.errors)
    v1 = any(k in texts for k in ("GPU KV cache size", "Available KV cache memory",
                                  "Free memory on device", "EngineCore", "Model loading took"))
    if run.settings.get("kv_after_warmup"):
        # "Memory after warmup" / "Extended KV cache": the extensible cache arrived in 0.34
        return "0.34.0", "extensible KV cache's post-warm-up lines in the log (0.34 or newer)"
    if run.settings.get("graph_profiling") in ("1", "true", "True"):
        # the CUDA-graph estimate arrived in 0.21; the series' first release is the least assumed
        return "0.21.0", "CUDA-graph memory estimate in the log (0.21 or newer)"
    if v1:
        return "0.11.0", "V1 inferred from the log format"
    if mark == "V1":
        fmt = ("; its \"# GPU blocks\" line is the 0.7 series' V1 format" if "blocks" in run.values
               else "")
        return V1_FIRST_MODELLED, (f"V1 engine by the log's {why}{fmt}: modelled as kvplan's "
                                   "first V1 series")
    return "0.6.4", "V0 inferred from the log format"


# Directive / log keys -> EngineSettings fields (integers), by engine.
_INT_FLAGS = {
    "vllm": ("max_num_batched_tokens", "max_num_seqs", "kv_cache_memory_bytes", "draft_params",
             "limit_mm_per_prompt"),
    "sglang": ("page_size", "max_tokens", "chunked_prefill_size", "cuda_graph_max_bs",
               "max_running_requests", "speculative_num_steps", "speculative_eagle_topk",
               "speculative_num_draft_tokens"),
    "trtllm": ("page_size", "tokens_per_block", "max_tokens", "max_tokens_in_paged_kv_cache",
               "max_num_batched_tokens", "max_num_tokens", "max_batch_size", "trt_activation_bytes"),
}
_FIELD = {"page_size": "page_size_tokens", "tokens_per_block": "page_size_tokens",
          "max_tokens_in_paged_kv_cache": "max_tokens", "max_num_tokens": "max_num_batched_tokens"}


def _sglang_draft(run: Run) -> ModelSpec | None:
    """An SGLang run's speculative draft (server_args' speculative_draft_model_path), through the
    catalog as `size` resolves it; unknown, the run's error names it (never dropped)."""
    ref = run.settings.get("speculative_model")
    if ref is None or run.settings.get("speculative_algorithm") is None:
        return None
    from kvplan.deploy.engine_block import draft_spec

    try:
        return draft_spec(ref)
    except InputError as err:
        raise InputError(f"speculative draft {ref}: {err}") from None


def _settings(run: Run, engine: Engine, version: str) -> EngineSettings:
    frac_key = {"vllm": ("util", "gpu_memory_utilization"),
                "sglang": ("mem_fraction_static",),
                "trtllm": ("free_gpu_memory_fraction",)}.get(engine.value, ())
    frac = _num(run, *frac_key) if frac_key else None
    fields: dict[str, int] = {}
    for key in _INT_FLAGS.get(engine.value, ()):
        value = _num(run, key)
        if value is not None and (value > 0 or key == "limit_mm_per_prompt"):
            fields[_FIELD.get(key, key)] = int(value)
    name = engine.value
    if run.settings.get("speculative_algorithm") is None:  # 0.4.2-0.4.3 print 5, 4, 8 regardless
        for key in ("speculative_num_steps", "speculative_eagle_topk",
                    "speculative_num_draft_tokens"):
            fields.pop(key, None)
    if traits(name).default_seqs_by_release and "max_num_seqs" not in fields:
        seqs = _default_seqs_for_logged_batch(run, version)
        if seqs is not None:
            fields["max_num_seqs"] = seqs
    offload = _num(run, "cpu_offload_gb") if reads(name, "cpu_offload_gb") else None
    if offload:
        fields["cpu_offload_bytes"] = int(offload * GIB)
    return EngineSettings(
        engine=engine,
        version=version,
        memory_fraction=Fraction(str(frac)) if frac is not None else None,
        enforce_eager=run.settings.get("enforce_eager", "False") == "True",
        attention_backend=run.settings.get("attention_backend")
        if reads(name, "attention_backend") else None,
        mm_feature_transport=run.settings.get("mm_feature_transport")
        if reads(name, "mm_feature_transport") else None,
        trtllm_backend=run.settings.get("trtllm_backend") if reads(name, "trtllm_backend")
        else None,
        tp_transport=vllm_transport(run)[0] if reads(name, "tp_transport") else None,
        disable_custom_all_reduce=True if reads(name, "disable_custom_all_reduce") and
        run.settings.get("disable_custom_all_reduce") == "True" else None,
        topk_topp_sampler=run.settings.get("topk_topp_sampler")
        if reads(name, "topk_topp_sampler") else None,
        entrypoint=run.settings.get("entrypoint") if reads(name, "entrypoint") else None,
        enable_extensible_kv_cache=_extensible(run) if reads(name, "enable_extensible_kv_cache")
        else None,
        speculative_algorithm=run.settings.get("speculative_algorithm")
        if reads(name, "speculative_algorithm") else None,
        draft_model=_sglang_draft(run) if reads(name, "speculative_algorithm") else None,
        **fields,  # type: ignore[arg-type]
    )


def _extensible(run: Run) -> bool | None:
    """vLLM 0.34's engine.enable_extensible_kv_cache as the log states it (its non-default args,
    a directive, or the post-warm-up lines, which only the extensible cache prints); None where
    unstated (the release's default applies)."""
    stated = run.settings.get("enable_extensible_kv_cache")
    return None if stated is None else stated.lower() in ("true", "1")


def vllm_transport(run: Run) -> tuple[str | None, str]:
    """The TP transport a vLLM log shows, and why (None: not shown; the GPU label decides).

    The no-P2P warning is host (NCCL's SHM transport); a group across nodes (the log's "spans
    across nodes" warning or a nodes= directive above 1) is host unless NCCL logged GPUDirect
    RDMA, whose network buffers sit on the GPU (transport/net.cc), a case kvplan leaves to the
    GPU label."""
    if int(_num(run, "tp") or 1) == 1:
        return None, ""
    if run.settings.get("no_p2p"):
        return "host", "the log prints vLLM's no-P2P warning"
    if run.settings.get("spans_nodes") or int(_num(run, "nodes") or 1) > 1:
        if run.settings.get("gpudirect"):
            return None, "across nodes with GPUDirect RDMA (by the GPU label)"
        return "host", "across nodes, no GPUDirect RDMA in the log"
    return None, ""


def _default_seqs_for_logged_batch(run: Run, version: str) -> int | None:
    """max_num_seqs from the same defaults branch as the logged batch size.

    vLLM >= 0.9 (V1) picks both defaults in one branch of EngineArgs (arg_utils.py: GPUs with
    >= 70 GiB that are not A100: 8,192 tokens and 1,024 sequences; else 2,048 and 256; the
    offline LLM class, a directive entrypoint=offline: 16,384 and 1,024, else 8,192 and 256;
    kvplan.engines.vllm_entrypoint). A log whose "Chunked prefill is enabled with
    max_num_batched_tokens=N" is that default shows which branch ran, even where kvplan's
    reading of the GPU would pick the other (GB10).
    """
    logged = run.settings.get("batched_default")
    fl = vllm_profile.flavour(version)
    if logged is None or not fl.v1 or (parse_version(version) or ()) < (0, 9):
        return None
    if run.settings.get("entrypoint") == "offline":
        return {"8192": 256, "16384": 1024}.get(logged)
    return {"2048": 256, "8192": 1024}.get(logged)


def _request(run: Run, model: ModelSpec, gpu: HardwareSpec) -> SizeRequest:
    length = int(_num(run, "max_model_len") or model.max_context_tokens)
    weight = run.settings.get("weight_dtype")
    kv = run.settings.get("kv_dtype", "auto")
    wd = parse_dtype(weight) if weight else None
    kd = (wd if wd and wd.bits >= 16 else model.weight_dtype) if kv == "auto" else parse_dtype(kv)
    if kd.bits < 16 and kv == "auto":
        kd = DType.bf16
    if length > model.max_context_tokens:
        model = model.model_copy(update={"max_context_tokens": length})
    nodes = _num(run, "nodes")
    return SizeRequest(
        model=model, gpu=gpu, context_tokens=length, kv_dtype=kd, weight_dtype=wd,
        block_size_tokens=int(_num(run, "block_size") or 16),
        tp=int(_num(run, "tp") or 1), pp=int(_num(run, "pp") or 1),
        nodes=int(nodes) if nodes else None,
    )


def gib_bytes(x: float | None) -> int | None:
    """A logged GiB figure in whole bytes (None stays None)."""
    return None if x is None else int(x * GIB)
