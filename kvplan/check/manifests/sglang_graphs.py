"""SGLang 0.5.23's per-phase CUDA-graph options, read as the sglang 0.5.23 wheel resolves them
(srt/arg_groups/fields/exec_.py:606-648; srt/arg_groups/cuda_graph_hook.py parse_cuda_graph_config
:32-102; srt/arg_groups/memory_hook.py handle_gpu_memory_settings and reserve_for_graph_mb).

kvplan plans SGLang's CUDA graphs with one number, the decode graphs' largest batch
(engine.cuda_graph_max_bs: 2 MiB a slot of mem_fraction_static's reserve, memory_hook.py:368):
- `--cuda-graph-max-bs-decode N` (exec_.py:629) sets it (cuda_graph_hook.py:72-73; a stated one
  is not capped at --max-running-requests, memory_hook.py:83 and :182-188): read by the option
  table (kvplan.check.manifests.engine.SGLANG);
- `--cuda-graph-bs-decode B1 B2 ...` (exec_.py:640, a list, nargs="+") sets the decode sizes
  (cuda_graph_hook.py:78-79), and on a GPU handle_gpu_memory_settings then takes
  `max_bs = max(bs)` (memory_hook.py:201-207), whatever max_bs was stated or picked by tier;
- `--cuda-graph-config '{"decode": {...}}'` (exec_.py:606) wins over both, key by key
  (cuda_graph_hook.py:91-96): its decode `bs` (then max(bs)), else its decode `max_bs`.
The prefill options do not move the decode size: `--cuda-graph-max-bs-prefill N` (exec_.py:632;
cuda_graph_hook.py:74-75) and `--cuda-graph-bs-prefill` (exec_.py:644; :80-81) set the prefill
capture sizes, which SGLang otherwise derives from chunked_prefill_size (memory_hook.py:233-268:
generate_prefill_cuda_graph_batch_sizes(max_bs) when no list is given, :265-268; a stated max_bs
is not capped at --max-total-tokens, :253-257 run only without one). reserve_for_graph_mb books
8 MiB a prefill size without MLA (memory_hook.py:384-386; 1.5 GiB flat with MLA, :387-389).
kvplan's SGLang model (kvplan/engines, outside `check`) plans the prefill sizes from the chunk
alone, so these are noted with the sizes and MiB SGLang derives, not booked.
"""

from __future__ import annotations

import json
from typing import Any

from kvplan.check.argv import Parsed
from kvplan.check.manifests.engine import Found

OLD_LIST = "--cuda-graph-bs"  # sglang 0.5.5 server_args.py:3170 (gone from 0.5.20)
DECODE_LIST = "--cuda-graph-bs-decode"
PREFILL_LIST = "--cuda-graph-bs-prefill"
PREFILL_MAX = "--cuda-graph-max-bs-prefill"
CONFIG = "--cuda-graph-config"
PREFILL_MIB = 8  # reserve_for_graph_mb, memory_hook.py:386 (non-MLA)


def _ints(parsed: Parsed, flag: str) -> list[int] | None:
    if flag not in parsed.options:
        return None
    raw, _ = parsed.options[flag]
    values = parsed.several.get(flag) or ([raw] if raw is not None else [])
    return [int(v) for v in values] if values else None


def _config(parsed: Parsed) -> dict[str, Any]:
    if CONFIG not in parsed.options or parsed.options[CONFIG][0] is None:
        return {}
    try:
        data = json.loads(str(parsed.options[CONFIG][0]))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def prefill_sizes(max_bs: int) -> list[int]:
    """generate_prefill_cuda_graph_batch_sizes (cuda_graph_hook.py:480-497): 4..32 by 4,
    48..256 by 16, 288..512 by 32, 576..1024 by 64, 1280..4096 by 256, 4608.. by 512, up to
    max_bs."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256))
             + list(range(4608, max_bs + 1, 512)))
    return [s for s in sizes if s <= max_bs]


def old_list(parsed: Parsed, found: Found, notes: list[str]) -> None:
    """The older releases' `--cuda-graph-bs B1 B2 ...` (sglang 0.5.5 server_args.py:3170,
    nargs="+"): __post_init__ sets cuda_graph_max_bs = max(cuda_graph_bs) whenever the list is
    given (:775-778), over a stated --cuda-graph-max-bs, so kvplan takes the largest and says so
    (task h44checkgaps; until then it was applied without a word)."""
    try:
        sizes = _ints(parsed, OLD_LIST)
    except ValueError:
        return  # not integers: the option reader's problem (kvplan.check.manifests.engine)
    if not sizes:
        return
    stated = parsed.options.get("--cuda-graph-max-bs")
    over = (f"; it replaces --cuda-graph-max-bs {stated[0]}" if stated is not None
            and stated[0] is not None and stated[0].strip() != str(max(sizes)) else "")
    found.put("engine.cuda_graph_max_bs", max(sizes), parsed.options[OLD_LIST][1], OLD_LIST)
    notes.append(f"{OLD_LIST} {' '.join(map(str, sizes))}: SGLang captures decode graphs at "
                 f"{len(sizes)} batch size(s) and sets cuda_graph_max_bs to the largest, "
                 f"{max(sizes):,} (sglang 0.5.5 server_args.py:775-778); kvplan plans the graph "
                 f"reserve with that max batch{over}")


def read_graph_options(parsed: Parsed, found: Found, notes: list[str],
                       problems: list[Any]) -> None:
    """The decode graphs' max batch size from the list and JSON forms, and a note on what the
    prefill options make SGLang reserve (module docstring)."""
    from kvplan.deploy import Problem

    config = _config(parsed)
    decode: dict[str, Any] = config.get("decode") or {}
    prefill: dict[str, Any] = config.get("prefill") or {}
    decode, prefill = (p if isinstance(p, dict) else {} for p in (decode, prefill))
    try:
        decode_list, prefill_list = _ints(parsed, DECODE_LIST), _ints(parsed, PREFILL_LIST)
        prefill_max = _ints(parsed, PREFILL_MAX)
    except ValueError:
        bad = next(f for f in (DECODE_LIST, PREFILL_LIST, PREFILL_MAX) if f in parsed.options)
        problems.append(Problem(bad, "its values are not integers (SGLang parses them with "
                                "int)", parsed.options[bad][1]))
        return
    old_list(parsed, found, notes)
    bs, said = decode_list, DECODE_LIST
    if isinstance(decode.get("bs"), list) and decode["bs"]:
        if not all(isinstance(v, int) for v in decode["bs"]):
            problems.append(Problem(CONFIG, "decode.bs is not a list of integers",
                                    parsed.options[CONFIG][1]))
            return
        bs, said = list(decode["bs"]), f"{CONFIG} decode.bs"
    line = parsed.options[DECODE_LIST if said == DECODE_LIST else CONFIG][1] if bs else None
    if bs:
        stated = found.values.get("engine.cuda_graph_max_bs")
        over = (f"; it replaces {found.names.get('engine.cuda_graph_max_bs')} {stated}"
                if stated is not None and stated != max(bs) else "")
        found.put("engine.cuda_graph_max_bs", max(bs), line or 0, said)
        notes.append(f"{said}: SGLang captures decode graphs at {len(bs)} batch size(s) and "
                     f"takes the largest, {max(bs):,}, as their max batch (sglang 0.5.23 "
                     f"memory_hook.py:201-207){over}")
    elif isinstance(decode.get("max_bs"), int) and decode["max_bs"] > 0:
        found.put("engine.cuda_graph_max_bs", decode["max_bs"], parsed.options[CONFIG][1],
                  f"{CONFIG} decode.max_bs")
    sizes, why = None, ""
    if isinstance(prefill.get("bs"), list) and prefill["bs"] and all(
            isinstance(v, int) for v in prefill["bs"]):
        sizes, why = prefill["bs"], f"{CONFIG} prefill.bs"
    elif prefill_list:
        sizes, why = prefill_list, PREFILL_LIST
    elif isinstance(prefill.get("max_bs"), int):
        sizes = prefill_sizes(prefill["max_bs"])
        why = f"{CONFIG} prefill.max_bs {prefill['max_bs']}"
    elif prefill_max:
        sizes, why = prefill_sizes(prefill_max[0]), f"{PREFILL_MAX} {prefill_max[0]}"
    if sizes is not None:
        notes.append(f"{why}: SGLang captures {len(sizes)} prefill graph size(s) (up to "
                     f"{max(sizes, default=0):,} tokens), {len(sizes) * PREFILL_MIB} MiB of "
                     "mem_fraction_static's reserve without MLA (sglang 0.5.23 memory_hook.py:"
                     "384-386; 1.5 GiB with MLA whatever the sizes); kvplan plans the prefill "
                     "graphs from chunked_prefill_size: not read, so a default "
                     "mem_fraction_static may differ by that reserve (a stated one does not)")
