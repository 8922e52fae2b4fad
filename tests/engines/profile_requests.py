"""What the engine-profile tests share (test_engine_profiles.py and its per-engine parts
test_engine_profiles_vllm.py and test_engine_profiles_sglang.py): the catalog H100 and H200, a
SizeRequest on them with a bf16 cache by default, and GiB figures read off the logs as bytes."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType

H100 = load_hardware("h100")
H200 = load_hardware("h200")


def req(name: str = "llama-3-8b", ctx: int = 8192, tp: int = 1, gpu=H100, **kw) -> SizeRequest:
    return SizeRequest(model=load_model(name), gpu=gpu, context_tokens=ctx,
                       kv_dtype=kw.pop("kv_dtype", DType.bf16), tp=tp, **kw)


def gib(x: float) -> int:
    return int(x * GIB)
