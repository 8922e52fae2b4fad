"""The plain records (kvplan.plain) against their pydantic validators: the same fields, in the
same order, with the same defaults; for the deployment, the same types and bounds (the fast
acceptor's table); and, for every shipped spec, the same values, stated fields and dumps."""

from __future__ import annotations

import copy
import pickle
import types
import typing
from typing import Any

import annotated_types as at
import pytest
from pydantic import BaseModel

from kvplan.deploy import schema as deploy_schema
from kvplan.deploy import validators as deploy_validators
from kvplan.plain import REQUIRED, Factory, Plain, from_model
from kvplan.specs import all_hardware, all_models
from kvplan.specs import schema as spec_schema
from kvplan.specs import validators as spec_validators
from kvplan.specs.loader import read_yaml

PAIRS = [(cls, getattr(spec_validators, cls.__name__)) for cls in spec_schema.SPEC_CLASSES] + [
    (cls, getattr(deploy_validators, name)) for name, cls in deploy_schema.RECORDS.items()]


def _default(plain_default: Any) -> Any:
    if type(plain_default) is Factory:
        return plain_default.make()
    return plain_default


@pytest.mark.parametrize(("plain", "validator"), PAIRS, ids=[p.__name__ for p, _ in PAIRS])
def test_same_fields_in_order_with_the_same_defaults(plain: type[Plain], validator: Any) -> None:
    assert list(plain._FIELDS) == list(validator.model_fields)
    assert plain.__slots__ == tuple(validator.model_fields)
    assert plain.validator() is validator
    for name, info in validator.model_fields.items():
        ours = plain._FIELDS[name]
        if info.is_required():
            assert ours is REQUIRED, name
        elif info.default_factory is not None:
            assert type(ours) is Factory and ours.make() == info.default_factory(), name
        elif isinstance(info.default, BaseModel):
            assert ours == from_model(info.default), name
            assert ours.model_fields_set == info.default.model_fields_set == set(), name
        else:
            assert ours == info.default and type(ours) is type(info.default), name


def _describe(annotation: Any, metadata: list[Any]) -> tuple[Any, ...]:
    """A pydantic field's annotation and constraints in the fast acceptor's terms."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        assert len(args) == 1
        return ("optional", _describe(args[0], metadata))
    if origin is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        inner = list(metadata)
        for item in extra:
            inner.extend(getattr(item, "metadata", None) or [item])
        return _describe(base, inner)
    if origin is typing.Literal:
        return ("literal", frozenset(typing.get_args(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation.__name__)
    bounds = {"gt": None, "ge": None, "lt": None, "le": None}
    for item in metadata:
        for kind in (at.Gt, at.Ge, at.Lt, at.Le):
            if isinstance(item, kind):
                key = kind.__name__.lower()
                bounds[key] = getattr(item, key)
    kind = {int: "int", float: "float", str: "str", bool: "bool"}[annotation]
    if kind in ("str", "bool"):
        assert bounds == dict.fromkeys(bounds), f"bounds on a {kind}"
        return (kind,)
    if kind == "int":
        assert bounds["lt"] is None
        return ("int", bounds["gt"], bounds["ge"], None, bounds["le"])
    return ("float", bounds["gt"], bounds["ge"], bounds["lt"], bounds["le"])


@pytest.mark.parametrize("name", list(deploy_schema.RECORDS))
def test_fast_acceptor_table_states_each_validator_field(name: str) -> None:
    plain = deploy_schema.RECORDS[name]
    validator = getattr(deploy_validators, name)
    assert list(plain.TYPES) == list(validator.model_fields)  # type: ignore[attr-defined]
    for field, info in validator.model_fields.items():
        assert plain.TYPES[field] == _describe(info.annotation, info.metadata), field  # type: ignore[attr-defined]


def test_int_fields_refuse_true_in_the_validator_too() -> None:
    """The acceptor takes only a true int for an int field: so must the validator (NoBool)."""
    for name, plain in deploy_schema.RECORDS.items():
        for field, kind in plain.TYPES.items():  # type: ignore[attr-defined]
            inner = kind[1] if kind[0] == "optional" else kind
            if inner[0] == "int":
                info = getattr(deploy_validators, name).model_fields[field]
                assert "_not_bool" in repr(info.annotation) + repr(info.metadata), field


def _specs() -> list[Any]:
    return list(all_models()[0]) + list(all_hardware()[0])


def _typed(value: Any) -> Any:
    """A dump with every value's type beside it: a str-valued enum equals its string, so `==`
    alone would not see an enum left unconverted in a JSON dump."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("spec", _specs(), ids=lambda s: s.name)
def test_each_shipped_spec_is_the_validators_object(spec: Plain) -> None:
    """From the index (no pydantic) and validated from its file: the same record."""
    kind = "model_specs" if isinstance(spec, spec_schema.ModelSpec) else "hardware_specs"
    from kvplan.specs.loader import catalog

    data = read_yaml(catalog(kind)[spec.name].path)
    validated = type(spec).validator().model_validate(data)
    assert spec == from_model(validated) == type(spec).model_validate(data)
    assert spec.model_fields_set == validated.model_fields_set
    for mode in ("python", "json"):
        for unset in (False, True):
            for none in (False, True):
                assert _typed(spec.model_dump(mode=mode, exclude_unset=unset,
                                              exclude_none=none)) == _typed(
                    validated.model_dump(mode=mode, exclude_unset=unset, exclude_none=none))
    assert spec.model_dump_json() == validated.model_dump_json()  # byte for byte


def test_plain_records_behave_as_frozen_pydantic_models() -> None:
    spec = all_models()[0][0]
    with pytest.raises(AttributeError, match="frozen"):
        spec.num_layers = 1  # type: ignore[misc]
    cut = spec.model_copy(update={"num_layers": 2})
    assert cut.num_layers == 2 and spec.num_layers != 2
    assert cut.model_fields_set == spec.model_fields_set | {"num_layers"}
    for twin in (copy.copy(spec), copy.deepcopy(spec), pickle.loads(pickle.dumps(spec))):
        assert twin == spec and twin.model_fields_set == spec.model_fields_set
    assert spec != cut and spec.attention == copy.deepcopy(spec.attention)
    assert repr(spec).startswith(f"ModelSpec(name={spec.name!r}, ")
    assert spec_schema.MoE.model_construct(num_experts=8, experts_per_token=2).model_dump() == {
        "num_experts": 8, "experts_per_token": 2, "moe_intermediate_size": None,
        "num_shared_experts": 0, "first_dense_layers": 0, "expert_quant": None}


def test_constructor_validates_through_pydantic() -> None:
    from pydantic_core import ValidationError

    with pytest.raises(ValidationError, match="greater than 0"):
        spec_schema.MoE(num_experts=0, experts_per_token=1)
    moe = spec_schema.MoE(num_experts=8, experts_per_token=2)
    assert type(moe) is spec_schema.MoE and moe.model_fields_set == {"num_experts",
                                                                      "experts_per_token"}


def test_defaults_are_made_fresh_for_each_record() -> None:
    """A default_factory's value, new for every record (never the factory, never shared)."""
    one = spec_schema.Attention.model_construct(num_kv_heads=8, head_dim=128)
    two = spec_schema.Attention.model_construct(num_kv_heads=8, head_dim=128)
    assert one.layer_pattern == [spec_schema.LayerKind.full]
    assert one.layer_pattern is not two.layer_pattern
    assert one.model_fields_set == {"num_kv_heads", "head_dim"}
    gpu = spec_schema.HardwareSpec.model_construct(name="x")
    assert gpu.aliases == [] and gpu.device_names == [] and gpu.gpus_per_node == 8
    assert gpu.model_dump(include={"name", "gpus_per_node"}) == {"name": "x", "gpus_per_node": 8}
    assert "memory_bytes" not in gpu.model_dump()  # a required field not given is absent
    assert gpu.model_dump(exclude={"aliases", "device_names"}, exclude_unset=True) == {
        "name": "x"}


def test_a_plain_record_inside_data_is_validated_as_the_fields_it_states() -> None:
    """`ModelSpec(attention=Attention(...), aliases=[ModelAlias(...)])`, as the importer
    builds specs: the nested records keep their stated fields, as pydantic keeps an instance's."""
    spec = all_models()[0][0]
    att = spec_schema.Attention(num_kv_heads=spec.attention.num_kv_heads,
                                head_dim=spec.attention.head_dim)
    alias = spec_schema.ModelAlias(id="someone/some-variant", source="a config.json, somewhere")
    values = {**dict(spec._items()), "attention": att, "aliases": [alias]}
    rebuilt = spec_schema.ModelSpec(**values)
    assert rebuilt.attention == att and rebuilt.attention.model_fields_set == {
        "num_kv_heads", "head_dim"}
    assert rebuilt.aliases == [alias] and type(rebuilt.aliases[0]) is spec_schema.ModelAlias
    assert "layer_pattern" not in rebuilt.model_dump(exclude_unset=True)["attention"]


def test_hash_follows_equality() -> None:
    moe = spec_schema.MoE.model_construct(num_experts=8, experts_per_token=2)
    same = spec_schema.MoE(num_experts=8, experts_per_token=2)
    other = spec_schema.MoE.model_construct(num_experts=8, experts_per_token=1)
    assert moe == same and hash(moe) == hash(same)
    assert moe != other and hash(moe) != hash(other)
    assert {moe, same, other} == {moe, other}
    assert moe != 8 and (moe == 8) is False


def test_a_factory_made_at_run_time_makes_its_default() -> None:
    assert Factory(list).make is list and Factory(list).make() == []
    assert repr(REQUIRED) == "REQUIRED"  # as the docs of a field's default print it


def test_json_dump_is_pydantics_for_text_beyond_ascii() -> None:
    alias = spec_schema.ModelAlias(id="someone/variant", source="read in a notebook: 8 × 128, ü")
    assert alias.model_dump_json() == alias.validator().model_validate(
        alias.model_dump()).model_dump_json()
    assert "×" in alias.model_dump_json()
