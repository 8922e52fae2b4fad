"""A fix's flags offered only as the stated release takes them (task h71sglfix).

A FAIL's fix names engine flags (kvplan.check.manifests.option_fields.FLAG_NAMES: the tensor
size, the context, the running sequences, an 8-bit cache). On a release whose options were read
one by one (SGLang's, kvplan.check.engine_flags.history), the cache's value is one the release's
--kv-cache-dtype takes (SGLang 0.3.0 to 0.4.1.post5 take fp8_e5m2, not fp8_e4m3, which came in
0.4.1.post6), and a flag the release lacks is said with the release that adds it. vLLM's
releases are known where kvplan.engines.vllm_flag_versions reads them: --kv-cache-dtype fp8 from
0.4.1, fp8_e5m2 from 0.3.0 to 0.4.0.post1, no such option before 0.3.0.
"""

from __future__ import annotations

from kvplan.engine_traits import traits

KV_OPTION = "--kv-cache-dtype"


def kv_value(engine: str, release: str | None, usual: str) -> tuple[str, str] | None:
    """(the 8-bit --kv-cache-dtype value a fix offers on `release`, why it is not `usual` or
    ''): `usual` where the release takes it, else an 8-bit value it takes, saying why; where it
    takes none, `usual` with what the release lacks and the release that adds it. None where
    kvplan knows no release of the engine (no release stated, or the engine's not read)."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.check.manifests.release_options import placed

    table = OPTION_TABLES.get(engine)
    name = table.program if table is not None else engine
    where = placed(engine, release, False)
    read = table.history if table is not None else None
    if read is not None and where is not None and where.kind in ("read", "between"):
        assert where.below is not None
        said = [read.choices(r, KV_OPTION) or () for r in (where.below, where.above)
                if r is not None and (r == where.below or where.kind == "between")]
        takes = [v for v in said[0] if all(v in s for s in said)]
        first = read.first_with_choice(KV_OPTION, usual)
        eight = next((v for v in takes if v.startswith("fp8")), None)
        if usual in takes:
            return usual, ""
        if eight is not None:
            return eight, (f" ({name} {where.release} has no {usual}, which came in {first}; "
                           f"{eight} is 8 bits a value too)")
        return usual, (f" (serve {name} {first} or newer: {name} {where.release} takes no "
                       "8-bit cache dtype)")
    # engines whose releases are not read one by one: their module knows the values
    # (EngineTraits.kv_fp8_value: vLLM's, kvplan.engines.vllm_flag_versions)
    value_of = traits(engine).hook("kv_fp8_value")
    if value_of is None or release is None:
        return None
    value, first = value_of(release)
    if value == usual:
        return usual, ""
    if value is not None:
        return value, (f" ({name} {release} has no {usual}, which came in {first}; {value} is "
                       "8 bits a value too)")
    return usual, f" (serve {name} {first} or newer: {name} {release} has no {KV_OPTION})"


def lacked(engine: str, release: str | None, flag: str) -> str | None:
    """Where the stated release (a read one) lacks `flag`: '(SGLang X has no FLAG: it came in
    Y)'; else None."""
    from kvplan.check.engine_flags import OPTION_TABLES
    from kvplan.check.manifests.release_options import placed

    where = placed(engine, release, False)
    table = OPTION_TABLES.get(engine)
    if where is None or where.kind != "read" or flag in where.flags or table is None:
        return None
    read = table.history
    assert read is not None and where.below is not None
    came = read.added_after(where.below, flag)
    then = f"it came in {came}" if came is not None else "no release read has it"
    return f"({read.program} {where.release} has no {flag}: {then})"
