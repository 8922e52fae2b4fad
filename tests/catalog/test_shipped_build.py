"""model_specs/ is exactly what tests/catalog/build_shipped_specs.py writes.

The build turns each fixture config.json (tests/assets/hf_configs/) through `kvplan import`'s code
and adds the curated provenance of tests/catalog/catalog_sources.py. A shipped file edited by
hand drifts from its source: three had (granite-3.1-8b, llama-4-scout, llama-4-maverick) until
their curated words moved into catalog_sources.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalog import build_shipped_specs as build

SHIPPED = Path(__file__).resolve().parents[2] / "model_specs"


def test_every_shipped_spec_is_what_the_build_writes(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "OUT", tmp_path)
    build.main()
    built = {p.name: p.read_text() for p in tmp_path.glob("*.yaml")}
    shipped = {p.name: p.read_text() for p in SHIPPED.glob("*.yaml")}
    assert sorted(built) == sorted(shipped)
    # task h80catalog: mistral-small-3.1-24b; h91catalog: 5 more; catalog12: qwen2.5-32b-instruct
    assert len(built) == 108
    drifted = sorted(name for name in built if built[name] != shipped[name])
    assert drifted == [], f"rerun python -m tests.catalog.build_shipped_specs: {drifted}"
