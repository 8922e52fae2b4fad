"""Put kvplan's prediction beside every number a start-up log printed, with the error.

Two bases per run:
- breakdown: the engine's formula applied to the memory terms the log itself printed (total,
  utilization, weights, activation peak, non-torch, free memory). This checks the accounting;
  the target is 0.5% on KV memory. Printed numbers are rounded to 0.01 GiB, so the report also
  gives the error that rounding alone can cause.
- shapes: the engine profile from the model's shapes and the settings alone (only the GPU's
  total memory, or SGLang's start-up free memory, is taken from the log). Target: 5% on KV
  tokens for dense models.
A run whose model is not in the catalog still gets its breakdown checks; the rest say so.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from kvplan.calibrate.parse import LogFile, Run, parse_file
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, Measured, parse_engine, run_engine
from kvplan.engines import sglang as sglang_profile
from kvplan.engines import vllm as vllm_profile
from kvplan.engines.interface import parse_version
from kvplan.errors import InputError
from kvplan.specs import all_models, load_hardware, load_model
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import GIB, DType, parse_dtype

BREAKDOWN_TARGET = 0.5  # percent
SHAPES_TARGET = 5.0  # percent, dense models
HALF_CENT = 0.005  # half of the last printed digit of a "12.34 GiB" figure


@dataclass
class Check:
    basis: str  # breakdown | shapes
    quantity: str
    logged: float
    predicted: float
    unit: str
    rounding_pct: float | None = None  # error print rounding alone can cause
    target_pct: float | None = None
    note: str = ""

    @property
    def error_pct(self) -> float:
        if self.logged == 0:
            return 0.0 if self.predicted == 0 else math.inf
        return (self.predicted - self.logged) / abs(self.logged) * 100

    @property
    def ok(self) -> bool | None:
        if self.target_pct is None:
            return None
        allowed = self.target_pct
        if self.rounding_pct is not None:
            allowed = max(allowed, self.rounding_pct)
        return abs(self.error_pct) <= allowed


@dataclass
class RunReport:
    label: str
    engine: str | None
    version: str | None
    model: str | None
    dense: bool | None
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unparsed: list[tuple[int, str]] = field(default_factory=list)


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


def _normal(text: str) -> str:
    name = text.strip().strip("/").split("/")[-1].lower()
    name = name.removeprefix("meta-")
    changed = True
    while changed:
        changed = False
        for suffix in ("-instruct", "-chat", "-hf", "-fp8", "-dynamic", "-2507", "-it"):
            if name.endswith(suffix):
                name = name.removesuffix(suffix)
                changed = True
    return name


def resolve_model(run: Run, base: Path) -> tuple[ModelSpec | None, str]:
    """The spec a run refers to: a `spec=` directive, else the catalog entry with its hf_id."""
    ref = run.settings.get("spec")
    if ref:
        return load_model(_path_or_name(ref, base)), "spec directive"
    hint = run.model_hint
    if not hint or "/" not in hint:
        return None, "model not stated in the log"
    models, _ = all_models()
    want = _normal(hint)
    for m in models:
        if _normal(m.hf_id) == want or m.name == want:
            return m, f"catalog match for {hint}"
    return None, f"model not in catalog: {hint}"


def resolve_gpu(run: Run, base: Path) -> tuple[HardwareSpec | None, str]:
    total = _num(run, "total_gib")
    if total is not None and not 0 < total <= 2**20:  # up to 1 PiB, docs/limits.md
        raise InputError(f"the log gives the GPU's total memory as {total} GiB; a start-up log "
                         "of a real GPU shows a positive total; check the log")
    if total is not None:
        return HardwareSpec(
            name="log-gpu",
            vendor="unknown",
            label=f"GPU with {total} GiB (from the log)",
            memory_bytes=int(total * GIB),
            memory_source="total memory printed in the start-up log",
            memory_bandwidth_bytes_per_s=1,
            bf16_dense_flops=1,
            fp8_supported=True,
            source="start-up log (calibration only)",
        ), f"total {total} GiB from the log"
    ref = run.settings.get("gpu")
    if ref:
        return load_hardware(_path_or_name(ref, base)), f"gpu directive {ref}"
    return None, "GPU total not printed and not stated"


def _sglang_gpu_mib(run: Run) -> float | None:
    """nvidia-smi total SGLang sizes its defaults by: stated, else start-up free + 0.4 GiB."""
    smi = _num(run, "nvidia_smi_mib")
    if smi is None and "before_gib" in run.values:
        smi = int((run.values["before_gib"] + 0.4) * 1024)
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


def infer_vllm_version(run: Run) -> tuple[str, str]:
    """The version to model a vLLM run with, and how it was chosen."""
    ver = parse_version(run.version) if run.version else None
    if ver is not None and ver >= (0, 2):
        return str(run.version), "stated"
    texts = " ".join(text for _, text in run.lines.values()) + " ".join(run.errors)
    v1 = any(k in texts for k in ("GPU KV cache size", "Available KV cache memory",
                                  "Free memory on device", "EngineCore", "Model loading took"))
    if run.settings.get("graph_profiling") == "1":
        return vllm_profile.DEFAULT_VERSION, "CUDA-graph profiling line seen"
    if v1:
        return "0.11.0", "V1 inferred from the log format"
    return "0.6.4", "V0 inferred from the log format"


def _settings(run: Run, engine: Engine, version: str) -> EngineSettings:
    frac_key = {"vllm": ("util", "gpu_memory_utilization"),
                "sglang": ("mem_fraction_static",),
                "trtllm": ("free_gpu_memory_fraction",)}.get(engine.value, ())
    frac = _num(run, *frac_key) if frac_key else None
    ints = {k: _num(run, k) for k in ("max_num_batched_tokens", "max_num_seqs", "page_size",
                                      "max_tokens")}
    return EngineSettings(
        engine=engine,
        version=version,
        memory_fraction=Fraction(str(frac)) if frac is not None else None,
        max_num_batched_tokens=int(ints["max_num_batched_tokens"] or 0) or None,
        max_num_seqs=int(ints["max_num_seqs"] or 0) or None,
        enforce_eager=run.settings.get("enforce_eager", "False") == "True",
        page_size_tokens=int(ints["page_size"] or 0) or None,
        max_tokens=int(ints["max_tokens"] or 0) or None,
    )


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
    return SizeRequest(
        model=model, gpu=gpu, context_tokens=length, kv_dtype=kd, weight_dtype=wd,
        block_size_tokens=int(_num(run, "block_size") or 16),
        tp=int(_num(run, "tp") or 1), pp=int(_num(run, "pp") or 1),
    )


def _gib(x: float | None) -> int | None:
    return None if x is None else int(x * GIB)


def _breakdown_checks(run: Run, engine: Engine, version: str) -> list[Check]:
    """Checks that need no model: the engine's formula on the printed memory terms."""
    v = run.values
    out: list[Check] = []
    if engine is Engine.vllm:
        kv = v.get("kv_gib", v.get("kv_in_use_gib"))
        if kv is None:
            return out
        graphs = vllm_profile.flavour(version).graphs_subtracted
        if "peak_torch_gib" in v and "total_gib" in v:
            pred = v["total_gib"] * v["util"] - v["peak_torch_gib"] - v["non_torch_gib"]
            terms = ["total x util", "peak torch", "non-torch"]
            formula = "total x util - peak torch - non-torch"
        elif "activation_gib" in v and ("weights_gib" in v or "consumed_gib" in v):
            requested = v.get("requested_gib")
            if requested is None and "total_gib" in v:
                requested = v["total_gib"] * v["util"]
            if requested is None:
                return out
            used = v["consumed_gib"] if "consumed_gib" in v else (
                v["weights_gib"] + v.get("non_torch_gib", 0.0))
            pred = requested - used - v["activation_gib"]
            terms = ["requested", "weights + non-torch", "activation"]
            formula = "requested - weights - non-torch - activation"
            if graphs and "cuda_graph_gib" in v:
                pred -= v["cuda_graph_gib"]
                terms.append("graphs")
                formula += " - CUDA graphs"
        else:
            return out
        out.append(Check("breakdown", "KV memory", kv, pred, "GiB",
                         _rounding(len(terms) + 1, kv), BREAKDOWN_TARGET, formula))
    elif engine is Engine.sglang:
        kv, before, after = v.get("kv_gib"), v.get("before_gib"), v.get("after_gib")
        if kv is None or before is None or after is None:
            return out
        stated = _num(run, "mem_fraction_static")
        smi = _sglang_gpu_mib(run)
        frac = stated if stated is not None else float(sglang_profile.default_fraction(
            int(_num(run, "tp") or 1), version, int(smi) if smi else None))
        pred = after - before * (1 - frac)
        note = "after - before x (1 - mem_fraction_static" + (
            f" {frac:g} stated)" if stated is not None else f" {frac:g} default)")
        out.append(Check("breakdown", "KV memory", kv, pred, "GiB",
                         (HALF_CENT * 3) / kv * 100, BREAKDOWN_TARGET, note))
    elif engine is Engine.trtllm:
        frac = _num(run, "free_gpu_memory_fraction") or 0.9
        if "peak_gib" in v:
            avail = v["available_kv_gib"]
            pred = (v["total_gib"] - v["peak_gib"] + v["tmp_kv_gib"]) * frac
            out.append(Check("breakdown", "KV memory", avail, pred, "GiB",
                             _rounding(4, avail), BREAKDOWN_TARGET,
                             "(total - peak + profiling cache) x fraction"))
            per_token = int(v["kv_bytes_per_token"])
            tpb = int(_num(run, "page_size") or 32)
            est = int(pred * GIB) // per_token
            cap = _num(run, "max_tokens")
            tokens = math.ceil(min(est, cap or est) / tpb) * tpb
            if "tokens" in v:
                out.append(Check("breakdown", "KV tokens", v["tokens"], tokens, "tokens",
                                 _rounding(4, avail), BREAKDOWN_TARGET,
                                 f"ceil(KV / {per_token} B per token / {tpb}) x {tpb}"))
        elif "available_gib" in v and "kv_gib" in v:
            pred = v["available_gib"] * frac
            out.append(Check("breakdown", "KV memory", v["kv_gib"], pred, "GiB",
                             _rounding(2, v["kv_gib"]), BREAKDOWN_TARGET,
                             f"available x free_gpu_memory_fraction {frac:g}"))
    return out


def _rounding(terms: int, value: float) -> float:
    return terms * HALF_CENT / abs(value) * 100 if value else 0.0


def _measured(run: Run, engine: Engine) -> Measured:
    v = run.values
    if engine is Engine.vllm:
        act = v.get("activation_gib")
        weights = v.get("consumed_gib", v.get("weights_gib"))
        nt = 0.0 if "consumed_gib" in v else v.get("non_torch_gib")
        if "peak_torch_gib" in v and "weights_gib" in v:
            act = v["peak_torch_gib"] - v["weights_gib"]
        return Measured(
            weights_bytes=_gib(weights), activation_bytes=_gib(act), non_torch_bytes=_gib(nt),
            cuda_graph_bytes=_gib(v.get("cuda_graph_gib")),
        )
    if engine is Engine.sglang:
        return Measured(free_before_load_bytes=_gib(v.get("before_gib")),
                        free_after_load_bytes=_gib(v.get("after_gib")),
                        weights_bytes=_gib(v.get("weights_gib")))
    if "peak_gib" in v:
        return Measured(free_after_load_bytes=_gib(v["total_gib"] - v["peak_gib"]
                                                   + v["tmp_kv_gib"]))
    return Measured(free_after_load_bytes=_gib(v.get("available_gib")))


def calibrate_run(run: Run, base: Path) -> RunReport:
    """Every comparison one run allows."""
    try:
        engine = parse_engine(run.engine or "")
    except InputError:
        rep = RunReport(run.label, run.engine, run.version, None, None)
        rep.notes.append("engine not recognised; nothing compared")
        rep.unparsed = run.unparsed
        return rep
    if engine is Engine.vllm:
        version, how = infer_vllm_version(run)
    else:
        version = run.version or {"sglang": sglang_profile.DEFAULT_VERSION,
                                   "trtllm": "1.0"}.get(engine.value, "")
        how = "stated" if run.version else "default"
    rep = RunReport(run.label, engine.value, f"{version} ({how})", None, None)
    rep.unparsed = run.unparsed
    rep.checks += _breakdown_checks(run, engine, version)
    model, model_note = resolve_model(run, base)
    rep.model = model.name if model else None
    rep.dense = (model.moe is None) if model else None
    if model is None:
        rep.notes.append(model_note)
        if not rep.checks:
            rep.notes.append("no breakdown printed: nothing to compare without the model")
        return rep
    gpu, gpu_note = resolve_gpu(run, base)
    settings = _settings(run, engine, version)
    v = run.values
    # Tokens from the logged KV memory (or breakdown), through the engine profile.
    measured_keys = {"vllm": ("kv_gib", "kv_in_use_gib", "activation_gib", "peak_torch_gib"),
                     "sglang": ("before_gib", "after_gib"),
                     "trtllm": ("available_gib", "peak_gib")}[engine.value] if (
        engine.value in ("vllm", "sglang", "trtllm")) else ()
    if any(k in v for k in measured_keys):
        g = gpu or _stand_in_gpu(run)
        req = _request(run, model, g)
        measured = _measured(run, engine)
        if engine is Engine.vllm and ("kv_gib" in v or "kv_in_use_gib" in v):
            kv = v.get("kv_gib", v.get("kv_in_use_gib"))
            stages = None
            if run.ranks and req.pp > 1:
                per_stage: dict[int, float] = {}
                for rank, gib in run.ranks.items():
                    s = rank // req.tp
                    per_stage[s] = min(per_stage.get(s, gib), gib)
                stages = tuple(int(per_stage[s] * GIB) for s in sorted(per_stage))
            measured = Measured(kv_cache_bytes=_gib(kv), stage_kv_bytes=stages)
        try:
            res = run_engine(req, _with(settings, measured))
            _token_checks(rep, run, res, "breakdown", BREAKDOWN_TARGET, v.get("kv_gib"))
        except InputError as err:
            rep.notes.append(f"breakdown profile failed: {err}")
    if gpu is None and not (engine is Engine.sglang and "before_gib" in v):
        rep.notes.append(f"shapes-only skipped: {gpu_note}")
        return rep
    if gpu is None:
        gpu_note = "SGLang's start-up free memory from the log"
    req = _request(run, model, gpu or _stand_in_gpu(run))
    shapes = Measured(free_before_load_bytes=_gib(v.get("before_gib"))) if (
        engine is Engine.sglang and gpu is None) else Measured()
    try:
        res = run_engine(req, _with(settings, shapes))
    except InputError as err:
        rep.notes.append(f"shapes profile failed: {err}")
        return rep
    target = SHAPES_TARGET if rep.dense else None
    _token_checks(rep, run, res, "shapes", target, v.get("kv_gib"))
    rep.notes.append(f"shapes: {gpu_note}; activation {res.activation_bytes / GIB:.2f} GiB "
                     f"(range {res.activation_bytes_low / GIB:.2f}-"
                     f"{res.activation_bytes_high / GIB:.2f}); tokens range "
                     f"{res.kv_cache_tokens_low:,}-{res.kv_cache_tokens_high:,}")
    return rep


def _with(settings: EngineSettings, measured: Measured) -> EngineSettings:
    from dataclasses import replace

    return replace(settings, measured=measured)


def _token_checks(rep: RunReport, run: Run, res: object, basis: str, target: float | None,
                  kv_logged: float | None) -> None:
    from kvplan.engines import EngineResult

    assert isinstance(res, EngineResult)
    v = run.values
    if "tokens" in v and not ("blocks" in v and res.engine is Engine.vllm and "V0" in
                              res.engine_version):
        logged = v["tokens"]
        pred = res.kv_cache_tokens
        rnd = HALF_CENT / kv_logged * 100 if kv_logged else None
        rep.checks.append(Check(basis, "KV tokens", logged, pred, "tokens", rnd, target))
    if "blocks" in v:
        rep.checks.append(Check(basis, "GPU blocks", v["blocks"], res.blocks, "blocks",
                                HALF_CENT / kv_logged * 100 if kv_logged else None, target))
    if basis == "shapes" and kv_logged is not None and res.engine is Engine.vllm:
        rep.checks.append(Check(basis, "KV memory", kv_logged, res.kv_cache_bytes / GIB, "GiB",
                                None, target))
    if "concurrency" in v:
        rep.checks.append(Check(basis, "max concurrency", v["concurrency"],
                                round(float(res.max_concurrency), 2), "x", None, None))
    if "needed_gib" in v and res.engine is Engine.vllm:
        need = next((s.value for s in res.steps if s.label == "blocks per request"), 0)
        per = next((s.value for s in res.steps if s.label == "bytes per block"), 0)
        rep.checks.append(Check(basis, "KV for one request", v["needed_gib"],
                                float(need * per) / GIB, "GiB", _rounding(1, v["needed_gib"]),
                                BREAKDOWN_TARGET))
    refused = bool(run.errors)
    rep.checks.append(Check(basis, "starts", float(not refused), float(res.starts), "bool",
                            None, 0.0, "" if res.starts != refused else
                            (res.reason or "")[:120]))


def calibrate_files(paths: list[Path]) -> list[RunReport]:
    reports = []
    for path in paths:
        log: LogFile = parse_file(path)
        for run in log.runs:
            if not run.values and not run.errors:
                rep = RunReport(run.label, run.engine, run.version, None, None)
                rep.notes.append("no start-up numbers found in this run")
                rep.unparsed = run.unparsed
                reports.append(rep)
                continue
            reports.append(calibrate_run(run, path.parent))
    return reports


@dataclass(frozen=True)
class Summary:
    breakdown_errors: list[float]
    breakdown_rounding: list[float]
    shapes_dense_errors: list[float]
    shapes_other_errors: list[float]

    @staticmethod
    def median(xs: list[float]) -> float | None:
        return statistics.median(xs) if xs else None


def summarize(reports: list[RunReport]) -> Summary:
    """Absolute errors: KV memory from the breakdown; KV tokens from shapes (dense / other)."""
    bd: list[float] = []
    rounding: list[float] = []
    dense: list[float] = []
    other: list[float] = []
    for rep in reports:
        for c in rep.checks:
            if c.basis == "breakdown" and c.quantity == "KV memory":
                bd.append(abs(c.error_pct))
                rounding.append(c.rounding_pct or 0.0)
        shape = headline(rep, "shapes")
        if shape is not None:
            (dense if rep.dense else other).append(abs(shape.error_pct))
    return Summary(bd, rounding, dense, other)


def headline(rep: RunReport, basis: str) -> Check | None:
    """The one capacity number of a run: KV tokens, else GPU blocks, else KV memory."""
    for quantity in ("KV tokens", "GPU blocks", "KV memory"):
        for c in rep.checks:
            if c.basis == basis and c.quantity == quantity:
                return c
    return None


_ = re  # re-exported for callers that filter labels
