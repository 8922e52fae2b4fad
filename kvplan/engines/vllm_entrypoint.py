"""vLLM's entrypoint: `vllm serve` (the OpenAI API server) or the offline `LLM(...)` class.

vLLM's EngineArgs picks the default max_num_batched_tokens by the usage context the engine is
started from (UsageContext.OPENAI_API_SERVER for `vllm serve` / api_server, LLM_CLASS for
`vllm.LLM(...)`: vllm/entrypoints/llm.py passes usage_context=UsageContext.LLM_CLASS, 0.22.0:350,
0.33.0:342). The defaults, read in the released wheels (pip download vllm==X --no-deps;
vllm/engine/arg_utils.py, the function and line that holds the LLM_CLASS 16,384 entry):

  release     function (line)                      GPU class              LLM class     serve
  0.6-0.7 V0  none: V0 reads no usage context ("_override_v1_engine_args" runs only under
              VLLM_USE_V1: 0.6.5:997-1000, 0.7.3:1099-1100): max(max_model_len, 2048), 256 both
  0.8.0-0.8.3 _set_default_args_v1 (0.8.2 1762; 1796; 0.8.3 1647; 1669)
                                                   name has h100/h200     16,384/1,024  8,192/1,024
                                                   other                  8,192/1,024   2,048/1,024
  0.8.4       _set_default_args_v1 (1669-1682)     name has h100/h200     16,384/1,024  8,192/1,024
                                                   other                  8,192/256     2,048/256
  0.8.5       _set_default_args_v1 (1565; 1599)    >= 70 GiB              16,384/1,024  8,192/1,024
                                                   other                  8,192/256     2,048/256
  0.9.0-0.27  _set_default_args_v1 (0.9.0:1498, 0.10.0:1587), _set_default_args (0.11.0:1608),
              get_batch_defaults (0.12.0:1830, 0.16.0:1880, 0.17.1:1977, 0.22.0:2314,
              0.25.0:2429, 0.27.0:2547)
                                                   >= 70 GiB, not A100    16,384/1,024  8,192/1,024
                                                   other                  8,192/256     2,048/256
  0.28-0.34   get_batch_defaults (0.28.0:2585, 0.29.0:2701, 0.33.0:2976, 0.34.0:2977)
                                                   >= 160 GiB             16,384/1,024  16,384/1,024
                                                   >= 70 GiB, not A100    16,384/1,024  8,192/1,024
                                                   (0.33 on: and not GB10)
                                                   other                  8,192/256     2,048/256

(tokens/sequences.) In every GPU row the two contexts share max_num_seqs and differ only in the
batched tokens, so kvplan derives the LLM class's figure from the serve branch it already picks
(OFFLINE_TOKENS). TPU (batched tokens by chip: LLM 2,048/1,024/512, serve 1,024/512/256 on
v6e/v5e/v5p) and CPU (LLM 4,096 x world size tokens and 256 x world size sequences, serve 2,048 x
and 128 x; 0.9.2: 4,096/128 and 2,048/32) are special-cased too; kvplan models neither platform.
ROCm has no branch of its own (MI300X follows the memory rule). Other usage contexts (an engine
built directly from AsyncEngineArgs, ENGINE_CONTEXT) take neither table; kvplan does not model
them. The 0.8 rows are modelled since task h36v083 (vllm_series.batching_defaults; before it
kvplan took the 0.9 rule for the whole 0.8 series; see docs/engines.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines.interface import EngineResult

ENTRYPOINTS = ("serve", "offline")
DEFAULT_ENTRYPOINT = "serve"
# `vllm serve`'s default batched tokens -> the LLM class's, per GPU branch (table above)
OFFLINE_TOKENS = {2048: 8192, 8192: 16384, 16384: 16384}


def entrypoint_refusal(value: str | None) -> str | None:
    if value is None or value in ENTRYPOINTS:
        return None
    return f"entrypoint must be one of {', '.join(ENTRYPOINTS)}, got {value!r}"


def offline_defaults(serve: tuple[int, int], v1: bool, entrypoint: str | None) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) the entrypoint picks, from serve's pair."""
    if entrypoint != "offline" or not v1:
        return serve
    tokens, seqs = serve
    return OFFLINE_TOKENS.get(tokens, tokens), seqs


def entrypoint_note(entrypoint: str | None, v1: bool, serve: tuple[int, int],
                    stated_batched: int | None) -> str | None:
    """Which defaults a stated entrypoint applied and why, for `kvplan explain` (None where the
    record is silent: see unstated_default)."""
    if entrypoint is None:
        return None
    if stated_batched is not None:  # both contexts default to the same max_num_seqs
        return (f"entrypoint {entrypoint}: max_num_batched_tokens is stated and both entrypoints "
                "default to the same max_num_seqs, so it moves nothing")
    if not v1:
        if entrypoint == "serve":
            return None
        return ("entrypoint offline: the V0 engine picks the same defaults for the LLM class as "
                "for `vllm serve` (it reads no usage context), so it moves nothing")
    offline = offline_defaults(serve, v1, "offline")
    if entrypoint == "offline":
        return (f"entrypoint offline: the LLM class's defaults (arg_utils.py, "
                f"UsageContext.LLM_CLASS): {offline[0]:,} batched tokens and {offline[1]:,} "
                f"sequences on this GPU; `vllm serve` would profile {serve[0]:,} and {serve[1]:,}")
    return (f"entrypoint serve: `vllm serve`'s defaults (arg_utils.py, UsageContext."
            f"OPENAI_API_SERVER): {serve[0]:,} batched tokens; the offline LLM class would "
            f"profile {offline[0]:,}")


def unstated_default(serve: tuple[int, int], v1: bool) -> str | None:
    """Why serve is planned where the record is silent and the LLM class would profile another
    batch (kvplan explain's record row), or None where both pick the same."""
    offline = offline_defaults(serve, v1, "offline")
    if offline == serve:
        return None
    return (f"`vllm serve`, {serve[0]:,} batched tokens (the offline LLM class "
            f"{offline[0]:,}: state offline)")


def record_default(stated: set[str], result: EngineResult) -> tuple[str, str, str] | None:
    """kvplan explain's record row for an unstated entrypoint: (field, "serve", origin), where
    the record states neither it nor the batch and the LLM class would profile another."""
    from kvplan.engines.vllm import batching_defaults, flavour

    if stated & {"engine.entrypoint", "engine.max_num_batched_tokens"}:
        return None
    fl = flavour(result.engine_version)
    why = unstated_default(batching_defaults(result.size.request, fl, result.memory_bytes), fl.v1)
    return None if why is None else ("engine.entrypoint", DEFAULT_ENTRYPOINT, f"default: {why}")


def moot_reason(version: str | None, req: SizeRequest, stated_batched: int | None) -> str | None:
    """Why a stated `offline` cannot change this plan (kvplan.plan.moot refuses the flag), or
    None where the LLM class profiles another batch than `vllm serve`."""
    from kvplan.engines.vllm import batching_defaults, flavour

    fl = flavour(version)
    if not fl.v1:
        return (f"vLLM {fl.version} runs the V0 engine, which reads no usage context: the LLM "
                "class profiles the same batch as `vllm serve`; drop the option")
    if stated_batched is not None:
        return ("max_num_batched_tokens is stated, and both entrypoints default to the same "
                "max_num_seqs; drop the option")
    serve = batching_defaults(req, fl, req.gpu.memory_bytes)
    if offline_defaults(serve, True, "offline") == serve:
        return (f"on this GPU vLLM {fl.version} gives the LLM class and `vllm serve` the same "
                f"{serve[0]:,} batched tokens and {serve[1]:,} sequences; drop the option")
    return None
