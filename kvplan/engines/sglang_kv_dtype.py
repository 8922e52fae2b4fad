"""SGLang has no integer KV cache: `--kv-cache-dtype` (server_args.py's argparse choices) takes
auto, fp8_e5m2 and fp8_e4m3, later bf16/bfloat16, mxfp8 and 4-bit floats (fp4_e2m1, nvfp4,
fp4_mx_block16), never int8 or int4, in every wheel read from 0.3.0 to 0.5.23
(kvplan/check/engine_flags/sglang_releases.json "choices", generated from the wheels by
benchmarks/extract_sglang_flags.py). Until this refusal a stated `--kv-dtype int4 --engine
sglang` was planned as an int4 pool SGLang cannot allocate, in silence (seen at stop 43).

The values the refusal names are read from that table, the one source (task vllmleft: they were
a copy of it here); tests/engines/test_sglang_kv_dtype.py holds the table's lists to the wheels
(0.3.0 server_args.py:204, 0.5.23 arg_groups/fields/model.py:209-218)."""

from __future__ import annotations

from kvplan.units import DType

INTEGER = (DType.int8, DType.int4)
OPTION = "--kv-cache-dtype"


def newest_read() -> tuple[str, tuple[str, ...], str]:
    """(the newest SGLang release read, its --kv-cache-dtype values, the oldest release read),
    from the option table generated from the wheels (kvplan.check.engine_flags)."""
    from kvplan.check.manifests.release_options import history

    read = history("sglang")
    assert read is not None  # SGLang's options are read release by release
    newest = read.releases[-1]
    values = read.choices(newest, OPTION)
    assert values is not None, f"{OPTION} choices missing for SGLang {newest}"
    return newest, values, read.releases[0]


def int_cache_refusal(kv_dtype: DType) -> str | None:
    """Why SGLang cannot plan this cache dtype (None: it can)."""
    if kv_dtype not in INTEGER:
        return None
    newest, values, oldest = newest_read()
    return (f"SGLang has no {kv_dtype.value} KV cache: its {OPTION} takes "
            f"{', '.join(values)} in {newest} (server_args.py's choices; no integer "
            f"cache in any release read, {oldest}-{newest}); plan --kv-dtype fp8 or a 16-bit "
            "cache, or --engine ideal for the plain arithmetic")
