"""SGLang has no integer KV cache: `--kv-cache-dtype` (server_args.py's argparse choices) takes
auto, fp8_e5m2 and fp8_e4m3, later bf16/bfloat16, mxfp8 and 4-bit floats (fp4_e2m1, nvfp4,
fp4_mx_block16), never int8 or int4, in every wheel read from 0.3.0 to 0.5.23
(kvplan/check/engine_flags/sglang_releases.json "choices", generated from the wheels by
benchmarks/extract_sglang_flags.py; tests/engines/test_sglang_kv_dtype.py holds this module to
that table). Until this refusal a stated `--kv-dtype int4 --engine sglang` was planned as an
int4 pool SGLang cannot allocate, in silence (seen at stop 43)."""

from __future__ import annotations

from kvplan.units import DType

# the newest release read and its values (sglang_releases.json, "--kv-cache-dtype" from 0.5.21)
NEWEST_READ = "0.5.23"
NEWEST_VALUES = ("auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4",
                 "fp4_mx_block16")
INTEGER = (DType.int8, DType.int4)


def int_cache_refusal(kv_dtype: DType) -> str | None:
    """Why SGLang cannot plan this cache dtype (None: it can)."""
    if kv_dtype not in INTEGER:
        return None
    return (f"SGLang has no {kv_dtype.value} KV cache: its --kv-cache-dtype takes "
            f"{', '.join(NEWEST_VALUES)} in {NEWEST_READ} (server_args.py's choices; no integer "
            "cache in any release read, 0.3.0-0.5.23); plan --kv-dtype fp8 or a 16-bit cache, "
            "or --engine ideal for the plain arithmetic")
