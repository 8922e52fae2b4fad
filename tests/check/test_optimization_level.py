"""`kvplan check` reads vLLM's optimization level and compilation mode (task h44checkgaps):
`-O3`, `-O 0`, `--optimization-level 1`, `-O.KEY`, `--compilation-config '{"mode": 0}'`,
`-cc.level`, into engine.cudagraph_mode (kvplan.check.manifests.optimization), and refuses the
spellings the image's release does not take."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check.argv import Invocation, Word, parse
from kvplan.check.manifests.optimization import without_piecewise
from tests.check.check_cli_run import check_script, docker_script

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"


def test_short_o_forms_parse_as_vllm_reads_them():
    """FlexibleArgumentParser (0.34.0 utils/argparse_utils.py:395-406): -O3, -O=3 and -O 3 are
    the level 3; -O.KEY=V keeps its key; the model stays the positional."""
    for words in (["-O3"], ["-O=3"], ["-O", "3"]):
        inv = Invocation("vllm", "vllm serve", [Word(w, 1) for w in ["m", *words]])
        parsed = parse(inv)
        assert parsed.options == {"-O": ("3", 1)} and [w.text for w in parsed.positional] == ["m"]
    inv = Invocation("vllm", "vllm serve", [Word(w, 2) for w in ["-O.mode=0", "-O", "{}"]])
    assert parse(inv).options == {"-O.mode": ("0", 2), "-O": ("{}", 2)}


def test_levels_set_the_graph_mode_and_move_the_pool(tmp_path: Path):
    """H100, the default release (0.34), 1,024 sequences / 8,192 tokens. The graph estimate is
    a first capture (358,612,992 B) + later graphs x 32 layers x 89,653 B (task h44graphbase).
    The default FULL_AND_PIECEWISE capture is 102 graphs in 2 modes (51 PIECEWISE + 51 FULL
    decode, 1, 2, 4, 8 ... 248, 256 ... 512): 358,612,992 + 100 x 32 x 89,653 = 645,502,592 B,
    leaving 64,144,578,944 B, 30,586 blocks of 2,097,152 B (16 x 131,072 B a token): 489,376.
    -O0 (cudagraph_mode NONE, config/vllm.py:297) books none: 64,790,081,536 B, 30,894 blocks,
    494,304 tokens. -O1 (PIECEWISE, :318) books 51 graphs in one mode: 358,612,992 + 50 x 32 x
    89,653 = 502,057,792 B, leaving 64,288,023,744 B, 30,654 blocks: 490,464.
    -O3 (FULL_AND_PIECEWISE, :360) is the default's 489,376."""
    for options, pool in (("", "489,376"), ("-O0", "494,304"), ("-O 0", "494,304"),
                          ("--optimization-level 1", "490,464"), ("-O3", "489,376")):
        code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} {options}\n")
        assert code == 0 and f"({pool} tokens in the pool)" in out, (options, out)
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} -O0\n")
    assert "-O0: cudagraph_mode NONE: optimization level 0's cudagraph_mode NONE" in out
    assert "not used by kvplan's plan" not in out and "has no option -O0" not in out


def test_a_stated_graph_mode_stays_and_mode_0_drops_the_piecewise_graphs(tmp_path: Path):
    """A stated cudagraph_mode is kept over the level's default (_apply_optimization_level_
    defaults): -O0 -cc.cudagraph_mode=FULL captures 51 FULL graphs (FULL needs no piecewise
    compilation, so mode NONE keeps it): 490,464 as -O1's 51 in one mode. Compilation mode 0 under the
    default level: FULL_AND_PIECEWISE without its piecewise part is FULL_DECODE_ONLY from 0.30
    (0.34.0 config/vllm.py:1050-1067), 51 FULL decode graphs: 490,464 again."""
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} -O0 -cc.cudagraph_mode=FULL\n")
    assert code == 0 and "(490,464 tokens in the pool)" in out, out
    code, out = check_script(tmp_path, f"#!/bin/sh\n{SERVE} --compilation-config '{{\"mode\": 0}}'\n")
    assert code == 0 and "(490,464 tokens in the pool)" in out, out
    assert "cudagraph_mode FULL_DECODE_ONLY" in out


@pytest.mark.parametrize(("mode", "release", "kept"), [
    ("FULL_AND_PIECEWISE", (0, 34), "FULL_DECODE_ONLY"), ("PIECEWISE", (0, 30), "NONE"),
    ("FULL_AND_PIECEWISE", (0, 29), "NONE"), ("FULL", (0, 25), "FULL"),
    ("FULL", (0, 12, 0), "NONE"), ("FULL_DECODE_ONLY", None, "FULL_DECODE_ONLY"),
])
def test_without_piecewise_by_release(mode: str, release: tuple[int, ...] | None, kept: str):
    """0.12.x: any mode -> NONE (0.12.0 :648-658); 0.13-0.29: a piecewise mode -> NONE (0.29.0
    :1471-1481); 0.30 on: without_piecewise (unnamed: the newest)."""
    assert without_piecewise(mode, release) == kept


def test_releases_refuse_what_they_do_not_take(tmp_path: Path):
    """--optimization-level came in 0.12.0; -O.KEY is refused from 0.13.0 (read as a level);
    the compilation config's level key from 0.18.0; -cc before 0.12.0; a level outside O0-O3."""
    for tag, options, said in (
            ("v0.11.0", "--optimization-level 0", "vLLM 0.11.0 has no option --optimization-level"),
            ("v0.13.0", "-O.level=3", "vLLM 0.13 and later read -O.level=..."),
            ("v0.18.0", "-cc.level=3", "the compilation config has no key level from 0.18.0"),
            ("v0.11.2", "-cc.cudagraph_mode=NONE", "vLLM 0.11.2 has no option -cc"),
            ("v0.25.0", "-O5", "reads -O5 as --optimization-level '5', which is not a level")):
        code, out = check_script(tmp_path, docker_script(tag, options))
        assert code == 1 and "FAIL" in out and said in out, (tag, options, out)


def test_before_0_12_o_is_the_compile_level_and_moves_no_pool(tmp_path: Path):
    """vLLM 0.11.0: -O3 is --compilation-config's level 3; graphs are captured after sizing
    there, so the pool is the same with and without it (444,576 tokens on the H100)."""
    code, plain = check_script(tmp_path, docker_script("v0.11.0", ""))
    code3, out = check_script(tmp_path, docker_script("v0.11.0", "-O3"))
    assert code == code3 == 0 and "(444,576 tokens in the pool)" in plain
    assert "(444,576 tokens in the pool)" in out
    assert "-O3: on vLLM 0.11.0 -O is --compilation-config" in out
