"""docs/specs.md's type column in words: a list field's item type and bounds, and its minimum
length counted in items (task h92docs: weight_block_size printed as
'list of typing.Annotated[int, FieldInfo(...)] (at least 2 character(s))')."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from kvplan.render.schema_doc import schema_table, schema_tables


def test_weight_block_size_reads_as_a_list_of_whole_numbers() -> None:
    rows = schema_tables()["model"].splitlines()
    row = next(r for r in rows if r.startswith("| `weight_block_size` |"))
    assert row.split(" | ")[1] == "list of integer, each ≥ 1 (at least 2 items)"


def test_text_keeps_characters_and_a_plain_list_has_no_bounds() -> None:
    class Probe(BaseModel):
        name: Annotated[str, Field(min_length=3)]
        tags: list[str] = Field(default_factory=list)

    table = schema_table(Probe).splitlines()
    assert table[2].split(" | ")[1] == "text (at least 3 character(s))"
    assert table[3].split(" | ")[1] == "list of text"
