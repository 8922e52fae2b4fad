"""Put kvplan's prediction beside every number a start-up log printed, with the error.

Two bases per run:
- breakdown: the engine's formula applied to the memory terms the log itself printed (total,
  utilization, weights, activation peak, non-torch, free memory). This checks the accounting;
  the target is 0.5% on KV memory. Printed numbers are rounded to 0.01 GiB, so the report also
  gives the error that rounding alone can cause (kvplan/calibrate/breakdown.py).
- shapes: the engine profile from the model's shapes and the settings alone (only the GPU's
  total memory, or SGLang's start-up free memory, is taken from the log). Target: 5% on KV
  tokens for dense models.
A run whose model is not in the catalog still gets its breakdown checks; the rest say so.
The steps are the same for every engine; what one engine's log adds (its version, which printed
values measure what, its notes and extra checks) is kvplan/calibrate/compare_<engine>.py, reached
through `comparison(engine)` (kvplan/calibrate/compare_engine.py lists what each step asks).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kvplan.calibrate import compare_sglang, compare_trtllm, compare_vllm
from kvplan.calibrate.breakdown import (
    BREAKDOWN_TARGET,
    HALF_CENT,
    Check,
    breakdown_checks,
)
from kvplan.calibrate.compare_engine import NEUTRAL, EngineComparison
from kvplan.calibrate.compile_cache import COLD, EAGER, UNKNOWN, WARM, CompileCache
from kvplan.calibrate.parse import LogFile, Run, parse_file
from kvplan.calibrate.resolve import (
    _num,
    _request,
    _settings,
    _stand_in_gpu,
    resolve_gpu,
    resolve_model,
    vllm_transport,
)
from kvplan.calibrate.split import is_heldout
from kvplan.engine_traits import traits
from kvplan.engines import Engine, EngineSettings, Measured, parse_engine, run_engine
from kvplan.errors import InputError
from kvplan.units import GIB

SHAPES_TARGET = 5.0  # percent, dense models
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
    log: str = ""  # the log file's name
    part: str = "unsplit"  # fit | heldout (SPLIT.tsv)
    model_class: str = "unknown"  # dense | moe | mla | sliding | multimodal | unknown
    compile_cache: CompileCache | None = None  # vLLM runs only (task h50coldreport)


# Each engine's readings of its log (kvplan/calibrate/compare_engine.py says what each step asks);
# an engine not listed reads none beyond the common ones (task h50compare: these were engine-name
# branches here).
_BY_ENGINE: dict[Engine, EngineComparison] = {
    Engine.vllm: compare_vllm.COMPARISON,
    Engine.sglang: compare_sglang.COMPARISON,
    Engine.trtllm: compare_trtllm.COMPARISON,
}


def comparison(engine: Engine) -> EngineComparison:
    """What `engine`'s start-up log adds to the comparison."""
    return _BY_ENGINE.get(engine, NEUTRAL)


def calibrate_run(run: Run, base: Path) -> RunReport:
    """Every comparison one run allows."""
    try:
        engine = parse_engine(run.engine or "")
    except InputError:
        rep = RunReport(run.label, run.engine, run.version, None, None)
        rep.notes.append("engine not recognised; nothing compared")
        rep.unparsed = run.unparsed
        return rep
    reads = comparison(engine)
    version, how = reads.version(run)
    rep = RunReport(run.label, engine.value, f"{version} ({how})", None, None)
    rep.unparsed = run.unparsed
    model, model_note = resolve_model(run, base)
    length = _num(run, "max_model_len")
    context = int(length) if length else (model.max_context_tokens if model else None)
    rep.checks += breakdown_checks(run, engine, version, context,
                                    reads.breakdown_request(run, model, base))
    rep.notes += run.overridden
    rep.notes += reads.log_notes(run)
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
    measured_keys = traits(engine).log_measures
    if any(k in v for k in measured_keys):
        g = gpu or _stand_in_gpu(run)
        req = _request(run, model, g)
        measured = reads.measured(run, req)
        try:
            res = run_engine(req, _with(settings, measured))
            _token_checks(rep, run, res, "breakdown", BREAKDOWN_TARGET, v.get("kv_gib"))
        except InputError as err:
            rep.notes.append(f"breakdown profile failed: {err}")
    if gpu is None:
        free_note = reads.free_memory_note(run)
        if free_note is None:
            rep.notes.append(f"shapes-only skipped: {gpu_note}")
            return rep
        gpu_note = free_note
    req = _request(run, model, gpu or _stand_in_gpu(run))
    shapes = reads.free_memory(run) if gpu is None else Measured()
    try:
        res = run_engine(req, _with(settings, shapes))
    except InputError as err:
        rep.notes.append(f"shapes profile failed: {err}")
        return rep
    target = SHAPES_TARGET if rep.dense else None
    _token_checks(rep, run, res, "shapes", target, v.get("kv_gib"))
    checks, notes = reads.shapes_checks(run, res)
    rep.checks += checks
    rep.notes += notes
    rep.notes.append(f"shapes: {gpu_note}; activation {res.activation_bytes / GIB:.2f} GiB "
                     f"(range {res.activation_bytes_low / GIB:.2f}-"
                     f"{res.activation_bytes_high / GIB:.2f}); tokens range "
                     f"{res.kv_cache_tokens_low:,}-{res.kv_cache_tokens_high:,}"
                     + (f"; tp transport {settings.tp_transport} ({vllm_transport(run)[1]})"
                        if settings.tp_transport else ""))
    rep.notes += reads.shapes_notes(run, req, settings)
    return rep


def _with(settings: EngineSettings, measured: Measured) -> EngineSettings:
    from dataclasses import replace

    return replace(settings, measured=measured)


def _token_checks(rep: RunReport, run: Run, res: object, basis: str, target: float | None,
                  kv_logged: float | None) -> None:
    from kvplan.engines import EngineResult

    assert isinstance(res, EngineResult)
    reads = comparison(res.engine)
    v = run.values
    if "tokens" in v and reads.counts_tokens(run, res):
        logged = v["tokens"]
        pred = res.kv_cache_tokens
        rnd = HALF_CENT / kv_logged * 100 if kv_logged else None
        rep.checks.append(Check(basis, "KV tokens", logged, pred, "tokens", rnd, target))
    if "blocks" in v:
        rep.checks.append(Check(basis, "GPU blocks", v["blocks"], res.blocks, "blocks",
                                HALF_CENT / kv_logged * 100 if kv_logged else None, target))
    rep.checks += reads.pool_checks(basis, run, res, target, kv_logged)
    if "concurrency" in v:
        rep.checks.append(Check(basis, "max concurrency", v["concurrency"],
                                round(float(res.max_concurrency), 2), "x", None, None))
    rep.checks += reads.request_checks(basis, run, res)
    refused = bool(run.errors)
    rep.checks.append(Check(basis, "starts", float(not refused), float(res.starts), "bool",
                            None, 0.0, "" if res.starts != refused else
                            (res.reason or "")[:120]))


def log_paths(paths: list[Path]) -> list[Path]:
    """Files as given; a directory stands for its *.log files, in name order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.log"))
            if not found:
                raise InputError(f"{path}: no *.log files in this directory")
            out += found
        elif path.exists():  # a FIFO or device is refused by read_text, with what it is
            out.append(path)
        else:
            raise InputError(f"{path}: no such log file or directory")
    return out


def calibrate_files(paths: list[Path], errors: list[InputError] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> list[RunReport]:
    """One report per run. A file that cannot be read, or shows no start-up numbers at all, is
    an error in `errors` (when given: the other files are still reported) or raised.
    `progress(done, n)` is called before each log file and once at the end."""
    from kvplan.calibrate.split import split_for

    paths = log_paths(paths)
    split = split_for(paths)
    reports = []
    for i, path in enumerate(paths):
        if progress is not None:
            progress(i, len(paths))
        try:
            log: LogFile = parse_file(path)
            if not any(run.values or run.errors for run in log.runs):
                raise InputError(f"{path}: no start-up numbers of vLLM, SGLang or TensorRT-LLM "
                                 "found; give an engine's start-up log")
        except InputError as err:
            if errors is None:
                raise
            errors.append(err)
            continue
        entry = split.get(path.name)
        refused: dict[str, list[str]] = {}  # a run's error -> the runs it stopped
        for run in log.runs:
            if not run.values and not run.errors:
                rep = RunReport(run.label, run.engine, run.version, None, None)
                rep.notes.append("no start-up numbers found in this run")
                rep.unparsed = run.unparsed
            else:
                try:
                    rep = calibrate_run(run, path.parent)
                except InputError as err:  # this run's error, named; the others still reported
                    if errors is None:
                        raise
                    refused.setdefault(str(err), []).append(
                        run.label.removeprefix(path.name).strip())
                    continue
            rep.log = path.name
            rep.compile_cache = _compile_cache(run)
            if entry is not None:
                rep.part, rep.model_class = entry.part, entry.model_class
            reports.append(rep)
        for text, runs in refused.items():
            assert errors is not None
            named = ", ".join(r for r in runs if r).replace("run ", "")
            which = f"run {named}: " if len(runs) == 1 and named else (
                f"runs {named}: " if named else "")
            errors.append(InputError(text if text.startswith(str(path))
                                     else f"{path}: {which}{text}"))
    if progress is not None:
        progress(len(paths), len(paths))
    return reports


def _compile_cache(run: Run) -> CompileCache | None:
    """The run's torch.compile cache state where its engine's log has one (vLLM's)."""
    try:
        engine = parse_engine(run.engine or "")
    except InputError:
        return None
    return comparison(engine).compile_cache(run)


def split_rows(reports: list[RunReport]) -> list[tuple[str, str, str, float]]:
    """(engine, class, part, |error| %) of every run with a shapes-only headline number."""
    rows = []
    for rep in reports:
        shape = headline(rep, "shapes")
        if shape is not None and rep.engine and math.isfinite(shape.error_pct):
            rows.append((rep.engine, rep.model_class, rep.part, abs(shape.error_pct)))
    return rows


def run_name(rep: RunReport) -> str:
    """A run's short name: its log's number, with the run's letter where the log holds several
    ("45A" for "45-vllm-....log run A")."""
    number = rep.log.split("-")[0] if rep.log else rep.label
    tail = rep.label.removeprefix(rep.log).strip() if rep.log else ""
    return number + tail.removeprefix("run ").strip() if tail else number


def held_out_dense_misses(reports: list[RunReport]) -> dict[str, list[str]]:
    """The vLLM dense (and sliding-window) held-out runs whose shapes-only headline is beyond
    5% (README's count), by torch.compile cache state (cold | warm | eager | unknown), each list
    in the logs' number order. Nothing is left out of any median: this only sorts the misses.
    vLLM's runs are those with a compile-cache state: only its comparison gives one
    (kvplan.calibrate.compare_vllm)."""
    out: dict[str, list[str]] = {COLD: [], WARM: [], EAGER: [], UNKNOWN: []}
    for rep in reports:
        shape = headline(rep, "shapes")
        if (rep.compile_cache is not None and rep.model_class in ("dense", "sliding")
                and is_heldout(rep.part) and shape is not None
                and abs(shape.error_pct) > SHAPES_TARGET):
            out[rep.compile_cache.state].append(run_name(rep))
    for names in out.values():
        names.sort(key=lambda n: (int(m[0]) if (m := re.match(r"\d+", n)) else -1, n))
    return out


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
