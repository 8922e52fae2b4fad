"""Torch-side helpers of `--measure`: the device's counters, building the model, cache bytes.

Imported only by the run (kvplan.measure.run and its stages), which imports torch and transformers lazily.
"""

from __future__ import annotations

import gc
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kvplan.measure.device import DeviceInfo
from kvplan.measure.hfconfig import HfConfig
from kvplan.units import DType

BUILDABLE = {DType.fp32: "float32", DType.fp16: "float16", DType.bf16: "bfloat16"}


class _Torch:
    """Device helpers: synchronisation and the allocator's counters (None on the CPU)."""

    def __init__(self, info: DeviceInfo) -> None:
        import torch

        self.torch = torch
        self.info = info
        self.cuda = info.kind == "cuda"
        self.device = torch.device(info.device)

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize(self.device)

    def allocated(self) -> int | None:
        return int(self.torch.cuda.memory_allocated(self.device)) if self.cuda else None

    def free(self) -> int | None:
        return int(self.torch.cuda.mem_get_info(self.device)[0]) if self.cuda else None

    def release(self) -> None:
        gc.collect()
        if self.cuda:
            self.torch.cuda.empty_cache()

    def oom_types(self) -> tuple[type[BaseException], ...]:
        torch = self.torch  # torch.OutOfMemoryError from 2.5; torch.cuda's name before that
        return (getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError,)

    def timed(self, fn: Callable[[], Any]) -> float:
        self.sync()
        t0 = time.perf_counter()
        fn()
        self.sync()
        return time.perf_counter() - t0


def build_model(hf: HfConfig, dtype: DType, device: Any) -> Any:
    """A random-weight model built directly on `device` (no host copy of the weights).

    `device` may be "meta" (shapes only, no memory), as the tests do for the big models.
    """
    import torch
    import transformers

    config = getattr(transformers, hf.class_name)(**hf.kwargs)
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.AutoModelForCausalLM.from_config(
            config, dtype=getattr(torch, BUILDABLE[dtype])
        )
    model.eval()
    return model


def _cache_kw(model: Any) -> str:
    """transformers 5.x renamed `past_key_values` to `cache`; use whichever forward takes."""
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _cache_tensors(cache: Any) -> list[Any]:
    out = []
    for layer in cache.layers:
        for name in ("keys", "values"):
            tensor = getattr(layer, name, None)
            if tensor is not None and tensor.numel():
                out.append(tensor)
    return out


def _storage_bytes(tensors: list[Any]) -> int:
    """Bytes of the distinct storages behind `tensors`: what they keep allocated.

    Not `nbytes`: a sliding layer's kept tokens are a view of the whole last append
    (transformers' DynamicSlidingWindowLayer), which stays allocated until the next one.
    """
    seen: dict[int, int] = {}
    for x in tensors:
        storage = x.untyped_storage()
        seen[storage.data_ptr()] = int(storage.nbytes())
    return sum(seen.values())


def _cache_bytes(cache: Any) -> int:
    return _storage_bytes(_cache_tensors(cache))


def _token_bytes(x: Any) -> int:
    """Bytes one token takes in a (batch, heads, tokens, dim) cache tensor."""
    return int(x.shape[0] * x.shape[1] * x.shape[-1] * x.element_size())


def _param_bytes(model: Any) -> int:
    seen, total = set(), 0
    for p in model.parameters():
        if p.data_ptr() not in seen:
            seen.add(p.data_ptr())
            total += int(p.nbytes)
    return total


@dataclass(frozen=True)
class _LayerShape:
    k_heads: int
    k_dim: int
    v_heads: int
    v_dim: int


def _is_oom(err: BaseException) -> bool:
    text = str(err).lower()
    return "out of memory" in text or "alloc_failed" in text


def _number(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 3)
