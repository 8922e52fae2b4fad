"""The measuring side of `--measure`: a random-weight model on the device, a real cached decode.

The one module (with device.detect) that imports torch and transformers. The same code runs on
a GPU and on the CPU; on the CPU the allocator's counters and the bandwidth bound are n/a.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kvplan.capacity import weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.measure.compare import (
    Check,
    Deadline,
    Figure,
    MeasureReport,
    bandwidth_bound_tokens_per_s,
    predict,
    search_capacity,
)
from kvplan.measure.device import detect, match_hardware
from kvplan.measure.hfconfig import hf_config, with_layers
from kvplan.measure.progress import (
    CPU_DEFAULT_CONTEXT_TOKENS,
    Progress,
    available_ram_bytes,
    cpu_default_budget,
    estimate,
    forward_tokens,
)
from kvplan.measure.tensors import (
    BUILDABLE,
    _cache_bytes,
    _cache_kw,
    _is_oom,
    _LayerShape,
    _number,
    _param_bytes,
    _storage_bytes,
    _token_bytes,
    _Torch,
    build_model,
)
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType, fmt_bytes

DEFAULT_CONTEXT_TOKENS = 8192  # when --context is not given (and the model allows it)


@dataclass(frozen=True)
class MeasureOptions:
    """What the CLI passes in."""

    device: str
    gpu: HardwareSpec | None  # --gpu; None: match the detected GPU
    catalog: tuple[HardwareSpec, ...]
    context_tokens: int | None
    layers: int | None
    tolerance_pct: float
    time_limit_s: float
    kv_budget_bytes: int | None
    decode_steps: int = 4  # per capacity trial; the first is a warm-up and is not timed
    debug: bool = False  # raise what breaks a measurement, for its traceback
    repeats: int | None = None  # per cost-of-a-token timing after a warm-up [5 GPU, 3 CPU]


class _Session:
    """One measuring run: the model on the device and the figures collected so far."""

    def __init__(self, spec: ModelSpec, opts: MeasureOptions) -> None:
        import torch
        import transformers

        self.spec, self.opts = spec, opts
        self.started = time.monotonic()
        self.deadline = Deadline(opts.time_limit_s)
        self.info = detect(opts.device)
        self.t = _Torch(self.info)
        self.repeats = opts.repeats or (5 if self.t.cuda else 3)
        self.progress = Progress()
        self.notes: list[str] = []
        self.figures: list[Figure] = []
        self.errors: list[str] = []
        self.versions = {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        if self.t.cuda:
            self.versions["cuda"] = str(torch.version.cuda)
        self.hardware = self._hardware()
        self.hf = hf_config(spec, opts.layers)
        self.built_spec = with_layers(spec, opts.layers)
        self.dtype = spec.weight_dtype
        if self.dtype not in BUILDABLE:
            self.notes.append(
                f"weights are published in {spec.weight_dtype.value}; random weights are built "
                "in bf16 (quantized layers need real checkpoints), so the plan is sized for bf16"
            )
            self.dtype = DType.bf16
        max_ctx = spec.max_context_tokens
        default_ctx = DEFAULT_CONTEXT_TOKENS if self.t.cuda else CPU_DEFAULT_CONTEXT_TOKENS
        self.context = opts.context_tokens or min(default_ctx, max_ctx)
        if opts.context_tokens is None and not self.t.cuda:
            self.notes.append(f"context {self.context:,} tokens: the CPU default (no --context)")
        if self.context > max_ctx:
            raise InputError(f"--context {self.context:,} exceeds {spec.name}'s {max_ctx:,}")
        if self.context <= opts.decode_steps:
            raise InputError(f"--context must exceed {opts.decode_steps} tokens for --measure")
        if opts.layers is not None:
            self.notes.append(
                f"built the first {self.hf.num_layers} of {spec.num_layers} layers (--layers); "
                f"predictions use the same {self.hf.num_layers} layers"
            )

    def announce(self) -> None:
        """Say up front how long the run should take (stderr on a terminal, and a note)."""
        budget = self.opts.kv_budget_bytes or self.default_budget()[0]
        guess = predict(self.built_spec, self.dtype, self.context, budget).users
        tokens = forward_tokens(self.context, guess, self.opts.decode_steps, self.repeats)
        est = estimate(self.hf.params, tokens, self.opts.time_limit_s, self.t.torch, self.t.device)
        self.estimate = est
        self.notes.append(est.line())
        self.progress.say(f"measuring {self.spec.name} on {self.info.device}; {est.line()}")

    def default_budget(self) -> tuple[int, str]:
        """The CPU's default cache budget (GPU: its free memory, known only after the build)."""
        if self.t.cuda:
            return self.info.free_bytes or 0, "free device memory"
        return cpu_default_budget(available_ram_bytes())

    def _hardware(self) -> HardwareSpec | None:
        if self.opts.gpu is not None:
            self.notes.append(f"hardware spec {self.opts.gpu.name} from --gpu")
            return self.opts.gpu
        if not self.t.cuda:
            self.notes.append("no CPU hardware spec: the memory-bandwidth bound is n/a")
            return None
        spec, how = match_hardware(self.info.name, self.info.total_bytes, self.opts.catalog)
        self.notes.append(how)
        return spec

    # -- 1. weights --------------------------------------------------------------------------

    def build(self) -> None:
        t = self.t
        before = t.allocated()
        t0 = time.perf_counter()
        self.model = build_model(self.hf, self.dtype, t.device)
        t.sync()
        self.build_s = time.perf_counter() - t0
        after = t.allocated()
        self.weights_alloc = None if before is None or after is None else after - before
        self.weights_tensors = _param_bytes(self.model)
        self.cache_kw = _cache_kw(self.model)
        if self.opts.kv_budget_bytes is not None:
            self.budget = self.opts.kv_budget_bytes
            self.budget_source = "--kv-budget-gib"
        elif not t.cuda:
            self.budget, self.budget_source = self.default_budget()
        else:
            t.release()
            self.budget = t.free() or 0
            self.budget_source = "free device memory after the weights loaded (mem_get_info)"
        self.pred = predict(self.built_spec, self.dtype, self.context, self.budget)
        na_cpu = "" if t.cuda else "n/a on the CPU (no allocator counters)"
        self.figures += [
            Figure("weights_bytes", "resident weights (tensors)", "B", self.pred.weights_bytes,
                   self.weights_tensors,
                   note=f"{self.hf.params:,} parameters built in {self.build_s:.1f} s"),
            Figure("weights_bytes_allocator", "resident weights (allocator)", "B",
                   self.pred.weights_bytes, self.weights_alloc, note=na_cpu),
        ]

    # -- 2. KV bytes per token ---------------------------------------------------------------

    def _forward(self, ids: Any, cache: Any | None, keep: int = 1) -> Any:
        kwargs: dict[str, Any] = {"use_cache": cache is not None, "logits_to_keep": keep}
        if cache is not None:
            kwargs[self.cache_kw] = cache
        with self.t.torch.inference_mode():
            return self.model(input_ids=ids, **kwargs)

    def _ids(self, batch: int, tokens: int) -> Any:
        torch = self.t.torch
        return torch.randint(0, self.spec.vocab_size, (batch, tokens), device=self.t.device)

    def _new_cache(self, static: bool, batch: int = 0) -> Any:
        import transformers

        if static:
            return transformers.StaticCache(config=self.model.config, max_cache_len=self.context)
        return transformers.DynamicCache(config=self.model.config)

    def kv_per_token(self) -> None:
        t, att = self.t, self.spec.attention
        window = att.sliding_window_tokens if self.pred.tokens_held_per_sliding_layer else None
        limit = 2048 if t.cuda else 32
        # inside the window (a dynamic sliding layer keeps window - 1 tokens once it is reached)
        tokens = min(self.context, limit, window - 1 if window else self.context)
        batch = 2
        ids = self._ids(batch, tokens)
        cache = self._new_cache(static=False)
        t.release()
        before = t.allocated()
        out = self._forward(ids, cache)
        del out
        t.sync()
        after = t.allocated()
        held = batch * tokens
        per_token = _cache_bytes(cache) / held
        self.shapes = [
            _LayerShape(layer.keys.shape[1], layer.keys.shape[-1], layer.values.shape[1],
                        layer.values.shape[-1])
            for layer in cache.layers
        ]
        self.cache_dtype = cache.layers[0].keys.dtype
        alloc = None if before is None or after is None else (after - before) / held
        kind = "MLA latent" if att.mla is not None else "keys + values"
        self.figures += [
            Figure("kv_bytes_per_token", f"KV per token ({kind}, tensors)", "B",
                   self.pred.kv_bytes_per_token, _number(per_token),
                   note=f"prefill of {batch} x {tokens:,} tokens, {len(self.shapes)} layers"),
            Figure("kv_bytes_per_token_allocator", "KV per token (allocator)", "B",
                   self.pred.kv_bytes_per_token, None if alloc is None else _number(alloc),
                   note="" if t.cuda else "n/a on the CPU: from the tensors only"),
        ]
        if att.mla is not None:
            self.notes.append(
                "transformers caches the MLA latent but expands it to full keys and values for "
                "every head inside attention: a per-layer transient the plan does not count"
            )
        del cache
        t.release()
        if window is not None and window + 64 <= self.spec.max_context_tokens:
            self._sliding(window)

    def _sliding(self, window: int) -> None:
        tokens = window + 64
        if not self.t.cuda and tokens > 4096:
            self.notes.append("sliding window past 4,096 tokens: not measured on the CPU")
            return
        cache = self._new_cache(static=False)
        out = self._forward(self._ids(1, tokens), cache)
        out = self._forward(self._ids(1, 1), cache)  # one decode step: the steady state
        del out
        sliding = [layer for layer, slides in zip(cache.layers, cache.is_sliding, strict=True)
                   if slides]
        # tokens the layer keeps allocated (its storage), and the tokens attention sees (shape)
        held = max(_storage_bytes([x.keys]) // _token_bytes(x.keys) for x in sliding)
        visible = max(x.keys.shape[-2] for x in sliding)
        self.figures.append(
            Figure("sliding_tokens_held", "sliding layer: tokens held", "tokens", window, held,
                   note=f"allocated after a {tokens:,}-token prompt and one decode step "
                        f"(window {window:,}; attention sees {visible:,} cached + the new one)")
        )
        del cache
        self.t.release()

    # -- 3. capacity and 4. decode throughput --------------------------------------------------

    def _fill(self, cache: Any, batch: int, tokens: int) -> int:
        """Fill every layer with `tokens` random cached tokens, one layer at a time.

        A growing sliding layer is given only the window - 1 tokens it keeps, and told it saw
        `tokens` (its `cumulative_length`): handing it all of them would allocate the whole
        prompt for every layer (its kept tokens are a view of the append) and run out of memory
        long before a decode would. Returns the cache's allocated bytes once filled.
        """
        torch = self.t.torch
        for i, s in enumerate(self.shapes):
            layer = cache.layers[i] if i < len(cache.layers) else None
            window = getattr(layer, "sliding_window", None)
            keep = tokens
            if (window and tokens > window - 1
                    and isinstance(getattr(layer, "cumulative_length", None), int)):
                keep = window - 1
            k = torch.empty((batch, s.k_heads, keep, s.k_dim), dtype=self.cache_dtype,
                            device=self.t.device).normal_()
            v = torch.empty((batch, s.v_heads, keep, s.v_dim), dtype=self.cache_dtype,
                            device=self.t.device).normal_()
            cache.update(k, v, i)
            del k, v
            if keep < tokens:
                cache.layers[i].cumulative_length += tokens - keep
        return _cache_bytes(cache)

    def _trial(self, static: bool, batch: int, times: dict[int, list[float]]) -> bool:
        """Does a cache of `batch` sequences at the target context hold and decode?"""
        t = self.t
        need = batch * self.pred.kv_bytes_per_sequence
        free = t.free()
        if need > self.budget or (free is not None and need > free):
            return False  # never request more than the budget or than is free
        try:
            step_s = self._decode_trial(static, batch)
        except self.t.oom_types():
            step_s = None
        except RuntimeError as err:  # cuBLAS and friends report a failed allocation this way
            if not _is_oom(err):  # another failure at this batch: it does not hold; say why
                if self.opts.debug:
                    raise
                self.notes.append(f"batch {batch:,} ({'reserved' if static else 'growing'}): "
                                  f"{type(err).__name__}: {_first_line(err)}; counted as not "
                                  "holding")
            step_s = None
        t.release()  # the trial's frame (and any exception's) is gone: its memory is free
        if step_s is None:
            return False
        times[batch] = step_s
        return True

    def _decode_trial(self, static: bool, batch: int) -> list[float] | None:
        """Fill a cache to `steps` short of the context, decode `steps` tokens: step times."""
        steps = self.opts.decode_steps
        cache = self._new_cache(static, batch)
        peak = self._fill(cache, batch, self.context - steps)
        ids = self._ids(batch, 1)

        def step(c: Any = cache, x: Any = ids) -> None:
            self._forward(x, c)

        step_s = []
        for _ in range(steps):
            step_s.append(self.t.timed(step))
            peak = max(peak, _cache_bytes(cache))
        if peak > self.budget:  # the cache itself, at its largest, must fit the budget
            return None
        return step_s[1:]  # the first step is a warm-up

    def _capacity_prediction(self, cache: str) -> tuple[int, str]:
        """The batch to hold the search against, and where that number comes from.

        With the device's free memory as the budget, the allocator bounds the cache and every
        transient of a step, so the prediction is kvplan's transformers profile (what
        `kvplan size --engine transformers --engine-version dynamic|static` computes). With
        --kv-budget-gib, the budget bounds the cache tensors alone: budget / cache per sequence.
        """
        pred = self.pred
        if self.opts.kv_budget_bytes is not None or not self.t.cuda:
            return pred.users, "predicted: the cache budget / cache per sequence"
        cost = pred.decode_costs[cache]
        users = pred.users_transformers(cache, self.budget)
        return users, (
            f"predicted by kvplan's transformers profile ({cache}): "
            f"{cost.total_bytes:,} B per sequence = cache {cost.cache_bytes:,} + transient "
            f"{cost.transient_bytes:,} ({cost.transient_formula}) + activations "
            f"{cost.activation_bytes:,}; the cache alone would give {pred.users:,}"
        )

    def capacity(self) -> None:
        seq = self.pred.kv_bytes_per_sequence
        # each search gets a share of the time left; the token-cost timings keep the rest
        for static, key, label, share in (
            (True, "reserved", "StaticCache (reserved)", 0.35),
            (False, "growing", "DynamicCache (growing)", 0.5),
        ):
            predicted, basis = self._capacity_prediction("static" if static else "dynamic")
            free = self.t.free()
            room = self.budget if free is None else min(self.budget, free)
            cap = room // seq
            times: dict[int, list[float]] = {}
            found = search_capacity(
                predicted, cap, lambda n, s=static, tm=times: self._trial(s, n, tm),  # type: ignore[misc]
                Deadline(max(0.0, self.deadline.left_s) * share),
            )
            tried = ", ".join(f"{n}{'' if ok else 'x'}" for n, ok in found.tried)
            note = (f"{basis}; tried {tried}"
                    + (" (cut short by --time-limit)" if found.cut_short else ""))
            self.figures.append(
                Figure(f"capacity_{key}", f"sequences at {self.context:,} tokens, {label}",
                       "seqs", predicted, found.best, note=note)
            )
            if found.best:
                self._throughput(key, found.best, times[found.best])

    def prefill_capacity(self) -> None:
        """Sequences whose real prefill fits: sliding layers hold the whole prompt until the
        next append, so the peak right after the prompt's forward is every layer at full length.

        Measured only for models with sliding layers (otherwise it is the cache figure again).
        """
        cost = self.pred.decode_costs["dynamic"]
        if not cost.shape.sliding_layers or cost.prefill_cache_bytes <= cost.cache_bytes:
            return
        cache_only = self.opts.kv_budget_bytes is not None or not self.t.cuda
        per_seq = cost.prefill_cache_bytes if cache_only else cost.prefill_total_bytes
        predicted = self.budget // per_seq
        free = self.t.free()
        cap = (self.budget if free is None else min(self.budget, free)) // max(
            1, cost.prefill_cache_bytes)

        def holds(batch: int) -> bool:
            cache = self._new_cache(static=False)
            try:
                out = self._forward(self._ids(batch, self.context), cache)
                del out
                self.t.sync()
                return _cache_bytes(cache) <= self.budget
            except self.t.oom_types():
                return False
            except RuntimeError as err:
                if not _is_oom(err):
                    raise
                return False
            finally:
                del cache
                self.t.release()

        found = search_capacity(predicted, cap, holds, Deadline(max(0.0, self.deadline.left_s)
                                                                 * 0.5))
        tried = ", ".join(f"{n}{'' if ok else 'x'}" for n, ok in found.tried)
        self.figures.append(Figure(
            "capacity_prefill", f"sequences at {self.context:,} tokens, prefill peak (growing)",
            "seqs", predicted, found.best,
            note=(f"budget / {per_seq:,} B per sequence: every layer holds the {self.context:,}-"
                  f"token prompt right after prefill (sliding layers until the next append); "
                  f"tried {tried}" + (" (cut short by --time-limit)" if found.cut_short else ""))))

    def _throughput(self, key: str, batch: int, step_s: list[float]) -> None:
        step = statistics.median(step_s)
        measured = batch / step
        bound = None
        note = f"batch {batch}, median of {len(step_s)} steps: {step * 1000:.1f} ms per step"
        if self.hardware is not None:
            bound = bandwidth_bound_tokens_per_s(
                self.pred.weights_bytes, self.pred.kv_bytes_per_sequence, batch,
                self.hardware.memory_bandwidth_bytes_per_s,
            )
            note += (f"; the bound reads {fmt_bytes(self.pred.weights_bytes)} of weights + "
                     f"{fmt_bytes(batch * self.pred.kv_bytes_per_sequence)} of cache per step at "
                     f"{self.hardware.memory_bandwidth_bytes_per_s / 1e12:g} TB/s: "
                     f"{batch / bound * 1000:.1f} ms; measured is {measured / bound:.0%} of it")
        else:
            note += "; bound n/a (no hardware spec)"
        self.figures += [
            Figure(f"decode_tokens_per_s_{key}", f"decode tokens/s, {key} (vs bound)",
                   "tok/s", None if bound is None else round(bound, 1), round(measured, 1),
                   Check.at_most, note),
            Figure(f"decode_tokens_per_s_per_seq_{key}", f"  per sequence ({key})", "tok/s",
                   None if bound is None else round(bound / batch, 2), round(1 / step, 2),
                   Check.info),
        ]

    # -- 5. the cost of a new token, with and without the cache --------------------------------

    def token_cost(self) -> None:
        t = self.t
        lengths = sorted({max(1, self.context // 16), max(1, self.context // 4), self.context - 1})
        for length in lengths:
            if self.deadline.passed:
                self.notes.append(f"cost of a token at {length:,}+ tokens: skipped (--time-limit)")
                return
            # the cached steps run at length - repeats .. length tokens (no crop: a sliding
            # cache past its window cannot be rolled back)
            cache = self._new_cache(static=False)
            self._forward(self._ids(1, max(1, length - self.repeats - 1)), cache)
            one = self._ids(1, 1)
            full = self._ids(1, length + 1)

            def cached(c: Any = cache, x: Any = one) -> None:
                self._forward(x, c)

            with_cache = self._median(cached)
            def uncached(f: Any = full) -> None:
                self._forward(f, None)

            without = self._median(uncached)
            del cache
            t.release()
            self.figures += [
                Figure(f"token_ms_cached_{length}", f"new token after {length:,}: with cache",
                       "ms", None, round(with_cache * 1000, 3), Check.info),
                Figure(f"token_ms_uncached_{length}", f"new token after {length:,}: no cache",
                       "ms", None, round(without * 1000, 3), Check.info,
                       f"{without / with_cache:.1f}x the cached step"),
            ]

    def _median(self, fn: Callable[[], Any]) -> float:
        self.t.timed(fn)  # warm-up
        return statistics.median(self.t.timed(fn) for _ in range(self.repeats))

    def report(self) -> MeasureReport:
        return MeasureReport(
            model=self.spec.name,
            device=self.info.device,
            device_name=self.info.name,
            hardware=self.hardware.name if self.hardware else None,
            versions=self.versions,
            weight_dtype=self.dtype.value,
            context_tokens=self.context,
            num_layers=self.hf.num_layers,
            kv_budget_bytes=self.budget,
            budget_source=self.budget_source,
            tolerance_pct=self.opts.tolerance_pct,
            figures=self.figures,
            notes=self.notes,
            elapsed_s=round(time.monotonic() - self.started, 1),
            errors=self.errors,
        )


def measure(spec: ModelSpec, opts: MeasureOptions) -> MeasureReport:
    """Build, measure 1-5, and compare each figure with kvplan's prediction.

    A measurement that breaks off (an error the device or a library raises) is reported in
    `errors` with what broke, and the others still run: one failure never hides the rest.
    With `opts.debug`, it is raised instead, for its traceback.
    """
    s = _Session(spec, opts)
    s.announce()
    s.progress.say(f"building {s.hf.params:,} parameters with random weights")
    try:
        s.build()
    except s.t.oom_types() as err:
        raise InputError(
            f"{spec.name}: the weights ({fmt_bytes(weights_bytes_per_gpu(s.built_spec, s.dtype, 1))}"
            f") do not fit in {s.info.device}'s free memory ({fmt_bytes(s.info.free_bytes or 0)})"
            f": build fewer layers with --layers N ({_first_line(err)})"
        ) from None
    phases: list[tuple[str, Callable[[], None]]] = [
        ("KV bytes per token", s.kv_per_token),
        ("capacity and decode throughput", s.capacity),
        ("prefill-bound capacity", s.prefill_capacity),
        ("cost of a token", s.token_cost),
    ]
    for name, phase in phases:
        if name != "KV bytes per token" and not hasattr(s, "shapes"):
            s.errors.append(f"{name}: not measured (needs the KV bytes per token first)")
            continue
        s.progress.say(name)
        try:
            phase()
        except Exception as err:  # noqa: BLE001 - reported as a failed measurement
            if opts.debug:
                raise
            s.errors.append(f"{name}: {type(err).__name__}: {_first_line(err)}")
            s.t.release()
    s.progress.say("done")
    return s.report()


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:300] if text else "(no message)"
