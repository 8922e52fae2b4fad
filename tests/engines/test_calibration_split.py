"""The calibration set's split (issue #13): no held-out log tuned a constant."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from kvplan.calibrate.split import PARTS, Entry, group, is_heldout, leaks, read_fitted, read_split
from kvplan.errors import InputError

LOGS = Path(__file__).parents[1] / "assets" / "logs"


def test_every_log_is_in_the_split_once() -> None:
    split = read_split(LOGS / "SPLIT.tsv")
    on_disk = {p.name for p in LOGS.glob("*.log")}
    assert set(split) == on_disk
    used = {e.part for e in split.values()}
    assert used <= set(PARTS)
    assert used >= {"fit", "heldout", "heldout-2", "heldout-3", "heldout-4", "heldout-5", "heldout-6",
                    "heldout-7"}


def test_no_constant_was_fitted_on_a_held_out_log() -> None:
    split = read_split(LOGS / "SPLIT.tsv")
    fitted = read_fitted(LOGS / "FITTED.tsv")
    assert fitted, "FITTED.tsv lists no constants"
    assert leaks(split, fitted) == []


def test_every_fitted_constant_exists_in_the_engines() -> None:
    for constant in read_fitted(LOGS / "FITTED.tsv"):
        module, name = constant.split(".")
        assert hasattr(importlib.import_module(f"kvplan.engines.{module}"), name), constant


def test_a_leak_is_caught() -> None:
    split = {"01-a.log": Entry("01-a.log", "fit", "vllm", "dense"),
             "40-b.log": Entry("40-b.log", "heldout", "vllm", "dense")}
    assert leaks(split, {"vllm.X": ["01"]}) == []
    assert leaks(split, {"vllm.X": ["01", "40"]}) == ["vllm.X: fitted on held-out log 40-b.log"]
    assert leaks(split, {"vllm.X": ["99"]}) == ["vllm.X: log 99 is not in SPLIT.tsv"]


def test_a_bad_split_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "SPLIT.tsv"
    bad.write_text("log\tpart\tengine\tclass\n01-a.log\ttrain\tvllm\tdense\n")
    with pytest.raises(InputError, match=r"SPLIT.tsv:2: expected log, part"):
        read_split(bad)


def test_group_medians_and_worst_by_family() -> None:
    rows = [("vllm", "dense", "heldout", 1.0), ("vllm", "sliding", "heldout", 3.0),
            ("vllm", "dense", "heldout", 2.0), ("vllm", "moe", "fit", 7.0),
            ("vllm", "mla", "fit", 5.0), ("sglang", "unknown", "fit", 9.0)]
    cells = {(c.engine, c.model_class, c.part): c for c in group(rows)}
    dense = cells[("vllm", "dense", "heldout")]
    assert (dense.median, dense.worst) == (2.0, 3.0)  # median of 1, 2, 3
    other = cells[("vllm", "moe/mla/multimodal", "fit")]
    assert (other.median, other.worst) == (6.0, 7.0)  # (5 + 7) / 2
    assert ("sglang", "dense", "fit") not in cells  # unknown class left out
    # every held-out run is pooled into heldout-all; fit runs are not
    assert cells[("vllm", "dense", "heldout-all")].errors == (1.0, 3.0, 2.0)
    assert ("vllm", "moe/mla/multimodal", "heldout-all") not in cells


def test_the_pool_takes_every_held_out_part_and_sorts_after_them() -> None:
    rows = [("sglang", "dense", "heldout-6", 9.0), ("sglang", "dense", "heldout", 0.5),
            ("sglang", "dense", "heldout-3", 0.1), ("sglang", "dense", "fit", 40.0)]
    parts = [c.part for c in group(rows)]
    assert parts == ["fit", "heldout", "heldout-3", "heldout-6", "heldout-all"]
    pooled = group(rows)[-1]
    assert (pooled.median, pooled.worst, len(pooled.errors)) == (0.5, 9.0, 3)


def test_parts_are_listed_in_round_order_not_string_order() -> None:
    rows = [("vllm", "dense", "heldout-10", 1.0), ("vllm", "dense", "heldout-2", 2.0),
            ("vllm", "dense", "fit", 3.0), ("vllm", "dense", "unsplit", 4.0)]
    assert [c.part for c in group(rows)] == ["fit", "heldout-2", "heldout-10", "heldout-all", "unsplit"]
    pooled = [c for c in group(rows) if c.part == "heldout-all"][0]
    assert sorted(pooled.errors) == [1.0, 2.0]


def test_the_fresh_part_is_held_out_pooled_and_listed_after_the_numbered_rounds() -> None:
    # task h100logs: fresh-h100 holds logs found to test a pattern read off held-out logs; it is
    # held out like any heldout-N part (pooled, never fitted), though its name has no number
    assert is_heldout("fresh-h100") and is_heldout("heldout") and is_heldout("heldout-52")
    assert not is_heldout("fit") and not is_heldout("unsplit")
    rows = [("vllm", "dense", "fresh-h100", 0.6), ("vllm", "dense", "heldout-52", 1.0),
            ("vllm", "dense", "fit", 40.0)]
    cells = group(rows)
    assert [c.part for c in cells] == ["fit", "heldout-52", "fresh-h100", "heldout-all"]
    assert sorted(cells[-1].errors) == [0.6, 1.0]


def test_log_980_restates_its_source_figures_consistently() -> None:
    # vllm #54479's row "unpatched warm (reference) | 5,315 | 10.38" (blocks, KV GiB a GPU) for
    # Qwen/Qwen3-32B-AWQ at TP 2: 64 layers x 8 KV heads x 128 x 2 (K, V) x 2 B (fp16) / 2 ranks
    # = 131,072 B a token on each rank; 5,315 blocks x 16 tokens = 85,040 tokens = 10.381 GiB
    from kvplan.calibrate.parse import parse_file

    split = read_split(LOGS / "SPLIT.tsv")
    (name,) = [n for n in split if n.startswith("980-")]
    assert split[name].part == "fresh-h100" and split[name].model_class == "dense"
    (run,) = parse_file(LOGS / name).runs
    assert (run.engine, run.version) == ("vllm", "0.28.0")
    assert run.values["tokens"] == 5_315 * 16
    per_token = 64 * 8 * 128 * 2 * 2 // 2
    assert round(run.values["tokens"] * per_token / 2**30, 2) == run.values["kv_gib"] == 10.38
    assert run.settings["tp"] == "2" and run.settings["max_num_batched_tokens"] == "5120"


def test_fresh_logs14_holds_its_three_logs_with_the_figures_their_sources_print() -> None:
    # task logs14: logs 1000-1002, committed blind as part fresh-logs14 (held out, pooled).
    # 1000 is the warm twin of log 993 (RhizoNymph/inference-sim, the same node's AOT artifact):
    # its pool and its breakdown print the same figures as 993's cold start. 1001/1002 are
    # fillipeml/qlora-serving-lab's results/vllm.json lines: Qwen2.5-0.5B (24 layers x 2 KV heads
    # x 64) in fp32 (4 B) and fp16 (2 B), 111,616 and 311,264 tokens.
    from kvplan.calibrate.parse import parse_file

    split = read_split(LOGS / "SPLIT.tsv")
    names = sorted(n for n, e in split.items() if e.part == "fresh-logs14")
    assert [n.split("-")[0] for n in names] == ["1000", "1001", "1002"]
    assert is_heldout("fresh-logs14") and "fresh-logs14" in PARTS
    assert all(split[n].engine == "vllm" and split[n].model_class == "dense" for n in names)
    runs = {n.split("-")[0]: parse_file(LOGS / n).runs for n in names}
    (warm,) = runs["1000"]
    (cold,) = parse_file(LOGS / next(n for n in split if n.startswith("993-"))).runs
    assert (warm.engine, warm.version) == ("vllm", "0.29.0")
    assert warm.values["tokens"] == cold.values["tokens"] == 24_896
    assert round(24_896 * 28 * 4 * 128 * 2 * 2 / 2**30, 2) == warm.values["kv_gib"] == 1.33
    keys = set(cold.settings) | set(warm.settings)
    keys.discard("log_engine_line")  # where the engine line sits in each excerpt
    assert {k: warm.settings.get(k) for k in keys} == {k: cold.settings.get(k) for k in keys}
    for prefix, tokens in (("1001", 111_616), ("1002", 311_264)):
        (run,) = runs[prefix]
        assert (run.engine, run.version, run.values["tokens"]) == ("vllm", "0.31.0", tokens)
        assert tokens % 16 == 0 and run.settings["max_num_seqs"] == "16"
        # 54.50x and 151.98x at 2,048 tokens, the concurrency the lines print
        assert round(tokens / 2048, 2) == {"1001": 54.5, "1002": 151.98}[prefix]
        assert run.settings["gpu_memory_utilization"] == "0.78"
