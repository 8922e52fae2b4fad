"""Options shared by size, fleet and explain, defined once. Each sets one field of the record.

Every option defaults to None (not given): a record built from flags alone starts from the
schema's defaults (and kvplan.plan.record.FLAG_DEFAULTS), a file from its own values. The field
each flag sets is in kvplan.plan.fields.FLAGS (docs/record.md). Engine options stay together
in kvplan.cli.engine_options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kvplan.cli import sections as s
from kvplan.cli.values import non_negative, non_negative_gib, positive, positive_gib, token_count, utilization


def _fraction(value: float | None) -> float | None:
    if value is not None and not 0 < value <= 1:
        raise typer.BadParameter(f"must be in (0, 1], got {value:g} (0.8 means 80%)")
    return value


def _risk(value: float | None) -> float | None:
    if value is not None and not 0 < value < 1:
        raise typer.BadParameter(f"must be between 0 and 1, got {value:g} (0.01 means 1%)")
    return value


def _util(value: float | None) -> float | None:
    return None if value is None else utilization(value)


def _opt(*names: str, help: str, metavar: str, **kw: object) -> typer.models.OptionInfo:  # noqa: A002
    return typer.Option(*names, help=help, metavar=metavar, show_default=False, **kw)  # type: ignore[arg-type, call-overload, unused-ignore]


TargetArg = Annotated[str, typer.Argument(
    metavar="MODEL_OR_FILE", show_default=False,
    help="catalog name (`kvplan models`), spec YAML, config.json or HF folder; or a kvplan/v1 "
    "deployment file (`-` reads one from standard input) or a manifest `kvplan check` reads "
    "(Kubernetes, Helm values, docker-compose, ...), whose fields the options override")]

Gpu = Annotated[str | None, _opt("--gpu", "-g", metavar="GPU[,GPU...]", rich_help_panel=s.GPU,
                                 help="GPU name or alias; a comma list plans each [default: h100]")]
Context = Annotated[str | None, _opt(
    "--context", "-c", metavar="TOKENS[,...]", rich_help_panel=s.MODEL,
    help="max tokens per sequence (engine.max_model_len; 32k = 32,000, 32K = 32,768 as vLLM "
    "reads them) [default: the model's maximum]")]
MaxModelLen = Annotated[int | None, _opt(
    "--max-model-len", metavar="TOKENS", rich_help_panel=s.ENGINE, parser=token_count,
    help="the engine's max_model_len (same as --context; 32k = 32,000, 32K = 32,768 as vLLM reads "
    "them)")]
AvgContext = Annotated[int | None, _opt(
    "--avg-context", metavar="TOKENS", rich_help_panel=s.MODEL, min=1,
    help="tokens a sequence holds on average (paged) [default: the max context]")]
KvDtype = Annotated[str | None, _opt(
    "--kv-dtype", metavar="DTYPE[,...]", rich_help_panel=s.MODEL,
    help="cache precision: fp16, bf16, fp8, int8, int4, auto [default: fp16; a file: auto]")]
WeightDtype = Annotated[str | None, _opt("--weight-dtype", metavar="DTYPE", rich_help_panel=s.MODEL,
                                         help="weight precision: fp32, fp16, bf16, fp8, int8, "
                                         "int4 [default: the model's published dtype]")]
Allocation = Annotated[str | None, _opt(
    "--allocation", "-a", metavar="paged|reserved[,...]", rich_help_panel=s.MODEL,
    help="how the cache is allocated [default: paged]")]
BlockSize = Annotated[int | None, _opt("--block-size", metavar="TOKENS", rich_help_panel=s.MODEL, min=1,
                                       help="tokens per paged block [default: 16]")]
KvGroupSize = Annotated[int | None, _opt("--kv-group-size", metavar="VALUES", rich_help_panel=s.MODEL, min=1,
                                         help="values per fp16 scale, int4 caches [default: 64]")]
Tp = Annotated[str | None, _opt("--tp", metavar="GPUS[,...]", rich_help_panel=s.GPU,
                                help="tensor-parallel GPUs per replica [default: 1]")]
Pp = Annotated[int | None, _opt("--pp", metavar="STAGES", rich_help_panel=s.GPU, min=1,
                                help="pipeline-parallel stages per replica [default: 1]")]
Nodes = Annotated[int | None, _opt("--nodes", metavar="SERVERS", rich_help_panel=s.GPU, min=1,
                                   help="servers one replica spans (needed when --tp exceeds one "
                                   "server's GPUs)")]
MemoryUtilization = Annotated[float | None, _opt(
    "--memory-utilization", metavar="SHARE", rich_help_panel=s.MEMORY, callback=_util,
    help="share of GPU memory the engine may use [default: 0.9; with --engine, the engine's "
    "own: vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM "
    "free_gpu_memory_fraction]")]
ReserveGib = Annotated[float | None, _opt(
    "--reserve-gib", metavar="GIB", rich_help_panel=s.MEMORY, callback=non_negative_gib,
    help="activations + CUDA context [default: 2]")]
KvBudgetGib = Annotated[float | None, _opt(
    "--kv-budget-gib", metavar="GIB", rich_help_panel=s.MEMORY, callback=positive_gib,
    help="state the KV pool per GPU directly")]
SharedPrefix = Annotated[int | None, _opt(
    "--shared-prefix-tokens", metavar="TOKENS", rich_help_panel=s.MODEL, min=0,
    help="system-prompt tokens stored once (turns on prefix caching)")]
# traffic and requirement (fleet, explain)
PeakUsers = Annotated[int | None, _opt("--peak-users", "-n", metavar="N", rich_help_panel=s.TRAFFIC, min=1,
                                       help="peak concurrent conversations")]
Headroom = Annotated[float | None, _opt(
    "--headroom", metavar="SHARE", rich_help_panel=s.TRAFFIC, callback=non_negative,
    help="spare capacity above the peak: 0.2 plans for 20% more")]
MinUsers = Annotated[int | None, _opt("--min-users", metavar="N", rich_help_panel=s.TRAFFIC, min=1,
                                      help="hold at least this many, whatever the peak")]
ArrivalRate = Annotated[float | None, _opt(
    "--arrival-rate", metavar="PER_S", rich_help_panel=s.TRAFFIC, callback=positive,
    help="new conversations per second (with --mean-duration-s)")]
MeanDuration = Annotated[float | None, _opt(
    "--mean-duration-s", metavar="SECONDS", rich_help_panel=s.TRAFFIC, callback=positive,
    help="seconds a conversation stays open on average")]
PeakToMean = Annotated[float | None, _opt(
    "--peak-to-mean", metavar="RATIO", rich_help_panel=s.TRAFFIC, min=1.0,
    help="busiest rate / mean rate [default: 1]")]
P50 = Annotated[int | None, _opt("--context-p50", metavar="TOKENS", rich_help_panel=s.TRAFFIC, min=1,
                                 help="median tokens per conversation")]
P95 = Annotated[int | None, _opt("--context-p95", metavar="TOKENS", rich_help_panel=s.TRAFFIC, min=1,
                                 help="95th-percentile tokens")]
P99 = Annotated[int | None, _opt("--context-p99", metavar="TOKENS", rich_help_panel=s.TRAFFIC, min=1,
                                 help="99th-percentile tokens")]
Sample = Annotated[str | None, _opt(
    "--context-sample", metavar="FILE", rich_help_panel=s.TRAFFIC,
    help="CSV, JSONL or JSON of request token counts (tokens, or prompt_tokens + output_tokens)")]
Risk = Annotated[float | None, _opt(
    "--risk", metavar="PROBABILITY", rich_help_panel=s.TRAFFIC, callback=_risk,
    help="allowed chance the open conversations overflow the pool [default: 0.01]")]
BandwidthEff = Annotated[float | None, _opt(
    "--bandwidth-efficiency", metavar="SHARE", rich_help_panel=s.SPEED, callback=_fraction,
    help="share of peak memory bandwidth decode achieves [default: 1]")]
FlopsEff = Annotated[float | None, _opt(
    "--flops-efficiency", metavar="SHARE", rich_help_panel=s.SPEED, callback=_fraction,
    help="share of peak BF16 FLOP/s prefill achieves [default: 1]")]
MinTps = Annotated[float | None, _opt(
    "--min-tokens-per-s-per-user", metavar="TOKENS_PER_S", rich_help_panel=s.SPEED, callback=positive,
    help="decode speed each user must see (SLO)")]
PromptTokens = Annotated[int | None, _opt("--prompt-tokens", metavar="TOKENS", rich_help_panel=s.SPEED, min=1,
                                          help="prompt length for TTFT [default: mean context]")]
PricePerHour = Annotated[list[str] | None, _opt(
    "--price-per-hour", metavar="[GPU=]USD", rich_help_panel=s.COST,
    help="USD per GPU-hour: GPU=USD (repeatable) or USD for the record's GPU")]
Prices = Annotated[str | None, _opt(
    "--prices", metavar="FILE", rich_help_panel=s.COST,
    help="YAML/JSON {gpu: USD} or CSV gpu,price_per_hour_usd (`-`: standard input)")]

# output
Save = Annotated[Path | None, _opt(
    "--save", metavar="FILE", rich_help_panel=s.OUTPUT,
    help="write the planned record as a kvplan/v1 file that `kvplan check` passes")]
AllowNoFit = Annotated[bool, typer.Option(
    "--allow-no-fit", rich_help_panel=s.OUTPUT,
    help="exit 0 even when no plan fits (by default that is a verdict of no: exit code 1)")]
