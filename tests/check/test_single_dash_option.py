"""A single-dash option of two letters or more that no release declares is refused as the
engine's argparse refuses it (task h101left; SGLang's `-dp 4`, sgl-project/sglang#8833,
tests/assets/check/outcomes/100-*).

Read in the sglang wheels (pip download --no-deps): 0.4.10.post2's server_args.py declares
`--data-parallel-size`/`--dp-size` (:1160-1161) and `--tensor-parallel-size`/`--tp-size`
(:925-926), no single-dash option, and prepare_server_args calls parser.parse_args (:2094-2096);
0.5.23's table (kvplan/check/engine_flags/sglang.py) has no single-dash option either, and no
release of sglang_releases.json (0.3.0-0.5.23) does. argparse abbreviates long options only, so
`--dp 4` is `--dp-size 4` and `-dp 4` is "unrecognized arguments"; the test below shows it with
Python's own argparse, independent of kvplan.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.check.engine_flags import OPTION_TABLES
from kvplan.check.flag_spelling import undeclared_single_dash

ROOT = Path(__file__).resolve().parents[2]
ASSET = ROOT / "tests/assets/check/outcomes/100-sglang-gpt-oss-120b-tp2-dp4-8xh20-started.sh"


def test_argparse_abbreviates_long_options_only() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-parallel-size", "--dp-size", type=int, default=1)
    parser.add_argument("--tensor-parallel-size", "--tp-size", type=int, default=1)
    assert parser.parse_args(["--dp", "4", "--tp", "2"]).data_parallel_size == 4
    ns, extra = parser.parse_known_args(["--tp", "2", "-dp", "4"])
    assert (ns.tensor_parallel_size, ns.data_parallel_size, extra) == (2, 1, ["-dp", "4"])


def test_no_sglang_release_read_declares_a_single_dash_option() -> None:
    table = OPTION_TABLES["sglang"]
    assert table.history is not None
    every = set(table.flags).union(*table.history.sets.values())
    assert len(table.history.releases) > 100 and table.history.releases[0] == "0.3.0"
    assert not [f for f in every if not f.startswith("--")]


def test_the_rule() -> None:
    why = undeclared_single_dash("sglang", "-dp")
    assert why is not None and "0.3.0 to 0.5.23" in why
    assert why.endswith("did you mean --dp-size (the long option `--dp` abbreviates)?")
    assert undeclared_single_dash("sglang", "--dp") is None  # a long option: abbreviated
    assert undeclared_single_dash("sglang", "-d") is None  # one letter: not this rule
    assert undeclared_single_dash("vllm", "-tp") is None  # vLLM declares -tp, -dp, -pp


def test_the_outcome_asset_is_refused_and_long_dp_is_read(tmp_path: Path) -> None:
    o = check_paths([str(ASSET)]).outcomes[0]
    assert o.verdict == "FAIL"
    assert any(r.startswith("the engine refuses it: SGLang has no option -dp: argparse")
               for r in map(str, o.reasons)), o.reasons
    script = tmp_path / "dp.sh"
    script.write_text("python3 -m sglang.launch_server --model openai/gpt-oss-120b --tp 2 "
                      "--dp 4 --port 20111\n")
    (tmp_path / "dp.sh.kvplan.yaml").write_text("gpu: h20\n")
    long = check_paths([str(script)]).outcomes[0]
    assert long.verdict == "PASS"
    assert "4 data-parallel engines per pod" in long.notes


@pytest.mark.parametrize("line", [
    "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 1",
])
def test_a_declared_single_dash_option_passes(tmp_path: Path, line: str) -> None:
    script = tmp_path / "v.sh"
    script.write_text(line + "\n")
    (tmp_path / "v.sh.kvplan.yaml").write_text("gpu: h100\n")
    assert check_paths([str(script)]).outcomes[0].verdict == "PASS"
