"""kvplan.inputs: the one gate every file passes (size, encoding, safe YAML and JSON)."""

from __future__ import annotations

import codecs
import time
from pathlib import Path

import pytest

from kvplan.deploy.yamldoc import read_docs_each
from kvplan.inputs import InputFileError, load_json, load_yaml, read_text
from kvplan.inputs.limits import MAX_YAML_ALIASES, MAX_YAML_DEPTH
from kvplan.inputs.yamlsafe import split_documents, yaml_documents
from tests.fuzz.strategies import alias_bomb

HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"


def _error(text: str) -> InputFileError:
    docs = yaml_documents(text, "t.yaml")
    assert len(docs) == 1 and docs[0].error is not None, docs
    return docs[0].error


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    text = alias_bomb(9, 9)  # 9**9 = 387,420,489 strings; 72 aliases, under the alias-count limit
    start = time.process_time()
    err = _error(text)
    assert time.process_time() - start < 0.5
    assert "expands to more than 200,000 values" in str(err)


def test_a_small_alias_graph_is_read() -> None:
    docs = yaml_documents(alias_bomb(3, 3), "t.yaml")  # 3 x 3 x 3 = 27 strings
    assert docs[0].error is None
    assert docs[0].data["l2"] == [[["lol"] * 3] * 3] * 3


def test_too_many_aliases_and_loops_are_refused() -> None:
    many = "a: &a 1\nb: [" + ",".join(["*a"] * (MAX_YAML_ALIASES + 1)) + "]\n"
    assert f"more than {MAX_YAML_ALIASES} aliases" in str(_error(many))
    assert "refers to a value that contains it" in str(_error("a: &a [1, *a]\n"))


def test_nesting_deeper_than_the_limit_is_refused_with_its_line() -> None:
    inner = MAX_YAML_DEPTH - 1  # the top-level mapping is the first level
    ok = "x: " + "[" * inner + "]" * inner + "\n"
    assert yaml_documents(ok, "t.yaml")[0].error is None
    deep = "\n\nx: " + "[" * (inner + 1) + "]" * (inner + 1) + "\n"
    err = _error(deep)
    assert err.line == 3 and f"nested more than {MAX_YAML_DEPTH} levels" in err.problem


def test_duplicate_keys_are_refused_with_both_lines() -> None:
    err = _error("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert (err.line, err.problem) == (4, "duplicate key 'c' (first on line 3); keep one")
    # a merge key may be overridden: that is YAML's meaning, not a duplicate
    merged = yaml_documents("base: &b {x: 1, y: 1}\nd:\n  <<: *b\n  y: 2\n", "t.yaml")[0]
    assert merged.data["d"] == {"x": 1, "y": 2}


@pytest.mark.parametrize("text", ["a: !!python/object/apply:os.system [ls]\n", "a: !custom 1\n",
                                  "a: !!set {x}\n", "a: !!binary aGk=\n"])
def test_tags_beyond_plain_yaml_are_refused(text: str) -> None:
    err = _error(text)
    assert err.line == 1 and "only plain YAML is accepted" in err.problem


@pytest.mark.parametrize(("text", "problem"), [
    ("a: .nan\n", "'.nan' is not a finite number"),
    ("a: -.inf\n", "'-.inf' is not a finite number"),
    ("a: 1.0e+999\n", "'1.0e+999' is not a finite number"),  # YAML 1.1 floats need a dot
    ("a: " + "9" * 41 + "\n", "a number with 41 digits"),
])
def test_numbers_must_be_finite_and_short(text: str, problem: str) -> None:
    assert problem in _error(text).problem


def test_plain_numbers_and_strings_are_kept() -> None:
    data = yaml_documents("a: 1\nb: 2.5\nc: '.nan'\nd: " + "9" * 40 + "\n", "t")[0].data
    assert data == {"a": 1, "b": 2.5, "c": ".nan", "d": int("9" * 40)}


def test_each_document_of_a_stream_is_judged_on_its_own() -> None:
    docs = read_docs_each(HOSTILE / "multi-doc.yaml")
    assert [d.error is None for d in docs] == [True, False, True]
    assert docs[0].data["name"] == "support-chatbot-vllm" and docs[2].data["name"] == "second"
    bad = docs[1]
    assert bad.error is not None and bad.error.line == 20  # `name: [unclosed` is line 19; the
    # parser reports line 20, where the `---` closes the document
    assert docs[2].line("traffic") == 33  # lines count from the top of the file


def test_split_keeps_directives_with_their_document() -> None:
    text = "a: 1\n...\n%YAML 1.1\n---\nb: 2\n---\n# only a comment\n"
    assert split_documents(text) == [(0, "a: 1\n...\n"), (2, "%YAML 1.1\n---\nb: 2\n"),
                                     (5, "---\n# only a comment\n")]
    assert [d.data for d in yaml_documents(text, "t")] == [{"a": 1}, {"b": 2}, None]


@pytest.mark.parametrize(("bom", "codec"), [(b"", "utf-8"), (codecs.BOM_UTF8, "utf-8"),
                                            (codecs.BOM_UTF16_LE, "utf-16-le"),
                                            (codecs.BOM_UTF16_BE, "utf-16-be")])
def test_encodings_with_a_bom_are_decoded(tmp_path: Path, bom: bytes, codec: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(bom + "name: café\n".encode(codec))
    assert read_text(path) == "name: café\n"
    assert load_yaml(path) == {"name": "café"}


@pytest.mark.parametrize(("data", "problem"), [
    (b"\xff\xfe\x00", "starts with a UTF-16 byte-order mark but is not valid UTF-16"),
    (b"name: caf\xe9\n", "not UTF-8 text (byte 0xe9 at offset 9)"),  # Latin-1
    (b"\x89PNG\r\n\x1a\n\x00\x00", "binary data (a NUL byte at offset 8)"),
    (b"a\x00b\x00", "looks like UTF-16 without a byte-order mark"),
])
def test_other_bytes_are_refused_in_one_line(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_bytes(data)
    with pytest.raises(InputFileError) as err:
        read_text(path)
    assert problem in str(err.value) and "\n" not in str(err.value)


def test_size_limit_and_folders(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a" * 101)
    assert read_text(path, limit=101) == "a" * 101
    with pytest.raises(InputFileError, match="larger than the 100 bytes kvplan reads"):
        read_text(path, limit=100)
    with pytest.raises(InputFileError, match="is a folder"):
        read_text(tmp_path)
    with pytest.raises(InputFileError, match="cannot read file: No such file"):
        read_text(tmp_path / "missing.yaml")


@pytest.mark.parametrize(("text", "problem"), [
    ('{"a": NaN}', "NaN is not a finite number"),
    ('{"a": Infinity}', "Infinity is not a finite number"),
    ('{"a": 1e999}', "1e999 is too large to be a finite number"),
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ('{"a": ' + "1" * 41 + "}", "a number with 41 digits"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a": 1,}', "not valid JSON"),
])
def test_json_is_checked_like_yaml(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        load_json(path)
    assert problem in str(err.value)


def test_aliases_cannot_nest_a_value_deeper_than_the_limit() -> None:
    # 30 anchors, each 40 brackets deep around the previous one: every line is 41 levels deep
    # as written, but l29 expands to 30 x 40 = 1,200 levels
    lines = [f"l{i}: &l{i} " + "[" * 40 + (f"*l{i - 1}" if i else "1") + "]" * 40 for i in range(30)]
    err = _error("\n".join(lines) + "\n")
    assert f"nested more than {MAX_YAML_DEPTH} levels deep once aliases are expanded" in err.problem
