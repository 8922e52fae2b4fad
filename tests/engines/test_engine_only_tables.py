"""Two tables say which engine reads an engine-only setting: kvplan.engines.settings.ENGINE_ONLY
(the profile's EngineSettings fields; a setting given for another engine is refused there) and
kvplan.deploy.engine_keys.ENGINE_KEYS (the kvplan/v1 record's engine.<key>; refused or noted as
unused before any profile runs). They stay two because kvplan.deploy must not import
kvplan.engines (`kvplan size` without --engine loads no engine module: tests/test_imports.py)
and their vocabularies differ (cpu_offload_gb is the record's, cpu_offload_bytes the profile's).
Where they name the same setting they must agree, or a flag would be refused by one layer and
read by the other (the review at stop 43 found the two written side by side)."""

from __future__ import annotations

from kvplan.deploy.engine_keys import ENGINE_KEYS
from kvplan.engines.settings import ENGINE_ONLY

# the record's key -> the profile's field, where the two spell one setting differently
RENAMED = {
    "cpu_offload_gb": "cpu_offload_bytes",
    "max_total_tokens": "max_tokens",  # SGLang --max-total-tokens
    "speculative_model": "draft_model",
}


def test_a_setting_both_tables_name_is_read_by_the_same_engines() -> None:
    pairs = {key: key for key in set(ENGINE_ONLY) & set(ENGINE_KEYS)} | RENAMED
    assert len(pairs) == 28
    for key, field in sorted(pairs.items()):
        record = set(ENGINE_KEYS[key])
        profile = set(ENGINE_ONLY[field])
        assert record <= profile, (key, field, record, profile)
