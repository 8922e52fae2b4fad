"""docs/check.md's annotation table lists exactly the kvplan.io/ annotations kvplan reads."""

from __future__ import annotations

import re
from pathlib import Path

from kvplan.check.manifests.side import ANNOTATION_PREFIX, ANNOTATIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "check.md"


def test_the_annotation_table_is_the_code_table() -> None:
    text = DOC.read_text()
    section = text.split("### Annotations", 1)[1].split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| `kvplan\.io/([a-z0-9-]+)` \| `([a-z0-9_.]+)` \|$", section, re.M))
    assert ANNOTATION_PREFIX == "kvplan.io/"
    assert rows == ANNOTATIONS
    assert "tp-transport" in rows and rows["tp-transport"] == "engine.tp_transport"
