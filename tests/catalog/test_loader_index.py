"""The catalog index (kvplan.specs.index): the same specs as reading every YAML file, and a
changed spec file is never served from a stale index."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from kvplan.errors import InputError, SpecError
from kvplan.specs import index, loader, resolve
from kvplan.specs.schema import HardwareSpec, ModelSpec
from tests.conftest import ROOT

OLD_NS = 1_600_000_000 * 10**9  # 2020-09-13: far from "just written", so the index is stored


def _clear() -> None:
    index.clear()
    loader.spec_dirs.cache_clear()
    loader._hardware_index.cache_clear()
    loader._device_index.cache_clear()
    resolve._index.cache_clear()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache folder of the test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KVPLAN_CACHE_DIR", str(folder))
    _clear()
    yield folder
    _clear()


@pytest.fixture
def own_specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path) -> Path:
    """A KVPLAN_SPECS_PATH folder with a copy of llama-3-8b (shadowing the shipped one),
    its time set in the past so that the index is written."""
    models = tmp_path / "specs" / "model_specs"
    models.mkdir(parents=True)
    spec = models / "llama-3-8b.yaml"
    shutil.copy(ROOT / "model_specs" / "llama-3-8b.yaml", spec)
    os.utime(spec, ns=(OLD_NS, OLD_NS))
    monkeypatch.setenv("KVPLAN_SPECS_PATH", str(tmp_path / "specs"))
    _clear()
    return spec


def _index_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.idx"))


@pytest.mark.parametrize(("kind", "cls"), [("model_specs", ModelSpec),
                                           ("hardware_specs", HardwareSpec)])
def test_index_gives_the_specs_a_direct_read_gives(cache: Path, kind: str, cls: type) -> None:
    # built (and written) on first use, then read back in a "new process" (clear()):
    # every shipped spec equals the one validated straight from its YAML file
    built = {stem: loader.load_entry(cls, e) for stem, e in loader.catalog(kind).items()}
    assert [p.name.rsplit("-", 1)[0] for p in _index_files(cache)] == [kind]
    index.clear()

    def no_build(files: object) -> None:
        raise AssertionError("the index file was not used")

    mp = pytest.MonkeyPatch()
    mp.setattr(index, "_build", no_build)
    try:
        read = {stem: loader.load_entry(cls, e) for stem, e in loader.catalog(kind).items()}
    finally:
        mp.undo()
    direct = {path.stem: loader._load_file(cls, path)
              for path in sorted((ROOT / kind).glob("*.yaml"))}
    assert len(direct) > 20
    assert built == direct
    assert read == direct
    assert [s.model_dump() for s in read.values()] == [s.model_dump() for s in direct.values()]
    # rebuilt without validation (kvplan.specs.frozen): the same types, the same fields the
    # file stated at every level, the same text
    for stem, spec in read.items():
        assert type(spec) is type(direct[stem])
        assert repr(spec) == repr(direct[stem])
        assert spec.model_dump(exclude_unset=True) == direct[stem].model_dump(exclude_unset=True)
        assert spec.model_dump_json() == direct[stem].model_dump_json()


def test_specs_from_the_index_are_not_validated_again(cache: Path) -> None:
    # the second process reads each spec as validated: no pydantic validation on load, and a
    # spec the index holds as invalid is validated (and refused) where it is loaded
    loader.catalog("model_specs")
    index.clear()
    calls: list[str] = []
    real = loader.validate

    def counting(cls: type, data: object, path: str) -> object:
        calls.append(path)
        return real(cls, data, path)

    mp = pytest.MonkeyPatch()
    mp.setattr(loader, "validate", counting)
    try:
        spec = loader.load_entry(ModelSpec, loader.catalog("model_specs")["llama-3-8b"])
    finally:
        mp.undo()
    assert calls == []
    assert spec == loader._load_file(ModelSpec, ROOT / "model_specs" / "llama-3-8b.yaml")


def test_an_invalid_spec_is_refused_as_without_an_index(own_specs: Path) -> None:
    own_specs.write_text(own_specs.read_text().replace("num_layers: 32", "num_layers: 0"))
    os.utime(own_specs, ns=(OLD_NS, OLD_NS))
    with pytest.raises(SpecError) as first:
        loader.load_model("llama-3-8b")
    assert loader.catalog("model_specs")["llama-3-8b"].spec is None
    index.clear()
    with pytest.raises(SpecError) as again:  # from the stored index: validated, same error
        loader.load_model("llama-3-8b")
    with pytest.raises(SpecError) as direct:
        loader._load_file(ModelSpec, own_specs)
    assert str(first.value) == str(again.value) == str(direct.value)
    assert "num_layers: Input should be greater than 0" in str(direct.value)


def test_lookups_through_the_index_match_the_catalog(cache: Path) -> None:
    # a catalog name, an hf_id and a declared alias resolve as the spec files say
    spec = ModelSpec.model_validate(
        yaml.safe_load((ROOT / "model_specs" / "llama-3-8b.yaml").read_text()))
    assert resolve.resolve_model("llama-3-8b").spec == spec
    assert resolve.resolve_model("meta-llama/Meta-Llama-3-8B").rule == "hf_id"
    assert resolve.resolve_model("meta-llama/Meta-Llama-3-8B-Instruct").rule == "alias"
    assert loader.load_hardware("h100").name == "h100-sxm-80gb"


def test_a_changed_spec_file_invalidates_the_index(own_specs: Path, cache: Path) -> None:
    assert loader.load_model("llama-3-8b").num_layers == 32
    assert len(_index_files(cache)) == 1  # written: the file is older than RACY_NS
    # same size, another time: 32 layers -> 31 layers
    text = own_specs.read_text()
    own_specs.write_text(text.replace("num_layers: 32", "num_layers: 31"))
    os.utime(own_specs, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    index.clear()
    assert loader.load_model("llama-3-8b").num_layers == 31
    # another size, the old time back: still seen
    own_specs.write_text(text.replace("num_layers: 32", "num_layers: 300"))
    os.utime(own_specs, ns=(OLD_NS, OLD_NS))
    index.clear()
    assert loader.load_model("llama-3-8b").num_layers == 300


def test_a_new_and_a_removed_spec_file_invalidate_the_index(own_specs: Path) -> None:
    assert "my-model" not in loader._files("model_specs")
    extra = own_specs.with_name("my-model.yaml")
    extra.write_text(own_specs.read_text().replace("name: llama-3-8b", "name: my-model"))
    os.utime(extra, ns=(OLD_NS, OLD_NS))
    _clear()
    assert loader.load_model("my-model").name == "my-model"
    extra.unlink()
    _clear()
    with pytest.raises(InputError, match="unknown model 'my-model'"):
        loader.load_model("my-model")


def test_a_file_written_just_now_is_not_stored(own_specs: Path, cache: Path) -> None:
    # a same-size edit within one clock tick cannot be told apart: no index file is written
    # while any spec is that fresh (the index still serves this run, from memory)
    own_specs.write_text(own_specs.read_text().replace("num_layers: 32", "num_layers: 33"))
    assert loader.load_model("llama-3-8b").num_layers == 33
    assert _index_files(cache) == []


def test_a_broken_spec_raises_what_it_raises_without_an_index(own_specs: Path) -> None:
    own_specs.write_text("name: llama-3-8b\nnum_layers: [1\n")
    os.utime(own_specs, ns=(OLD_NS, OLD_NS))
    with pytest.raises(SpecError) as first:
        loader.load_model("llama-3-8b")
    index.clear()
    with pytest.raises(SpecError) as again:  # from a stored index: read again, same error
        loader.load_model("llama-3-8b")
    with pytest.raises(SpecError) as direct:
        loader.read_yaml(own_specs)
    assert str(first.value) == str(again.value) == str(direct.value)
    assert "malformed YAML" in str(direct.value)


def test_an_empty_cache_dir_setting_writes_nothing(own_specs: Path, cache: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KVPLAN_CACHE_DIR", "")
    assert index.cache_dir() is None
    assert loader.load_model("llama-3-8b").num_layers == 32
    assert not cache.exists()


def test_a_damaged_index_file_is_rebuilt(own_specs: Path, cache: Path) -> None:
    assert loader.load_model("llama-3-8b").num_layers == 32
    (stored,) = _index_files(cache)
    stored.write_bytes(b"\x00not marshal")
    index.clear()
    assert loader.load_model("llama-3-8b").num_layers == 32
    assert stored.read_bytes() != b"\x00not marshal"


def test_a_damaged_stored_spec_is_validated_from_the_data(cache: Path) -> None:
    # an entry whose stored spec names no schema class (or has another shape) is validated
    # from the file's data, as without an index
    entry = loader.catalog("model_specs")["llama-3-8b"]
    direct = loader._load_file(ModelSpec, ROOT / "model_specs" / "llama-3-8b.yaml")
    for damaged in (("m", "os.system", {}, ()), ("m", "ModelSpec"), ("e", "Nope", 1), ("x",)):
        bad = index.Entry(entry.path, entry.data, entry.ok, damaged)
        assert loader.load_entry(ModelSpec, bad) == direct
