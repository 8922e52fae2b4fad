"""The sizing options `size` and `fleet` share, defined once, and how they become requests."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated

import typer

from kvplan.capacity import Allocation, SizeRequest, SizeResult, advise, size
from kvplan.capacity.plan import DEFAULT_RESERVE_BYTES
from kvplan.cli.common import int_list, non_negative, positive, split_list, utilization
from kvplan.errors import InputError
from kvplan.specs import all_hardware, load_hardware, load_model
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType, exact, gib_to_bytes, parse_dtype

if TYPE_CHECKING:  # the engine profiles load only when --engine is given
    from kvplan.engines import EngineResult, EngineSettings

ModelArg = Annotated[
    str,
    typer.Argument(metavar="MODEL",
                   help="catalog name (`kvplan models`), spec YAML, config.json or HF folder"),
]
GpuOpt = Annotated[str, typer.Option("--gpu", "-g", help="GPU name or alias; comma-separated")]
ContextOpt = Annotated[
    str | None,
    typer.Option("--context", "-c",
                 help="max tokens per sequence [default: model max]; comma list"),
]
AvgOpt = Annotated[
    int | None,
    typer.Option(help="tokens a sequence holds on average (paged) [default: --context]", min=1),
]
KvDtypeOpt = Annotated[
    str, typer.Option("--kv-dtype", help="cache precision: fp16, bf16, fp8, int8, int4; comma list")
]
WeightDtypeOpt = Annotated[
    str | None, typer.Option("--weight-dtype", help="[default: the model's published dtype]")
]
AllocOpt = Annotated[
    str, typer.Option("--allocation", "-a", help="paged or reserved; comma list")
]
BlockOpt = Annotated[int, typer.Option("--block-size", help="tokens per paged block", min=1)]
GroupOpt = Annotated[
    int, typer.Option("--kv-group-size", help="values per fp16 scale for int4 caches", min=1)
]
TpOpt = Annotated[str, typer.Option("--tp", help="tensor-parallel GPUs per replica; comma list")]
PpOpt = Annotated[int, typer.Option("--pp", help="pipeline-parallel stages per replica", min=1)]
def _utilization_or_default(value: float | None) -> float | None:
    return None if value is None else utilization(value)


UtilOpt = Annotated[
    float | None,
    typer.Option("--memory-utilization",
                 help="share of GPU memory the engine may use [default: 0.9; with --engine, the "
                 "engine's own default: vLLM gpu_memory_utilization, SGLang mem_fraction_static, "
                 "TensorRT-LLM free_gpu_memory_fraction]",
                 callback=_utilization_or_default),
]
EngineOpt = Annotated[
    str | None,
    typer.Option("--engine", "-e",
                 help="account as this engine does: ideal, vllm, sglang, trtllm, transformers"),
]
EngineVersionOpt = Annotated[
    str | None,
    typer.Option("--engine-version",
                 help="engine release where accounting changed (vLLM 0.6.4, 0.10.2, 0.21; "
                 "transformers: dynamic or static cache)"),
]
MaxBatchedOpt = Annotated[
    int | None,
    typer.Option("--max-num-batched-tokens", min=1,
                 help="tokens in one profiling/prefill batch [default: the engine's]"),
]
MaxSeqsOpt = Annotated[
    int | None,
    typer.Option("--max-num-seqs", min=1, help="sequences per batch [default: the engine's]"),
]
MaxModelLenOpt = Annotated[
    int | None,
    typer.Option("--max-model-len", min=1,
                 help="the engine's max_model_len (same as --context; give one of them)"),
]
ReserveOpt = Annotated[
    float | None,
    typer.Option("--reserve-gib", help="activations + CUDA context [default: 2]",
                 callback=non_negative),
]
BudgetOpt = Annotated[
    float | None,
    typer.Option("--kv-budget-gib", help="state the KV pool per GPU directly", callback=positive),
]
PrefixOpt = Annotated[
    int, typer.Option("--shared-prefix-tokens", help="system-prompt tokens stored once", min=0)
]


@dataclass(frozen=True)
class SizingOptions:
    """What the shared options say, before any spec is loaded."""

    gpu: str
    context: str | None
    avg_context: int | None
    kv_dtype: str
    weight_dtype: str | None
    allocation: str
    block_size: int
    kv_group_size: int
    tp: str
    pp: int
    memory_utilization: float | None
    reserve_gib: float | None
    kv_budget_gib: float | None
    shared_prefix_tokens: int
    engine: str | None = None
    engine_version: str | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    max_model_len: int | None = None


def _dtype(text: str) -> DType:
    try:
        return parse_dtype(text)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


def build_requests(model: ModelSpec, o: SizingOptions) -> list[SizeRequest]:
    """One request per combination of the comma-separated options, in a stable order."""
    gpus = [load_hardware(g) for g in split_list(o.gpu, "GPUs")]
    if o.max_model_len is not None and o.context:
        raise InputError("give --context or --max-model-len, not both (they are the same limit)")
    contexts = int_list(o.context, "tokens") if o.context else [
        o.max_model_len or model.max_context_tokens]
    kv_dtypes = [_dtype(d) for d in split_list(o.kv_dtype, "cache precisions")]
    allocations = []
    for a in split_list(o.allocation, "allocations"):
        try:
            allocations.append(Allocation(a.lower()))
        except ValueError:
            raise typer.BadParameter(f"{a!r}: use paged or reserved") from None
    tps = int_list(o.tp, "GPUs")
    weight_dtype = _dtype(o.weight_dtype) if o.weight_dtype else None
    reserve = gib_to_bytes(o.reserve_gib) if o.reserve_gib is not None else DEFAULT_RESERVE_BYTES
    budget = gib_to_bytes(o.kv_budget_gib) if o.kv_budget_gib is not None else None
    out = []
    for gpu, ctx, kv, alloc, tp in itertools.product(gpus, contexts, kv_dtypes, allocations, tps):
        avg = o.avg_context
        if avg is not None and avg > ctx:
            raise InputError(
                f"--avg-context {avg:,} exceeds --context {ctx:,}; a sequence cannot hold more "
                "than its maximum"
            )
        out.append(
            SizeRequest(
                model=model,
                gpu=gpu,
                context_tokens=ctx,
                kv_dtype=kv,
                allocation=alloc,
                avg_context_tokens=avg,
                weight_dtype=weight_dtype,
                block_size_tokens=o.block_size,
                kv_group_size=o.kv_group_size,
                tp=tp,
                pp=o.pp,
                memory_utilization=exact(
                    o.memory_utilization if o.memory_utilization is not None else 0.9),
                reserve_bytes=reserve,
                kv_budget_bytes=budget,
                shared_prefix_tokens=o.shared_prefix_tokens,
            )
        )
    return out


def size_all(requests: list[SizeRequest]) -> list[SizeResult]:
    """Size every request; attach advice to those that hold nothing."""
    results = [size(r) for r in requests]
    if any(not r.fits for r in results):
        catalog, _ = all_hardware()
        results = [advise(r, catalog, size) for r in results]
    return results


def engine_settings(o: SizingOptions) -> EngineSettings | None:
    """The engine flags, or None when --engine was not given (the plain arithmetic)."""
    engine_flags = (o.engine_version, o.max_num_batched_tokens, o.max_num_seqs)
    if o.engine is None:
        if any(v is not None for v in engine_flags):
            raise InputError("--engine-version, --max-num-batched-tokens and --max-num-seqs "
                             "need --engine (vllm, sglang, trtllm or transformers)")
        return None
    from kvplan.engines import EngineSettings, parse_engine

    return EngineSettings(
        engine=parse_engine(o.engine),
        version=o.engine_version,
        memory_fraction=exact(o.memory_utilization) if o.memory_utilization is not None else None,
        max_num_batched_tokens=o.max_num_batched_tokens,
        max_num_seqs=o.max_num_seqs,
    )


def run_all(requests: list[SizeRequest], settings: EngineSettings) -> list[EngineResult]:
    """Size every request as the engine would; attach advice (same engine) to those that fail."""
    from kvplan.engines import run_engine

    results = [run_engine(r, settings) for r in requests]
    if any(not e.size.fits for e in results):
        catalog, _ = all_hardware()

        def sizer(r: SizeRequest) -> SizeResult:
            return run_engine(r, settings).size

        results = [replace(e, size=advise(e.size, catalog, sizer)) for e in results]
    return results


def resolve_model(ref: str) -> ModelSpec:
    return load_model(ref)
