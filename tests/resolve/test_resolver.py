"""The one model resolver: which rule resolves a reference, and the hub path, offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.errors import InputError
from kvplan.specs.resolve import resolve_model
from tests.conftest import ASSETS, invoke
from tests.hub_offline import hub_cache, run_kvplan

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("ref", "name", "rule"),
    [
        ("llama-3.1-8b", "llama-3.1-8b", "catalog"),
        ("Llama-3.1-8B", "llama-3.1-8b", "catalog"),  # capitals
        ("LLAMA-3-8B", "llama-3-8b", "catalog"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", "hf_id"),  # the catalog's own hf_id
        ("meta-llama/llama-3.1-8b-instruct", "llama-3.1-8b", "hf_id"),  # ids are case-insensitive
        ("meta-llama/Meta-Llama-3-8B", "llama-3-8b", "hf_id"),
        ("hf://Qwen/Qwen3-8B", "qwen3-8b", "hf_id"),
        ("https://huggingface.co/Qwen/Qwen3-8B", "qwen3-8b", "hf_id"),
        ("model_specs/qwen3-8b.yaml", "qwen3-8b", "path"),
    ],
)
def test_rules(ref: str, name: str, rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    got = resolve_model(ref, allow_hub=False)
    assert (got.spec.name, got.rule) == (name, rule)


def test_note_names_the_rule() -> None:
    got = resolve_model("meta-llama/Llama-3.1-8B-Instruct", allow_hub=False)
    assert got.note == "meta-llama/Llama-3.1-8B-Instruct \u2192 llama-3.1-8b (hf_id)"
    assert resolve_model("llama-3.1-8b").note == ""  # a plain catalog name needs no note


def test_config_json_path_uses_the_importer() -> None:
    got = resolve_model(str(ASSETS / "hf_configs" / "qwen3-8b.json"), allow_hub=False)
    assert got.rule == "path"
    # Qwen3-8B: 36 layers x 8 KV heads x (128 + 128) x 2 B = 147,456 B per token
    assert got.spec.num_layers * got.spec.attention.num_kv_heads * 256 * 2 == 147_456


def test_relative_path_is_read_from_base(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text((ASSETS / "hf_configs" / "qwen3-8b.json").read_text())
    assert resolve_model("./m.json", base=tmp_path).spec.num_layers == 36


def test_alias_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A declared alias resolves; the same name without the alias does not."""
    import yaml

    from kvplan.specs import loader, resolve

    spec = yaml.safe_load((ROOT / "model_specs" / "qwen3-8b.yaml").read_text())
    spec["name"] = "qwen3-8b-aliased"
    spec["aliases"] = [{"id": "Acme/Qwen3-8B-Chat-FT", "source": "test fixture: same config.json"}]
    (tmp_path / "model_specs").mkdir()
    (tmp_path / "model_specs" / "qwen3-8b-aliased.yaml").write_text(yaml.safe_dump(spec))
    monkeypatch.setenv("KVPLAN_SPECS_PATH", str(tmp_path))
    loader.spec_dirs.cache_clear()
    resolve._index.cache_clear()
    try:
        got = resolve_model("acme/qwen3-8b-chat-ft", allow_hub=False)
        assert (got.spec.name, got.rule) == ("qwen3-8b-aliased", "alias")
        with pytest.raises(InputError, match="unknown model 'Acme/Qwen3-8B-Chat'"):
            resolve_model("Acme/Qwen3-8B-Chat", allow_hub=False)
    finally:
        monkeypatch.delenv("KVPLAN_SPECS_PATH")
        loader.spec_dirs.cache_clear()
        resolve._index.cache_clear()


def test_no_pattern_guessing() -> None:
    """-Instruct is not stripped by pattern: an id no spec declares is unknown."""
    with pytest.raises(InputError, match="unknown model"):
        resolve_model("meta-llama/Llama-3.1-8B-Instruct-Turbo", allow_hub=False)


def test_missing_path_says_no_such_file() -> None:
    with pytest.raises(InputError, match="no such file"):
        resolve_model("./nope.yaml")


def test_size_accepts_a_hub_id_the_catalog_holds(runner) -> None:  # noqa: ANN001
    r = invoke(runner, "size", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100", "-c", "8192",
               "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["results"][0]["kv_bytes_per_token"] == 131_072


# ------------------------------------------------------------------ the hub path, offline


def test_hub_id_from_the_local_cache_offline(tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub")
    hub_cache(tmp_path, "acme/qwen3-8b-ft",
              {"config.json": (ASSETS / "hf_configs" / "qwen3-8b.json").read_text()})
    r = run_kvplan(["size", "acme/qwen3-8b-ft", "-c", "8192", "-f", "json"],
             {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["results"][0]
    assert out["kv_bytes_per_token"] == 147_456  # 36 x 8 x 256 x 2, as Qwen3-8B


def test_offline_miss_fails_fast_with_one_line(tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub")
    r = run_kvplan(["size", "acme/not-cached"], {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "HF_HUB_OFFLINE is set" in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_without_huggingface_hub_the_hint_names_the_package(tmp_path: Path) -> None:
    r = run_kvplan(["size", "acme/not-cached"], {"HF_HOME": str(tmp_path)}, block_hub=True)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "error: command line: model: 'acme/not-cached' is not in kvplan's catalog; reading it "
        "from the Hugging Face hub needs huggingface_hub: pip install huggingface_hub (or pass a "
        "local config.json or snapshot folder)"
    )


def test_calibrate_resolves_a_log_header_id_through_the_catalog() -> None:
    # log 44's header reads "# model: Qwen/Qwen3-14B, bf16 (not in the catalog)": the comma after
    # the id is punctuation, not part of it; the id is then the catalog's qwen3-14b (hf_id)
    from kvplan.calibrate.parse import parse_file
    from kvplan.calibrate.resolve import resolve_model as resolve_run

    log = ASSETS / "logs" / "44-sglang-qwen3-14b-tp4-24gb-frac080.log"
    run = parse_file(log).runs[0]
    assert run.model_hint == "Qwen/Qwen3-14B"
    spec, how = resolve_run(run, log.parent)
    assert spec is not None and spec.name == "qwen3-14b"
    assert how == "catalog hf_id for Qwen/Qwen3-14B"


@pytest.mark.parametrize(("ref", "plan"), [
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "`qwen2.5-7b --weight-dtype int4`"),
    # the Instruct release is its own entry since task catalog12 (32,768 positions, the base 131,072)
    ("Qwen/Qwen2.5-32B-Instruct-GPTQ-Int8", "`qwen2.5-32b-instruct --weight-dtype int8`"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "`llama-3.1-8b --weight-dtype fp8`"),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "`llama-3.1-70b --weight-dtype int4`"),
    ("TheBloke/Llama-2-7B-Chat-AWQ", "`llama-2-7b --weight-dtype int4`"),
])
def test_an_unreadable_quantized_copy_names_its_catalog_base(tmp_path: Path, ref: str,
                                                             plan: str) -> None:
    """A quantized copy the hub cannot give is still refused (kvplan never plans from a name
    pattern), but the one line says which catalog entry has its attention shape."""
    pytest.importorskip("huggingface_hub")
    r = run_kvplan(["size", ref], {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "HF_HUB_OFFLINE is set" in lines[0], r.stderr
    assert "it names a quantized copy of " in lines[0]
    assert f"plan {plan}" in lines[0]


@pytest.mark.parametrize("ref", ["Qwen/Qwen9-7B-AWQ", "acme/llama-3.1-8b-merged",
                                 "Qwen/Qwen2.5-7B-Instruct"])
def test_no_base_hint_without_a_quant_suffix_and_a_catalog_base(ref: str) -> None:
    from kvplan.specs.resolve import quantized_base_hint

    assert quantized_base_hint(ref) == ""


def test_the_gguf_hint_asks_for_the_files_type() -> None:
    from kvplan.specs.resolve import quantized_base_hint

    hint = quantized_base_hint("bartowski/Qwen2.5-7B-Instruct-GGUF")
    assert "plan `qwen2.5-7b --weight-dtype (the GGUF file's type)`" in hint


@pytest.mark.parametrize(("ref", "full", "stem"), [
    ("Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),  # qwen2.5-7b's hf_id
    ("meta-llama-3-8b", "meta-llama/Meta-Llama-3-8B", "llama-3-8b"),  # any case
    ("DeepSeek-R1-Distill-Llama-8B", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
     "llama-3.1-8b"),  # an alias of llama-3.1-8b
])
def test_a_bare_repository_name_is_refused_with_its_full_id(ref: str, full: str,
                                                            stem: str) -> None:
    """The repository part of a catalog id without its org is not planned (the same name under
    another org may be another checkpoint) but the refusal names the id as the spec spells it
    and the catalog entry, and no difflib neighbours (for Qwen2.5-7B-Instruct they were
    qwen2.5-14b-instruct, qwen2.5-7b-base, qwen2.5-7b: the wrong model first)."""
    with pytest.raises(InputError) as err:
        resolve_model(ref, allow_hub=False)
    text = str(err.value)
    assert (f"unknown model {ref!r}; it is the repository name of {full} (the catalog's {stem}): "
            f"write the full id, `{full}`; `kvplan models` lists the catalog") in text
    assert "did you mean" not in text


def test_a_quantized_copys_bare_name_names_only_its_base() -> None:
    """Qwen2.5-7B-Instruct-AWQ without its org: the quantized-copy hint names qwen2.5-7b, and the
    did-you-mean list that put qwen2.5-14b-instruct first is left out."""
    with pytest.raises(InputError) as err:
        resolve_model("Qwen2.5-7B-Instruct-AWQ", allow_hub=False)
    text = str(err.value)
    assert text.startswith("unknown model 'Qwen2.5-7B-Instruct-AWQ'; it names a quantized copy of "
                           "Qwen2.5-7B-Instruct, whose catalog entry qwen2.5-7b"), text
    assert "did you mean" not in text


def test_a_misspelt_catalog_name_still_gets_its_neighbours() -> None:
    with pytest.raises(InputError, match=r"unknown model 'lama-3-8b' \(did you mean: llama-3-8b, "):
        resolve_model("lama-3-8b", allow_hub=False)
    # `llama3-8b` is a token spelling of Meta-Llama-3-8B without its `Meta-` (task h58ids, for
    # typed-r2.tsv's `llama3_8b`): the hint names the entry, where difflib listed neighbours
    with pytest.raises(InputError) as err:
        resolve_model("llama3-8b", allow_hub=False)
    assert str(err.value).startswith(
        "unknown model 'llama3-8b'; it is another spelling of the repository name of "
        "meta-llama/Meta-Llama-3-8B (the catalog's llama-3-8b): write the full id, "
        "`meta-llama/Meta-Llama-3-8B`")


@pytest.mark.parametrize("ref", ["org/-awq", "org/x..y", "org/a b"])
def test_a_name_the_hub_cannot_hold_is_refused_in_one_line(ref: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """huggingface_hub's validate_repo_id raised HFValidationError out of the cache look-up
    (`kvplan size org/-awq` printed 'internal error ... this is a bug in kvplan', exit 3); the
    name is refused as no repository id, with what one may hold."""
    from kvplan.errors import InputError
    from kvplan.specs.hub import config_path

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing reaches the network either way
    with pytest.raises(InputError) as err:
        config_path(ref)
    assert str(err.value).startswith(f"{ref!r} is not in kvplan's catalog, and not a Hugging "
                                     "Face repository id (letters, digits, '-', '_' and '.'")
