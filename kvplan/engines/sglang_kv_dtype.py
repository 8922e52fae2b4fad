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


# --speculative-draft-kv-cache-dtype (task kvspell): SGLang 0.5.18 on (sglang_releases.json steps;
# server_args.py:2187-2200 in 0.5.18, arg_groups/fields/spec.py:151-164 in 0.5.23, the same
# choices). The draft worker's configure_kv_cache_dtype takes it in place of --kv-cache-dtype
# (mem_cache/kv_cache_dtype.py:33-35 in 0.5.18, :45-48 in 0.5.23; model_runner.py:1328 in 0.5.18
# hands it over); unset, the draft follows --kv-cache-dtype, which is what kvplan's draft pool
# (kvplan.engines.sglang_spec: the draft's own shape at the target's cache precision) books.
DRAFT_OPTION = "--speculative-draft-kv-cache-dtype"
DRAFT_CHOICES = ("auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16")


def _same_cache(draft: str, target: str) -> bool:
    """Whether the draft's value resolves as the target's does: the same word, both 16-bit
    bfloat (bf16 / bfloat16), or both auto (each model's own dtype, as unset)."""
    from kvplan.units import parse_dtype

    if draft == target:
        return True
    if "auto" in (draft, target):
        return False
    try:
        return parse_dtype(draft) == parse_dtype(target) and parse_dtype(draft) == DType.bf16
    except ValueError:
        return False


def draft_kv_dtype(draft: str, target: str | None, speculative: bool) -> tuple[str, str]:
    """(what kvplan makes of it: "argparse" (SGLang refuses the value), "not modelled" or
    "applied"; the words) for SGLang's --speculative-draft-kv-cache-dtype `draft` beside
    --kv-cache-dtype `target` (None: unset, auto). Applied where the draft's
    pool then has the target's cache dtype (kvplan's draft pool is booked at that); refused
    where it differs, since SGLang 0.5.18-0.5.22 then budgets the draft's layers at the
    target's per-layer size and allocates its own pool at the other dtype, and 0.5.23 sizes a
    fused draft region by it (mem_cache/kv_cache_configurator.py:1200-1230 in 0.5.23), neither
    of which kvplan models."""
    if draft not in DRAFT_CHOICES:
        return "argparse", (f"the engine refuses it (argparse: invalid choice: {draft!r}): "
                            f"SGLang's {DRAFT_OPTION} takes {', '.join(DRAFT_CHOICES)} "
                            "(server_args.py:2197 in 0.5.18, arg_groups/fields/spec.py:161 in "
                            "0.5.23); give one of them")
    if not speculative:
        return "applied", (f"{DRAFT_OPTION} {draft}: no --speculative-algorithm, so SGLang "
                           "starts no draft worker and allocates no draft pool; it moves nothing")
    said = target or "auto"
    if _same_cache(draft, said):
        return "applied", (f"{DRAFT_OPTION} {draft}: the draft's KV pool in the target's cache "
                           f"dtype (--kv-cache-dtype {said}), as kvplan books it (the draft "
                           "worker's configure_kv_cache_dtype, mem_cache/kv_cache_dtype.py:33-35 "
                           "in 0.5.18)")
    return "not modelled", (
        f"{DRAFT_OPTION} {draft} with --kv-cache-dtype {said}: SGLang allocates the draft's KV "
        f"pool at {draft} (the draft worker's configure_kv_cache_dtype takes it in place of "
        "--kv-cache-dtype, mem_cache/kv_cache_dtype.py:33-35 in 0.5.18) while its memory budget "
        "counts the draft's layers at the target's per-layer size (0.5.18-0.5.22; 0.5.23 sizes "
        "a fused draft region by it, kv_cache_configurator.py:1200-1230): kvplan books the "
        "draft's pool at the target's cache dtype and does not model a different one; drop "
        f"{DRAFT_OPTION} or give it {said}")
