"""One `--measure` run's state: the model on the device, the budget, the figures so far.

The measuring stages (kvplan.measure.weights, .kv, .trials, .prefill, .speed) extend this class;
kvplan.measure.run puts them together. Only these modules (with device.detect) import torch and
transformers, and only inside a run.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kvplan.errors import InputError
from kvplan.measure.compare import Deadline, Figure, MeasureReport, Prediction
from kvplan.measure.device import detect, match_hardware
from kvplan.measure.hfconfig import hf_config, with_layers
from kvplan.measure.progress import (
    CPU_DEFAULT_CONTEXT_TOKENS,
    Progress,
    available_ram_bytes,
    cpu_default_budget,
    time_line,
)
from kvplan.measure.tensors import BUILDABLE, _LayerShape, _Torch
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType

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

class Session:
    """One measuring run: the model on the device and the figures collected so far."""

    # set by build() (kvplan.measure.weights) and kv_per_token(), read by the later stages
    model: Any
    cache_kw: str
    budget: int
    budget_source: str
    pred: Prediction
    shapes: list[_LayerShape]
    cache_dtype: Any

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
        """Say up front what the run's time depends on (stderr on a terminal, and a note)."""
        line = time_line(self.hf.params, self.opts.time_limit_s)
        self.notes.append(line)
        self.progress.say(f"measuring {self.spec.name} on {self.info.device}; {line}")

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

    def _median(self, fn: Callable[[], Any]) -> float:
        self.t.timed(fn)  # warm-up
        return statistics.median(self.t.timed(fn) for _ in range(self.repeats))

    def _throughput(self, key: str, batch: int, step_s: list[float]) -> None:
        """Decode throughput at a batch that held (kvplan.measure.speed.SpeedStage)."""
        raise NotImplementedError

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


def first_line(err: BaseException) -> str:
    """The first line of an error's message, for a one-line report."""
    text = str(err).strip().splitlines()
    return text[0][:300] if text else "(no message)"
