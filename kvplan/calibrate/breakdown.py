"""The breakdown basis of `kvplan calibrate`: each engine's formula on the memory terms a log
printed (total, utilization, weights, activation peak, non-torch, free memory), no model needed.
Target 0.5% on KV memory; printed numbers are rounded to 0.01 GiB, so each check also carries the
error that rounding alone can cause. SGLang's fraction is taken as its profile takes it
(kvplan.engines.sglang.fraction_choice) where the model is known.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from kvplan.calibrate.parse import Run
from kvplan.calibrate.resolve import (
    _num,
    _request,
    _settings,
    _sglang_gpu_mib,
    _stand_in_gpu,
    resolve_gpu,
)
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, sglang_backend
from kvplan.engines import sglang as sglang_profile
from kvplan.engines import vllm as vllm_profile
from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_graphs import printed_activation_holds_estimate
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec
from kvplan.units import GIB

BREAKDOWN_TARGET = 0.5  # percent
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


def _sglang_fraction(run: Run, version: str, context: int | None,
                     req: SizeRequest | None) -> tuple[float, str]:
    """mem_fraction_static as the SGLang profile uses it (sglang.fraction_choice: stated or the
    release's default, SGLang's own attention backend where none is stated, the aiter derate),
    and the breakdown note. Without the model (`req` None) the default backend on an AMD GPU is
    not known (MLA models may get triton): no derate from it, and the note says so."""
    smi = _sglang_gpu_mib(run)
    gpu_mib = int(smi) if smi else None
    stated = _num(run, "mem_fraction_static")
    if req is not None:
        settings = _settings(run, Engine.sglang, version)
        choice = sglang_profile.fraction_choice(req, settings, gpu_mib)
        frac, derated = float(choice.fraction), choice.derated
        picked = f" ({choice.picked[0]}: SGLang's default on ROCm)" if choice.picked else ""
    else:
        frac = stated if stated is not None else float(sglang_profile.default_fraction(
            int(_num(run, "tp") or 1), version, gpu_mib))
        derated = bool(context) and sglang_backend.aiter_derated(
            run.settings.get("attention_backend"), context or 0, version)
        picked = ""
    note = "after - before x (1 - mem_fraction_static" + (
        f" {frac:g} stated" if stated is not None else f" {frac:g} default")
    if derated:
        frac *= float(sglang_backend.AITER_DERATE)
        note += f" x 0.85: aiter backend{picked} above 8,192 tokens of context"
    elif req is None and run.settings.get("attention_backend") is None and \
            _amd_gpu(run) and (parse_version(version) or ()) >= sglang_backend.AITER_DEFAULT_FROM:
        note += "; model unknown: SGLang's default backend on ROCm not applied"
    return frac, note + ")"


def _amd_gpu(run: Run) -> bool:
    ref = run.settings.get("gpu")
    if not ref or ref.endswith((".yaml", ".yml")):
        return False
    from kvplan.specs import load_hardware

    return load_hardware(ref).vendor.lower() == "amd"


def breakdown_checks(run: Run, engine: Engine, version: str,
                      context: int | None = None, req: SizeRequest | None = None) -> list[Check]:
    """Checks that need no model: the engine's formula on the printed memory terms (`req`, when
    the model is known, gives SGLang's fraction as its profile picks it)."""
    check = _BREAKDOWNS.get(engine.value)
    return check(run, version, context, req) if check is not None else []


def _vllm_breakdown(run: Run, version: str, context: int | None,
                    req: SizeRequest | None) -> list[Check]:
    """KV memory = total x util - peak torch - non-torch, or requested - weights - non-torch -
    activation (- CUDA graphs where the release subtracts them)."""
    v = run.values
    out: list[Check] = []
    kv = v.get("kv_gib", v.get("kv_in_use_gib"))
    if kv is None:
        return out
    # From 0.27 the printed peak activation holds the subtracted graph estimate and the
    # printed CUDAGraph figure was captured after sizing (kvplan.engines.vllm_graphs).
    graphs = (vllm_profile.flavour(version).graphs_subtracted
              and not printed_activation_holds_estimate(version))
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
                     rounding(len(terms) + 1, kv), BREAKDOWN_TARGET, formula))
    return out


def _sglang_breakdown(run: Run, version: str, context: int | None,
                      req: SizeRequest | None) -> list[Check]:
    """KV memory = after - before x (1 - mem_fraction_static)."""
    v = run.values
    out: list[Check] = []
    kv, before, after = v.get("kv_gib"), v.get("before_gib"), v.get("after_gib")
    if kv is None or before is None or after is None:
        return out
    frac, note = _sglang_fraction(run, version, context, req)
    pred = after - before * (1 - frac)
    out.append(Check("breakdown", "KV memory", kv, pred, "GiB",
                     (HALF_CENT * 3) / kv * 100, BREAKDOWN_TARGET, note))
    return out


def _trtllm_breakdown(run: Run, version: str, context: int | None,
                      req: SizeRequest | None) -> list[Check]:
    """KV memory = (total - peak + profiling cache) x fraction, and its tokens; or available x
    free_gpu_memory_fraction."""
    v = run.values
    out: list[Check] = []
    frac = _num(run, "free_gpu_memory_fraction") or 0.9
    if "peak_gib" in v:
        avail = v["available_kv_gib"]
        pred = (v["total_gib"] - v["peak_gib"] + v["tmp_kv_gib"]) * frac
        out.append(Check("breakdown", "KV memory", avail, pred, "GiB",
                         rounding(4, avail), BREAKDOWN_TARGET,
                         "(total - peak + profiling cache) x fraction"))
        per_token = int(v["kv_bytes_per_token"])
        tpb = int(_num(run, "page_size") or 32)
        est = int(pred * GIB) // per_token
        cap = _num(run, "max_tokens")
        tokens = math.ceil(min(est, cap or est) / tpb) * tpb
        if "tokens" in v:
            out.append(Check("breakdown", "KV tokens", v["tokens"], tokens, "tokens",
                             rounding(4, avail), BREAKDOWN_TARGET,
                             f"ceil(KV / {per_token} B per token / {tpb}) x {tpb}"))
    elif "available_gib" in v and "kv_gib" in v:
        pred = v["available_gib"] * frac
        out.append(Check("breakdown", "KV memory", v["kv_gib"], pred, "GiB",
                         rounding(2, v["kv_gib"]), BREAKDOWN_TARGET,
                         f"available x free_gpu_memory_fraction {frac:g}"))
    return out


# engine -> its breakdown check (task h49engines: these were `engine is Engine.X` branches)
_BREAKDOWNS = {"vllm": _vllm_breakdown, "sglang": _sglang_breakdown, "trtllm": _trtllm_breakdown}


# The C++ executor's start-up lines, in the order it allocates them before the pool (GiB values
# from kvplan.calibrate.lines_trtllm).
_PRINTED_TERMS = (("engine_mib", "engine", 1 / 1024), ("exec_context_mib", "execution context",
                                                         1 / 1024),
                  ("runtime_buffers_gib", "runtime buffers", 1.0), ("decoder_gib", "decoder", 1.0))


def printed_terms_note(run: Run) -> str | None:
    """What a TensorRT engine's log printed before the pool, and what total - available leaves
    outside those terms (CUDA context, cuBLAS, NCCL, TensorRT's own allocations: what kvplan's
    engine-path non-torch term stands for) when all four are printed. None: none printed."""
    v = run.values
    have = [(label, v[key] * scale) for key, label, scale in _PRINTED_TERMS if key in v]
    if not have:
        return None
    from kvplan.engines.trtllm import NON_TORCH

    note = "printed before the pool: " + ", ".join(f"{label} {gib:.3f} GiB" for label, gib in have)
    if len(have) == len(_PRINTED_TERMS) and "total_gib" in v and "available_gib" in v:
        rest = v["total_gib"] - v["available_gib"] - sum(g for _, g in have)
        note += (f"; total - available - these = {rest:.2f} GiB outside them (kvplan's "
                 f"non-torch {NON_TORCH[0] / GIB:.2f} GiB)")
    if "gpu_used_mib" in v:
        # TensorRT's "now: ... GPU Y (MiB)" (0.8 logs; kvplan.calibrate.lines_trtllm._t_init_now)
        note += f"; GPU in use at the execution context {v['gpu_used_mib']:,.0f} MiB"
        if "context_rise_mib" in v:
            note += (f", {v['context_rise_mib']:,.0f} MiB of it added between engine "
                     "deserialization and the execution context (where TllmRuntime allocates "
                     "the engine's device memory)")
    return note


def rounding(terms: int, value: float) -> float:
    return terms * HALF_CENT / abs(value) * 100 if value else 0.0


def breakdown_request(run: Run, model: ModelSpec, base: Path) -> SizeRequest:
    """The request the SGLang profile sizes for this run: the stated GPU where there is one (its
    vendor picks SGLang's default backend), else one that takes its memory from the log."""
    try:
        gpu = resolve_gpu(run, base)[0]
    except InputError:
        gpu = None
    return _request(run, model, gpu or _stand_in_gpu(run))


