"""The harness of the blind rounds of typed model references after the first (typed-r2.tsv, task
h55small; typed-r3.tsv, task h58ids): each row run through `kvplan size`'s resolver (the hub
offline, an empty cache) and `kvplan check` on a one-line `vllm serve` script, and the checks
every round makes of its corpus, its tuned rows and its held-out rows. A round's test module
imports `_offline_hub` (autouse) to run as measured.

Columns: typed, source, form (hub-id, name, path, gguf, served, ollama), expected (a catalog name
or `refused: <reason>`), did_you_mean (the catalog entry a refusal must name, `-` for none),
held_out, first_measured, after. A refusal names its entry when it names the catalog name or one
of the entry's hub ids (a hub-miss "did you mean" gives ids).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model

ASSETS = Path(__file__).parents[1] / "assets" / "model_ids"
Row = dict[str, str]


def rows(name: str) -> tuple[list[Row], list[Row], list[Row]]:
    """A round's rows: all, the tuned ones and the held-out ones."""
    found = list(csv.DictReader((ASSETS / name).open(encoding="utf-8", newline=""),
                                delimiter="\t"))
    return (found, [r for r in found if r["held_out"] == "false"],
            [r for r in found if r["held_out"] == "true"])


@pytest.fixture(autouse=True)
def _offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As measured: the hub offline, an empty cache (so a hub id is refused, never fetched)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _ids(stem: str) -> set[str]:
    from kvplan.specs.loader import MODEL_DIR, aliases_of, catalog

    data = catalog(MODEL_DIR)[stem].data
    assert isinstance(data, dict)
    ids = [data.get("hf_id")] + [a.get("id") for a in aliases_of(data) if isinstance(a, dict)]
    return {stem} | {i for i in ids if isinstance(i, str)}


def names(msg: str, typed: str, stem: str) -> bool:
    """The refusal names the entry (its catalog name or a hub id of it), not only inside the
    echoed reference."""
    text = msg.replace(typed, " ")
    return any(re.search(rf"(?<![\w.-]){re.escape(w)}(?![\w.-])", text) for w in _ids(stem))


def expected(row: Row) -> str:
    return "refused" if row["expected"].startswith("refused") else row["expected"]


def size(typed: str) -> tuple[str, str]:
    """What `kvplan size` resolves (its resolver call, the hub path included)."""
    try:
        return resolve_model(typed).spec.name, ""
    except InputError as err:
        return "refused", str(err)


def check(tmp_path: Path, row: Row) -> tuple[str, str]:
    line = (f"vllm serve /mnt/models --served-model-name {row['typed']}"
            if row["form"] == "served" else f"vllm serve {row['typed']}")
    script = tmp_path / "serve.sh"
    script.write_text(line + "\n")
    (out,) = check_paths([str(script)], default_gpu="h100").outcomes
    return (out.model or "refused"), " ".join(p.message for p in out.problems)


def assert_corpus_shape(all_rows: list[Row], held: list[Row], earlier: tuple[str, ...]) -> None:
    """40 distinct references, 14 held out (at least a third), each with its source and first
    measurement, each refusal with its reason, none typed in an earlier round's file."""
    typed = [r["typed"] for r in all_rows]
    assert len(typed) == len(set(typed)) == 40
    assert len(held) == 14 and 3 * len(held) >= len(all_rows)
    for row in all_rows:
        assert row["source"] and row["first_measured"].startswith("size="), row["typed"]
        if row["expected"].startswith("refused"):
            assert len(row["expected"]) > len("refused: ") + 10, row["typed"]
    old = {r[0] for name in earlier
           for r in csv.reader((ASSETS / name).open(encoding="utf-8"), delimiter="\t")}
    assert not set(typed) & old


def assert_tuned(row: Row, tmp_path: Path) -> None:
    """Through `size` and `check`: the expected outcome, a refusal naming its entry."""
    for got, msg in (size(row["typed"]), check(tmp_path, row)):
        assert got == expected(row), msg
        if got == "refused" and row["did_you_mean"] != "-":
            assert names(msg, row["typed"], row["did_you_mean"]), msg


def held_out_counts(held: list[Row], tmp_path: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Through `size` and `check`, asserting none resolves to another model: how many come out
    as expected, and how many refusals name the entry they should."""
    agree = {"size": 0, "check": 0}
    named = {"size": 0, "check": 0}
    for row in held:
        for how, (got, msg) in (("size", size(row["typed"])), ("check", check(tmp_path, row))):
            assert got in (expected(row), "refused"), (row["typed"], how, got)
            agree[how] += got == expected(row)
            named[how] += (row["did_you_mean"] != "-" and got == "refused"
                           and names(msg, row["typed"], row["did_you_mean"]))
    return agree, named
