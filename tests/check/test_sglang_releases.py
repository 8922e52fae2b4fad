"""SGLang's options release by release (task h70sglkw): the sets read from every sglang wheel on
PyPI from 0.3.0 to 0.5.23 (kvplan/check/engine_flags/sglang_releases.json, made by
benchmarks/extract_sglang_flags.py), a stated release placed among them, and a command line
parsed and checked as that release's argparse does.

Golden figures were counted independently of the extraction script, with a regular expression
over each wheel's sglang/srt/server_args.py (the string literals that open an
`add_argument(` call): 54 options in 0.3.0, 88 in 0.4.1, 150 in 0.4.6.post5, 281 in 0.5.5."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kvplan.check.argv import OLD_OPTIONS
from kvplan.check.discover import read_targets
from kvplan.check.engine_flags import OPTION_TABLES, sglang
from kvplan.check.manifests.dp_attention import ATTN_DP_SIZE_FROM
from kvplan.units import DType, parse_dtype
from tests.check.test_check_multi_value import sglang_pod
from tests.conftest import ASSETS

HISTORY = OPTION_TABLES["sglang"].history
assert HISTORY is not None
CORPUS = ASSETS / "check" / "sglang-releases"


def test_the_sets_hold_what_each_wheel_registers() -> None:
    sets = HISTORY.sets
    assert len(HISTORY.releases) == 119 and HISTORY.releases[0] == "0.3.0"
    assert HISTORY.releases[-1] == sglang.SOURCE["version"] == "0.5.23"
    assert [len(sets[r]) for r in ("0.3.0", "0.4.1", "0.4.6.post5", "0.5.5")] == [54, 88, 150, 281]
    # 0.5.23: 547 option strings plus --no-X for its 12 Arg(action=BooleanOptionalAction)
    # fields (fields/lora.py:102-107 lora_strict_loading, fields/mm.py:61-66
    # mm_enable_dp_encoder, ...), which the table before task h70sglkw left out
    assert len(sglang.FLAGS) == 559
    assert {"--no-lora-strict-loading", "--no-mm-enable-dp-encoder"} <= sglang.FLAGS
    # --disable-flashinfer: 0.3.0 to 0.4.1.post1 (0.4.1.post2 took --attention-backend for it)
    assert "--disable-flashinfer" in sets["0.4.1.post1"]
    assert "--disable-flashinfer" not in sets["0.4.1.post2"]


@pytest.mark.parametrize(("option", "first", "last"), [
    # the pool-moving options kvplan reads: the first and last wheel that registers each
    ("--page-size", "0.4.4", "0.5.23"), ("--cuda-graph-max-bs", "0.3.5", "0.5.19"),
    ("--pp-size", "0.4.6.post2", "0.5.23"), ("--model", "0.4.8.post1", "0.5.23"),
    ("--cuda-graph-max-bs-decode", "0.5.14", "0.5.23"),
    ("--attn-dp-size", ATTN_DP_SIZE_FROM, "0.5.23"), ("--kv-cache-dtype", "0.3.0", "0.5.23"),
    ("--context-length", "0.3.0", "0.5.23"), ("--chunked-prefill-size", "0.3.0", "0.5.23"),
    ("--mem-fraction-static", "0.3.0", "0.5.23"), ("--max-running-requests", "0.3.0", "0.5.23"),
])
def test_first_release_of_the_options_kvplan_reads(option: str, first: str, last: str) -> None:
    have = [r for r in HISTORY.releases if option in HISTORY.sets[r]]
    assert (have[0], have[-1]) == (first, last)


def test_old_options_are_gone_where_the_wheels_say() -> None:
    """kvplan.check.argv.OLD_OPTIONS names the first release without each option; it must be the
    release after the last wheel that has it (--oltp-traces-endpoint: 0.5.4.post2, not 0.5.5 as
    said before 0.5.4's wheels were read)."""
    for option, gone in OLD_OPTIONS["sglang"].items():
        have = [r for r in HISTORY.releases if option in HISTORY.sets[r]]
        assert HISTORY.releases[HISTORY.releases.index(have[-1]) + 1] == gone, option
    assert OLD_OPTIONS["sglang"]["--oltp-traces-endpoint"] == "0.5.4.post2"


def test_the_generated_data_is_steps_from_the_oldest() -> None:
    assert list(HISTORY.steps) == list(HISTORY.releases[1:])
    added, removed = HISTORY.steps["0.5.20"]
    assert "--cuda-graph-max-bs" in removed.split() and "--cuda-graph-bs" in removed.split()
    assert HISTORY.wheels["0.4.6.post5"] == "sglang-0.4.6.post5-py3-none-any.whl"


@pytest.mark.parametrize(("text", "kind", "below", "above"), [
    ("0.4.6.post5", "read", "0.4.6.post5", "0.4.7"),
    ("0.4", "read", "0.4.0", "0.4.0.post1"),  # PEP 440: 0.4 == 0.4.0
    ("0.5.3rc1", "between", "0.5.3rc0", "0.5.3rc2"),  # no wheel on PyPI
    ("0.5.24", "newer", "0.5.23", None),
    ("0.2.15", "before", None, "0.3.0"),
])
def test_place(text: str, kind: str, below: str | None, above: str | None) -> None:
    where = HISTORY.place(text)
    assert where is not None and (where.kind, where.below, where.above) == (kind, below, above)
    assert HISTORY.place(None) is None and HISTORY.place("latest") is None


def test_the_pool_options_are_read_on_a_release_that_has_them(tmp_path: Path) -> None:
    [t] = read_targets(sglang_pod(
        tmp_path, "lmsysorg/sglang:v0.4.6.post5-cu124", "--page-size", "16",
        "--chunked-prefill-size", "4096", "--cuda-graph-max-bs", "64",
        "--max-running-requests", "48", "--mem-fraction-static", "0.8",
        "--context-length", "8192", "--kv-cache-dtype", "fp8_e4m3"), {})
    assert t.refusals == [] and t.deployment is not None
    e = t.deployment.engine
    assert (e.version, e.block_size, e.max_num_batched_tokens, e.cuda_graph_max_bs,
            e.max_num_seqs, e.max_model_len) == ("0.4.6.post5", 16, 4096, 64, 48, 8192)
    # the engine's spelling, as written (task kvspell), read as kvplan's fp8
    assert e.gpu_memory_utilization == 0.8 and e.kv_cache_dtype == "fp8_e4m3"
    assert parse_dtype(e.kv_cache_dtype) is DType.fp8
    assert not any("has no option" in n for n in t.notes)


def test_an_option_added_later_is_refused_naming_its_release(tmp_path: Path) -> None:
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.4.3", "--page-size", "16"), {})
    assert [r.message for r in t.refusals] == [
        "the engine refuses it: SGLang 0.4.3 has no option --page-size (sglang/srt/server_args.py "
        "in sglang-0.4.3-py3-none-any.whl); it came in SGLang 0.4.4: drop it or serve SGLang "
        "0.4.4 or newer"]


def test_an_option_removed_later_is_taken_where_the_release_has_it(tmp_path: Path) -> None:
    [old] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.4.1-cu124",
                                    "--disable-flashinfer"), {})
    assert old.refusals == [] and not any("--disable-flashinfer" in n and "has no option" in n
                                          for n in old.notes)
    [new] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.4.1.post2-cu124",
                                    "--disable-flashinfer"), {})
    assert [r.message for r in new.refusals] == [
        "the engine refuses it: SGLang 0.4.1.post2 has no option --disable-flashinfer "
        "(sglang/srt/server_args.py in sglang-0.4.1.post2-py3-none-any.whl); SGLang 0.4.1.post1 "
        "had it, 0.4.1.post2 removed it"]


def test_a_prefix_resolves_against_the_stated_release(tmp_path: Path) -> None:
    """argparse takes a unique prefix: --model is no option of 0.4.4.post1 (its alias came in
    0.4.8.post1) but the prefix of one only, --model-path; --tp of --tp-size."""
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.4.4.post1", "--tp", "1",
                                  "--context-len", "4096"), {})
    assert t.refusals == [] and t.deployment is not None
    assert t.deployment.engine.max_model_len == 4096


def test_a_newer_release_is_checked_against_the_newest_with_a_note(tmp_path: Path) -> None:
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.24", "--enable-radix-cache"),
                       {})
    assert [r.message for r in t.refusals] == [
        "the engine refuses it: SGLang 0.5.23 has no option --enable-radix-cache; did you mean "
        "--disable-radix-cache?"]
    assert ("SGLang 0.5.24 is newer than the newest release whose options were read (0.5.23): "
            "its options, and the values of --kv-cache-dtype, --attention-backend, are checked "
            "against 0.5.23's") in t.notes


def test_a_release_between_two_read_ones_is_noted(tmp_path: Path) -> None:
    [t] = read_targets(sglang_pod(tmp_path, "lmsysorg/sglang:v0.5.3rc1",
                                  "--enable-radix-cache"), {})
    assert t.refusals == []
    assert any(n.startswith("SGLang 0.5.3rc1 was not read: neither SGLang 0.5.3rc0 nor 0.5.3rc2, "
                            "the releases read around it, has option --enable-radix-cache")
               for n in t.notes)


@pytest.mark.parametrize(("image", "said"), [
    ("lmsysorg/sglang:v0.2.15", "the image is sglang 0.2.15, older than the option table"),
    ("lmsysorg/sglang:dev", "the image does not name its SGLang release"),
])
def test_unplaced_releases_are_noted_as_before(tmp_path: Path, image: str, said: str) -> None:
    [t] = read_targets(sglang_pod(tmp_path, image, "--enable-radix-cache"), {})
    assert t.refusals == []
    assert any(n.startswith("SGLang 0.5.23 has no option --enable-radix-cache") and said in n
               for n in t.notes)


EXPECTED = yaml.safe_load((CORPUS / "EXPECTED.yaml").read_text())
# read after the held-out run: SGLang's image has no server entrypoint, and a Deployment that
# gives only args starts no server kvplan reads (ERROR "not through a server command")
NOT_READ = {"k8s-v030-mistral-large.yaml"}


def _said(name: str) -> tuple[set[str], list[str]]:
    """(the releases the refusals name, the options refused) over the file's deployments."""
    releases: set[str] = set()
    refused: list[str] = []
    for t in read_targets(CORPUS / name, {}):
        for r in t.refusals:
            found = re.match(r"the engine refuses it: SGLang (\S+) has no option (\S+)", r.message)
            assert found is not None, r.message
            releases.add(found.group(1))
            refused.append(found.group(2))
        assert not any("SGLang 0.5.23 has no option" in n for n in t.notes), t.notes
    return releases, refused


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if not e.get("held_out")))
def test_corpus_development(name: str) -> None:
    releases, refused = _said(name)
    assert refused == EXPECTED[name]["refused"]
    assert releases <= {str(EXPECTED[name]["release"])}


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if e.get("held_out")))
def test_corpus_held_out(name: str) -> None:
    releases, refused = _said(name)
    assert refused == EXPECTED[name]["refused"]
    assert releases <= {str(EXPECTED[name]["release"])}
    if name in NOT_READ:
        [t] = read_targets(CORPUS / name, {})
        assert [p.field for p in t.problems] == ["command"]


def test_a_config_file_key_is_checked_against_the_stated_release(tmp_path: Path) -> None:
    """SGLang 0.5.5 (--config since 0.5.3): its file's page-size is 0.5.5's; its
    cuda-graph-max-bs-decode came in 0.5.14, so 0.5.5 refuses the file as it would the flag."""
    from kvplan.check import check_paths
    from tests.check.test_check_engine_flags import manifest

    (tmp_path / "sglang-args.yaml").write_text("page-size: 16\ncuda-graph-max-bs-decode: 8\n")
    path = manifest(tmp_path, "sg", "lmsysorg/sglang:v0.5.5",
                    ["python3", "-m", "sglang.launch_server"],
                    ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--config",
                     "/cfg/sglang-args.yaml"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert o.reasons == [
        "the engine refuses it: SGLang 0.5.5 has no option --cuda-graph-max-bs-decode (key "
        "cuda-graph-max-bs-decode of sglang-args.yaml) (sglang/srt/server_args.py in "
        "sglang-0.5.5-py3-none-any.whl); it came in SGLang 0.5.14: drop it or serve SGLang 0.5.14 "
        "or newer"]


def test_the_docs_figures_are_the_tables() -> None:
    """docs/check.md's counts, computed: the newest table's options, the wheels read, the
    corpus's files by part."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "check.md").read_text()
    assert f"| SGLang | 0.5.23 ({len(sglang.FLAGS)} options), and every release from " \
           f"{HISTORY.releases[0]} ({len(HISTORY.releases)} wheels, below)" in text
    dev = sum(not e.get("held_out") for e in EXPECTED.values())
    held = sum(bool(e.get("held_out")) for e in EXPECTED.values())
    assert f"development {dev} files" in text and f"Held out {held} files" in text
