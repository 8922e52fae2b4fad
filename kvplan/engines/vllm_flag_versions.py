"""Which vLLM release first took each engine setting kvplan models, so a setting the stated
version has no flag for is refused (its argparse would stop with "unrecognized arguments")
instead of silently priced as if the flag existed.

Sources: `vllm/engine/arg_utils.py` of each release's wheel on PyPI, read for the flag's
`add_argument` (checked releases: 0.2.5, 0.2.6, 0.3.3, 0.4.0-0.4.2, 0.5.2-0.5.5, 0.6.0, 0.6.3,
0.7.3, 0.8.0, 0.8.2, 0.8.4, 0.8.5, 0.9.0, 0.10.1, 0.10.2, 0.11.0):
- `--enforce-eager`: absent in 0.2.5, present from 0.2.6 (it came with CUDA graphs);
- `--speculative-model`: absent in 0.4.0, present from 0.4.1 (0.4.1-0.8.2 spell it so; from
  0.8.2 `--speculative-config` takes the draft, the only spelling from 0.8.4, and kvplan's
  `speculative_model` stands for either);
- `--cpu-offload-gb`: absent in 0.5.2, present from 0.5.3;
- `--limit-mm-per-prompt`: absent in 0.5.4, present from 0.5.5;
- `--kv-cache-memory-bytes`: absent in 0.10.1, present from 0.10.2;
- `--disable-hybrid-kv-cache-manager`: absent in 0.9.0, present from 0.9.1 (arg_utils.py:856,
  SchedulerConfig.disable_hybrid_kv_cache_manager; task h91fp8block);
- `--enable-extensible-kv-cache` (and its `--no-enable-extensible-kv-cache` /
  `--disable-extensible-kv-cache`): absent in 0.33.0, present from 0.34.0 (arg_utils.py:1413, a
  BooleanOptionalAction on `CacheConfig.enable_extensible_kv_cache`, config/cache.py:395). Both
  of its values are refused before 0.34: either spelling stops the older argparse.

`kvplan check`'s option table (kvplan.check.engine_flags.vllm, made by
benchmarks/extract_vllm_flags.py) holds the newest release's options; 0.33.0 -> 0.34.0 removed
none and added these eleven: --cache-aware-admission-threshold, --cache-aware-admission-window,
--checkpoint-prepare-on-startup (and --no-), --enable-extensible-kv-cache (and
--disable-extensible-kv-cache, --no-enable-extensible-kv-cache),
--headless-client-handshake-address, --max-num-inflight-kv-loads, --shuffle-safetensors-files
(and --no-). Of these only the extensible KV cache moves the pool (kvplan.engines.vllm_extensible).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.engines.interface import parse_version

if TYPE_CHECKING:
    from kvplan.deploy.schema import Engine as EngineBlock

# engine.<key>: (first release with the flag, the flag as vLLM spells it)
FLAG_SINCE: dict[str, tuple[tuple[int, ...], str]] = {
    "enforce_eager": ((0, 2, 6), "--enforce-eager"),
    "speculative_model": ((0, 4, 1), "--speculative-model"),
    "num_speculative_tokens": ((0, 4, 1), "--num-speculative-tokens"),
    "cpu_offload_gb": ((0, 5, 3), "--cpu-offload-gb"),
    "limit_mm_per_prompt": ((0, 5, 5), "--limit-mm-per-prompt"),
    "kv_cache_memory_bytes": ((0, 10, 2), "--kv-cache-memory-bytes"),
    "enable_extensible_kv_cache": ((0, 34, 0), "--enable-extensible-kv-cache"),
    "disable_hybrid_kv_cache_manager": ((0, 9, 1), "--disable-hybrid-kv-cache-manager"),
}
# the 8-bit values of --kv-cache-dtype a fix may offer, each with the first release that takes it
# (task h71sglfix; vllm/engine/arg_utils.py of the wheels on PyPI): the option is absent in 0.2.7
# and has choices ['auto', 'fp8_e5m2'] from 0.3.0 (:127-129) to 0.4.0.post1 (:154-156); 0.4.1 has
# ['auto', 'fp8'] (:176-178), fp8_e5m2 gone there; 0.33.0 still takes fp8 (CacheDType,
# vllm/config/cache.py:44-48). Offered in this order: the first the stated release takes.
KV_FP8_SINCE: dict[str, tuple[tuple[int, ...], tuple[int, ...] | None]] = {
    # value: (first release with it, first release without it again; None: still taken)
    "fp8": ((0, 4, 1), None),
    "fp8_e5m2": ((0, 3, 0), (0, 4, 1)),
}


def kv_fp8_value(version: str | None) -> tuple[str | None, str]:
    """(the --kv-cache-dtype value a fix offers on `version`, or None where none is taken;
    the first release that takes fp8, dotted)."""
    from kvplan.engines.release import read_numbers

    ver = read_numbers(version) if version is not None else None
    first = _dotted(KV_FP8_SINCE["fp8"][0])
    if ver is None:
        return "fp8", first
    ver = ver + (0,) * (3 - len(ver))
    for value, (since, until) in KV_FP8_SINCE.items():
        if ver >= since and (until is None or ver < until):
            return value, first
    return None, first


# boolean keys whose off spelling is new too (--no-X): refused before their release either way
BOTH_WAYS = {"enable_extensible_kv_cache": "--no-enable-extensible-kv-cache"}


def _dotted(ver: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in ver)


def missing_flags(block: EngineBlock) -> list[tuple[str, str]]:
    """(engine.<key>, why) for each set key whose flag the block's vLLM version lacks (none for
    another engine, or when no version is stated: the newest series has them all), and for
    --enable-extensible-kv-cache given with --kv-cache-memory-bytes, which 0.34 refuses."""
    if block.name != "vllm":
        return []
    ver = parse_version(block.version)
    out = []
    if (getattr(block, "enable_extensible_kv_cache", None) is True
            and getattr(block, "kv_cache_memory_bytes", None) is not None
            and (ver is None or ver[:2] >= FLAG_SINCE["enable_extensible_kv_cache"][0][:2])):
        out.append(("engine.enable_extensible_kv_cache", "vLLM 0.34 will not start with "
                    "--enable-extensible-kv-cache and --kv-cache-memory-bytes together "
                    "(\"enable_extensible_kv_cache: it sizes the KV cache from measured memory, "
                    "which kv_cache_memory_bytes overrides\", config/vllm.py:3203-3207, "
                    ":3262-3263 in 0.34.0); drop one"))
    sizes = getattr(block, "cudagraph_capture_sizes", None)
    if sizes is not None:
        from kvplan.engines.vllm_capture import Stated, inconsistency, parse_sizes

        try:
            why = inconsistency(Stated(parse_sizes(sizes), block.max_cudagraph_capture_size),
                                block.max_num_batched_tokens)
        except ValueError:
            why = (f"{sizes!r} is not capture sizes: vLLM takes a list of whole numbers "
                   "(cudagraph_capture_sizes: list[int], config/compilation.py :655 in 0.30.0), "
                   "each a batch of 1 or more tokens; give them comma- or space-separated")
        if why is not None:
            out.append(("engine.cudagraph_capture_sizes", why))
    if ver is None:
        return out
    # --kv-cache-dtype's value as the release takes it: kvplan.engines.kv_spelling (task kvspell)
    ver = ver + (0,) * (3 - len(ver))  # "0.34" is 0.34.0
    for key, (since, flag) in FLAG_SINCE.items():
        value = getattr(block, key, None)
        if value is None or (value is False and key not in BOTH_WAYS) or ver >= since:
            continue
        if value is False:
            flag = BOTH_WAYS[key]
        out.append((f"engine.{key}", f"vLLM {block.version} has no {flag} (first in "
                    f"{_dotted(since)}, vllm/engine/arg_utils.py), so it would not start with "
                    f"it; drop it or serve vLLM {_dotted(since)} or newer"))
    return out
