"""Every alias is sourced: its own config.json gives the spec's shapes, parameter for parameter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.specs import all_models, load_model
from kvplan.specs.hf_import import import_model
from kvplan.specs.resolve import resolve_model
from kvplan.units import DType
from tests.catalog.catalog_sources import ALIASES

FIXTURES = Path(__file__).parents[1] / "assets" / "hf_configs" / "aliases"
SHAPE = (
    "model_type",
    "num_layers",
    "hidden_size",
    "num_attention_heads",
    "intermediate_size",
    "vocab_size",
    "attention",
    "moe",
    "params_encoder",
    # a variant with more (or fewer) positions is its own spec: the limit bounds the planned context
    "max_context_tokens",
)
PAIRS = [(name, alias, fixture) for name, rows in ALIASES.items() for alias, fixture, _ in rows]


@pytest.mark.parametrize(("name", "alias", "fixture"), PAIRS)
def test_alias_config_has_the_specs_shapes(name: str, alias: str, fixture: str):
    spec = load_model(name)
    # the variant's weights dtype (an AWQ export, a different torch_dtype) is not a shape
    variant = import_model(str(FIXTURES / f"{fixture}.json"), weight=DType.bf16)
    assert variant.model_dump(include=set(SHAPE)) == spec.model_dump(include=set(SHAPE))
    # the same tensors: kvplan's count from the variant's shapes equals the spec's own estimate
    own = import_model(str(Path(FIXTURES).parent / f"{name}.json"), weight=DType.bf16)
    assert variant.params_total == own.params_total
    assert alias in [a.id for a in spec.aliases]


@pytest.mark.parametrize(("name", "alias", "fixture"), PAIRS)
def test_alias_resolves_and_cites_its_fixture(name: str, alias: str, fixture: str):
    resolved = resolve_model(alias, allow_hub=False)
    assert (resolved.spec.name, resolved.rule) == (name, "alias")
    source = next(a.source for a in resolved.spec.aliases if a.id == alias)
    assert f"tests/assets/hf_configs/aliases/{fixture}.json" in source


def test_every_shipped_alias_is_curated_and_every_fixture_used():
    specs, _ = all_models()
    shipped = {(s.name, a.id) for s in specs for a in s.aliases}
    assert shipped == {(name, alias) for name, alias, _ in PAIRS}
    assert {p.stem for p in FIXTURES.glob("*.json")} == {fixture for _, _, fixture in PAIRS}
    ids = [a for _, a in shipped] + [s.hf_id for s in specs]
    assert len({i.lower() for i in ids}) == len(ids)  # one id never names two specs


def test_a_differing_shape_is_not_an_alias(tmp_path):
    # the check above fails closed: Qwen2.5-7B-Instruct's config with one layer more is not it
    cfg = json.loads((FIXTURES.parent / "qwen2.5-7b.json").read_text())
    cfg["num_hidden_layers"] += 1
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    variant = import_model(str(path))
    assert variant.model_dump(include=set(SHAPE)) != load_model("qwen2.5-7b").model_dump(include=set(SHAPE))


@pytest.mark.parametrize(
    ("variant", "instruct"),
    # same shapes, another position limit: a base release, a 2507 update, Coder, a distill
    [("qwen2.5-7b-base", "qwen2.5-7b"), ("qwen3-4b-2507", "qwen3-4b"),
     ("qwen2.5-coder-32b", "qwen2.5-32b"), ("qwen2.5-14b-instruct", "qwen2.5-14b"),
     ("deepseek-r1-distill-qwen-7b", "qwen2.5-7b"), ("qwen2.5-72b-base", "qwen2.5-72b")],
)
def test_a_different_position_limit_is_its_own_spec(variant: str, instruct: str):
    a, b = load_model(variant), load_model(instruct)
    same = [k for k in SHAPE if k != "max_context_tokens"]
    assert a.model_dump(include=set(same)) == b.model_dump(include=set(same))
    assert a.max_context_tokens != b.max_context_tokens
    assert a.hf_id not in [x.id for x in b.aliases]
