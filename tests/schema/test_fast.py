"""The fast acceptor (kvplan.deploy.fast) against pydantic, the validator of record.

Sound: whatever it accepts, pydantic accepts too and builds the same records, with the same
fields stated. Complete where it matters: a document of exactly typed values that pydantic
accepts, it accepts (so `size` and most files never load pydantic's models). Checked on
generated documents, valid and broken, and on every kvplan/v1 document in the repository."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import ValidationError

from kvplan.deploy import schema
from kvplan.deploy.fast import accept
from kvplan.deploy.yamldoc import read_docs
from kvplan.plain import REQUIRED, Plain, from_model

ROOT = Path(__file__).resolve().parents[2]


def _stated(record: Any) -> Any:
    """Each record's stated fields, all the way down."""
    if not isinstance(record, Plain):
        return record
    return (sorted(record.model_fields_set),
            {k: _stated(getattr(record, k)) for k in record._FIELDS if hasattr(record, k)})


def _pydantic(doc: Any) -> schema.Deployment | None:
    try:
        return from_model(schema.Deployment.validator().model_validate(doc))  # type: ignore[no-any-return]
    except ValidationError:
        return None


def _assert_sound(doc: Any) -> schema.Deployment | None:
    got = accept(doc)
    if got is not None:
        want = _pydantic(doc)
        assert want is not None, f"the acceptor took a document pydantic refuses: {doc!r}"
        assert got == want
        assert _stated(got) == _stated(want)
        assert got.model_dump(mode="json", exclude_unset=True) == want.model_dump(
            mode="json", exclude_unset=True)
    return got


# --- generated documents ------------------------------------------------------------------------
def _number(lo: float | None, hi: float | None, whole: bool) -> st.SearchStrategy[Any]:
    edges = [v for v in (lo, hi) if v is not None]
    near = [e + d for e in edges for d in (-1, 0, 1)] + [0, 1, 2, 8192]
    if whole:
        return st.one_of(st.sampled_from([int(v) for v in near]), st.integers(-10, 10**6))
    return st.one_of(st.sampled_from([float(v) for v in near] + [0.5, 0.9, 1e-9]),
                     st.floats(-10, 10**6, allow_nan=False), st.integers(-10, 10**4))


def _valid(kind: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    tag = kind[0]
    if tag == "optional":
        return st.one_of(st.none(), _valid(kind[1]))
    if tag in ("int", "float"):
        _, gt, ge, lt, le = kind
        return _number(gt if gt is not None else ge, lt if lt is not None else le, tag == "int")
    if tag == "str":
        return st.sampled_from(["llama-3-8b", "h100", "x", "", "0.28.0", "fp8"])
    if tag == "bool":
        return st.booleans()
    if tag == "literal":
        return st.sampled_from(sorted(kind[1]))
    return _document(schema.RECORDS[kind[1]])


ODD = st.sampled_from([True, False, 3.0, "3", "0.9", None, [], {}, float("nan"), float("inf"),
                       -1, 0, 10**30, 2**53 + 1, "paged ", b"x"])


@st.composite
def _document(draw: Any, cls: type[Plain], odd: bool = False) -> dict[Any, Any]:
    doc: dict[Any, Any] = {}
    for name, default in cls._FIELDS.items():
        if default is not REQUIRED and not draw(st.booleans()):
            continue  # an optional field left out
        if default is REQUIRED and odd and draw(st.integers(0, 15)) == 0:
            continue  # a required field missing
        kind = cls.TYPES[name]  # type: ignore[attr-defined]
        bad = odd and draw(st.integers(0, 5)) == 0
        doc[name] = draw(ODD if bad else _valid(kind))
    if odd and draw(st.integers(0, 10)) == 0:
        doc[draw(st.sampled_from(["extra", "gpu_memory_util", 3]))] = 1
    return doc


def _deployment(odd: bool) -> st.SearchStrategy[dict[Any, Any]]:
    return _document(schema.Deployment, odd).map(  # type: ignore[call-arg]
        lambda d: {**d, "apiVersion": schema.API_VERSION} if "apiVersion" in d else d)


@given(_deployment(odd=True))
def test_whatever_it_accepts_pydantic_builds_the_same(doc: dict[Any, Any]) -> None:
    _assert_sound(doc)


def _exact(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_exact(v) for v in value.values())
    return not (isinstance(value, float) and not math.isfinite(value))


@given(_deployment(odd=False))
def test_an_exactly_typed_valid_document_is_accepted_without_pydantic(doc: dict[Any, Any]) -> None:
    got = _assert_sound(doc)
    if _pydantic(doc) is not None and _exact(doc):
        assert got is not None, f"left to pydantic although plainly valid: {doc!r}"


# --- the repository's own documents ---------------------------------------------------------------
def _kvplan_documents() -> list[tuple[str, Any]]:
    out = []
    for folder in ("examples", "tests/assets", "docs"):
        for path in sorted((ROOT / folder).rglob("*.y*ml")):
            try:
                docs = read_docs(path)
            except Exception:  # noqa: BLE001 - hostile fixtures: not kvplan/v1 documents
                continue
            for i, d in enumerate(docs):
                if isinstance(d.data, dict) and d.data.get("apiVersion") == schema.API_VERSION:
                    out.append((f"{path.relative_to(ROOT)}#{i}", d.data))
    return out


DOCS = _kvplan_documents()


def test_the_repository_holds_kvplan_documents() -> None:
    assert len(DOCS) >= 20


@pytest.mark.parametrize(("where", "data"), DOCS, ids=[w for w, _ in DOCS])
def test_each_repository_document_is_judged_alike(where: str, data: Any) -> None:
    got = _assert_sound(data)
    if _pydantic(data) is not None and _exact(data):
        assert got is not None, where


def test_flag_records_of_size_take_the_fast_path() -> None:
    """`kvplan size MODEL --gpu G ...`: the record its flags make is accepted as it stands."""
    from kvplan.plan.record import build_records

    records = build_records("llama-3-8b", {"gpu": "h100", "tp": 2, "context": 4096,
                                           "memory_utilization": 0.85, "kv_dtype": "fp8"})
    data = records[0].deployment.model_dump(mode="json", exclude_unset=True)
    assert accept(data) == records[0].deployment


# --- every field at its bounds and with every odd value, deterministically ---------------------
_BASE = {"apiVersion": schema.API_VERSION, "name": "x", "model": "llama-3-8b",
         "hardware": {"gpu": "h100"}, "traffic": {}}
_WHERE = {"Deployment": (), "Hardware": ("hardware",), "Parallel": ("parallel",),
          "Engine": ("engine",), "Traffic": ("traffic",), "Requirement": ("requirement",),
          "ContextTokens": ("traffic", "context_tokens")}
_ODD = [True, False, None, "3", "0.5", 3.0, float("nan"), float("inf"), -float("inf"), [], {},
        2**53 + 1, 10**400, -1, 0, "kvplan/v1", "paged", "vllm"]


def _candidates(kind: tuple[Any, ...]) -> list[Any]:
    inner = kind[1] if kind[0] == "optional" else kind
    out = list(_ODD)
    if inner[0] in ("int", "float"):
        for bound in (b for b in inner[1:] if b is not None):
            for d in (-1, 0, 1) if inner[0] == "int" else (-1e-9, 0.0, 1e-9):
                out += [bound + d, int(bound) + (d > 0) - (d < 0)]
    if inner[0] == "literal":
        out += sorted(inner[1])
    return out


def _field_cases() -> list[tuple[str, str, Any]]:
    cases = []
    for name, cls in schema.RECORDS.items():
        for field, kind in cls.TYPES.items():  # type: ignore[attr-defined]
            cases += [(name, field, value) for value in _candidates(kind)]
    return cases


def _doc_with(name: str, field: str, value: Any) -> dict[str, Any]:
    doc = {k: (dict(v) if isinstance(v, dict) else v) for k, v in _BASE.items()}
    holder = doc
    for key in _WHERE[name]:
        holder = holder.setdefault(key, {})
    if name == "ContextTokens" and field != "mean":
        holder["mean"] = 1000
    holder[field] = value
    return doc


def _exactly_typed(kind: tuple[Any, ...], value: Any) -> bool:
    if kind[0] == "optional":
        return value is None or _exactly_typed(kind[1], value)
    if kind[0] == "int":
        return type(value) is int
    if kind[0] == "float":
        return (type(value) is float and math.isfinite(value)) or (
            type(value) is int and abs(value) < 2**1000)
    if kind[0] in ("str", "literal"):
        return type(value) is str
    if kind[0] == "bool":
        return type(value) is bool
    return isinstance(value, dict)


@pytest.mark.parametrize(("name", "field", "value"), _field_cases())
def test_each_field_at_its_bounds_and_with_odd_values(name: str, field: str, value: Any) -> None:
    """Accepted only where pydantic accepts, building the same record; and accepted wherever
    pydantic accepts an exactly typed value."""
    doc = _doc_with(name, field, value)
    got = _assert_sound(doc)
    kind = schema.RECORDS[name].TYPES[field]  # type: ignore[attr-defined]
    if _pydantic(doc) is not None and _exactly_typed(kind, value):
        assert got is not None, (name, field, value)
