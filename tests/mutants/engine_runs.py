"""What the engine-profile mutation tests share: every number of an EngineResult as one dict,
a run of one profile on a catalog model and GPU whose explain steps must add up, the size of a
run whose weights outgrow the GPU, and the catalog H100 and Llama-3-8B the interface tests size
on."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult, EngineSettings, run_engine, verify_steps
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB
from tests.conftest import rotary_words  # re-exported: the mutation tests import it from here

__all__ = ["GIB", "H100", "LLAMA", "MIB", "NUMBERS", "assert_weights_overflow", "numbers",
           "rotary_words", "run", "steps", "vllm"]

H100 = load_hardware("h100")
LLAMA = load_model("llama-3-8b")
NUMBERS = ("memory_bytes", "requested_bytes", "weights_bytes", "activation_bytes",
           "activation_bytes_low", "activation_bytes_high", "non_torch_bytes", "cuda_graph_bytes",
           "kv_cache_bytes", "kv_cache_bytes_low", "kv_cache_bytes_high", "kv_cache_tokens",
           "kv_cache_tokens_low", "kv_cache_tokens_high", "blocks", "block_size_tokens",
           "max_model_len", "max_concurrency", "starts", "reason", "max_model_len_that_starts")


def numbers(r: EngineResult) -> dict[str, object]:
    return {k: getattr(r, k) for k in NUMBERS}


def run(engine: Engine, model: str, gpu: str, ctx: int, version: str | None = None,
        **kw: object) -> EngineResult:
    """`engine` on `model` and `gpu` at `ctx` tokens: keywords that are engine settings go to
    EngineSettings, the rest to the SizeRequest."""
    settings = {k: kw.pop(k) for k in list(kw) if k in EngineSettings.__dataclass_fields__}
    req = SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=ctx,
                      **kw)  # type: ignore[arg-type]
    r = run_engine(req, EngineSettings(engine=engine, version=version,
                                       **settings))  # type: ignore[arg-type]
    assert verify_steps(r.steps) == []
    return r


def assert_weights_overflow(r: EngineResult, total_bytes: int, weights_bytes: int) -> None:
    """The size of a run whose weights alone exceed the GPU's `total_bytes`: no user, no fit, no
    pool, no context, the engine's reason; the breakdown the weights, nothing else booked, and
    the rest (negative) unallocated."""
    s = r.size
    assert (s.users_per_replica, s.fits, s.kv_budget_bytes, s.max_context_that_fits) == (
        0, False, 0, 0)
    assert s.reason == r.reason
    assert s.breakdown == Breakdown(
        total_bytes=total_bytes, weights_bytes=weights_bytes, kv_used_bytes=0,
        kv_free_bytes=0, reserve_bytes=0, unallocated_bytes=total_bytes - weights_bytes)


def steps(r: EngineResult) -> list[tuple[object, ...]]:
    """(label, value, unit, op, args) of every explain line, in order."""
    return [(s.label, s.value, s.unit, s.op, s.args) for s in r.steps]


def vllm(model: str, gpu: str, ctx: int, version: str | None = None,
         **kw: object) -> EngineResult:
    """vLLM's profile (`run` with Engine.vllm)."""
    return run(Engine.vllm, model, gpu, ctx, version, **kw)
