"""Every alias is sourced: its own config.json gives the spec's shapes, parameter for parameter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.specs import all_models, load_model
from kvplan.specs.hf_import import import_model
from kvplan.specs.resolve import resolve_model
from kvplan.units import DType
from tests.catalog.catalog_sources import ALIAS_DTYPES, ALIASES

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


@pytest.mark.parametrize(("name", "alias", "fixture"), PAIRS)
def test_alias_weights_are_planned_in_the_dtype_it_is_published_in(name: str, alias: str,
                                                                   fixture: str):
    """An alias whose own config.json states another torch_dtype than the spec's carries it
    (`ModelAlias.weight_dtype`) and resolving the alias plans the weights in it; every other
    alias's fixture either agrees with the spec or its source says whose re-save the dtype is."""
    spec = load_model(name)
    entry = next(a for a in spec.aliases if a.id == alias)
    published = import_model(str(FIXTURES / f"{fixture}.json")).weight_dtype
    expected = DType(ALIAS_DTYPES[alias]) if alias in ALIAS_DTYPES else None
    assert entry.weight_dtype == expected
    resolved = resolve_model(alias, allow_hub=False)
    assert resolved.spec.weight_dtype == (expected or spec.weight_dtype)
    if expected is not None:
        assert published == expected and expected != spec.weight_dtype
        assert f"published in {expected.value}" in resolved.note
    elif published != spec.weight_dtype:
        assert "export's" in entry.source or "fine-tune's" in entry.source


def test_gemma_2_9b_it_weights_in_bf16_from_the_cli():
    """google/gemma-2-9b-it's config.json says bfloat16 (the base gemma-2-9b's float32): the
    weights are 9,241,705,984 parameters x 2 B = 18,483,411,968 B (17.21 GiB), not the base's
    x 4 B = 36,966,823,936 B; the base keeps float32 as published."""
    import json

    from typer.testing import CliRunner

    from kvplan.cli import app

    runner = CliRunner()
    it = runner.invoke(app, ["size", "google/gemma-2-9b-it", "--gpu", "h100", "--format", "json"])
    base = runner.invoke(app, ["size", "gemma-2-9b", "--gpu", "h100", "--format", "json"])
    assert it.exit_code == 0 and base.exit_code == 0, it.output + base.output

    def weights(out: str) -> int:
        data = json.loads(out[out.index("{"):out.rindex("}") + 1])
        rows = data if isinstance(data, list) else data.get("results", [data])
        return int(rows[0]["weights_bytes"])

    assert weights(it.stdout) == 18_483_411_968
    assert weights(base.stdout) == 36_966_823_936
    assert "published in bf16" in it.stderr


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
     ("qwen2.5-32b-instruct", "qwen2.5-32b"),
     ("deepseek-r1-distill-qwen-7b", "qwen2.5-7b"), ("qwen2.5-72b-base", "qwen2.5-72b"),
     ("qwen3-30b-a3b-thinking-2507", "qwen3-30b-a3b")],
)
def test_a_different_position_limit_is_its_own_spec(variant: str, instruct: str):
    a, b = load_model(variant), load_model(instruct)
    same = [k for k in SHAPE if k != "max_context_tokens"]
    assert a.model_dump(include=set(same)) == b.model_dump(include=set(same))
    assert a.max_context_tokens != b.max_context_tokens
    assert a.hf_id not in [x.id for x in b.aliases]


def test_a_float32_checkpoint_says_engines_serve_it_in_16_bits():
    """The plain formula plans a float32-published model (gemma-2-9b) in float32, as published,
    and says so with what engines do instead; a bf16 model's note has no such clause."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    runner = CliRunner()
    base = runner.invoke(app, ["explain", "gemma-2-9b", "--gpu", "h100"])
    it = runner.invoke(app, ["explain", "google/gemma-2-9b-it", "--gpu", "h100"])
    assert base.exit_code == 0 and it.exit_code == 0
    flat = " ".join(base.stdout.split())
    assert "weights in fp32, split over 1 GPU(s); engines serve a float32 checkpoint in 16 bits" in flat
    assert "float32 checkpoint" not in " ".join(it.stdout.split())


def test_qwen25_32b_instruct_plans_the_official_positions():
    """Task catalog12: Qwen/Qwen2.5-32B-Instruct was an alias of qwen2.5-32b read from tt-metal's
    copy of its config (131,072 positions); the official config.json (Hanson-Wang-chn/AI-Prof's
    copy of the hub repository, with the card that says "set for context length up to 32,768
    tokens") says 32,768, so the id is its own spec and plans 32,768, not the base's 131,072."""
    official = json.loads((FIXTURES.parent / "qwen2.5-32b-instruct.json").read_text())
    assert official["max_position_embeddings"] == 32_768
    resolved = resolve_model("Qwen/Qwen2.5-32B-Instruct", allow_hub=False).spec
    assert resolved.name == "qwen2.5-32b-instruct"
    assert resolved.max_context_tokens == 32_768
    base = load_model("qwen2.5-32b")
    assert base.max_context_tokens == 131_072
    assert "Qwen/Qwen2.5-32B-Instruct" not in [a.id for a in base.aliases]
    assert not (FIXTURES / "Qwen--Qwen2.5-32B-Instruct.json").exists()


AUDIT = FIXTURES.parent / "POSITIONS_AUDIT.tsv"


def test_every_alias_has_a_positions_audit_row():
    """tests/assets/hf_configs/POSITIONS_AUDIT.tsv (task catalog12): each shipped alias, the positions
    its spec plans, and whether a second public source naming the official repository agrees
    (35 confirmed; 4 with none found, none disagreeing). A new alias needs its row."""
    import csv

    rows = list(csv.DictReader(AUDIT.open(encoding="utf-8", newline=""), delimiter="\t"))
    shipped = {(a.id, s.name) for s in all_models()[0] for a in s.aliases}
    assert {(r["alias"], r["spec"]) for r in rows} == shipped
    assert len(rows) == len(shipped) == 39
    for r in rows:
        assert int(r["positions"]) == load_model(r["spec"]).max_context_tokens, r["alias"]
        assert r["verdict"] in ("confirmed", "not found") and r["second_source"], r["alias"]
    verdicts = [r["verdict"] for r in rows]
    assert (verdicts.count("confirmed"), verdicts.count("not found")) == (35, 4)
