"""A `cd` inside a subshell moves that subshell only (task h43scripts): `( cd dir && ... )`,
`(cd dir && ...)`, a subshell over several lines, and a command substitution `$( ... )`, on one
line or several. Within the subshell the `cd` applies to the commands after it; after the `)`
the directory (and the variables) are the ones before it (bash(1), "Compound Commands" and
"Command Substitution": both run in a subshell environment, whose changes do not remain).

The scripts of tests/assets/check/subshell (README.md there: synthetic, no public launch script
with a subshell cd next to a server start was found) each name a file that tells the readings
apart. Llama-3.1-70B in bf16 is 70.6e9 x 2 B = 141 GB of weights: at tensor-parallel-size 1 one
H100 (85 GB) cannot hold them (FAIL); at 4 (35 GB a GPU) the server starts (PASS)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.manifests.script_files import Cwd
from kvplan.check.manifests.shell_lex import read_script
from kvplan.cli import app

runner = CliRunner()
SUB = Path(__file__).parents[1] / "assets" / "check" / "subshell"


def _cwds(text: str) -> list[tuple[str, str]]:
    """(the --config file, the directory below the start) of each `vllm serve` command."""
    out = []
    for cmd, _, _ in read_script(text).commands:
        if cmd.words[:2] == ["vllm", "serve"]:
            out.append((cmd.words[cmd.words.index("--config") + 1], cmd.cwd.path))
    return out


def test_the_directory_reverts_after_each_kind_of_subshell():
    """Written by hand from the shell's rules: inside each subshell its cd applies (a.yaml in
    sub, c.yaml in sub2, g.yaml in sub5); after each `)` the directory is the start again (''),
    until the plain `cd real` of the last lines, which lasts."""
    text = """( cd sub && vllm serve m --config a.yaml )
vllm serve m --config b.yaml
(cd sub2 && vllm serve m --config c.yaml)
vllm serve m --config d.yaml
(cd sub3; make)
vllm serve m --config e.yaml
X=$(cd sub4 && pwd)
vllm serve m --config f.yaml
(
  cd sub5
  vllm serve m --config g.yaml
)
vllm serve m --config h.yaml
Y=$(
  cd sub6
  pwd
)
vllm serve m --config i.yaml
cd real
vllm serve m --config j.yaml
"""
    assert _cwds(text) == [("a.yaml", "sub"), ("b.yaml", ""), ("c.yaml", "sub2"),
                           ("d.yaml", ""), ("e.yaml", ""), ("f.yaml", ""), ("g.yaml", "sub5"),
                           ("h.yaml", ""), ("i.yaml", ""), ("j.yaml", "real")]


def test_a_subshells_variables_end_with_it_and_the_words_keep_no_parenthesis():
    """`( MODEL=x; ... )` sets MODEL in the subshell only; the `)` glued to the last word is
    the subshell's end, not part of the file name."""
    script = read_script("(export CFG=in.yaml; vllm serve m --config $CFG)\n"
                         "vllm serve m --config ${CFG:-out.yaml}\n")
    (first, env1, _), (second, env2, _) = script.commands
    assert first.words[-1] == "$CFG" and env1["CFG"] == "in.yaml"
    assert "CFG" not in env2 and second.words[-1] == "${CFG:-out.yaml}"


def test_a_case_pattern_inside_a_subshell_does_not_close_it():
    """`big)` and `(small)` (a pattern's optional `(`) are patterns of case branches, neither
    the subshell's end nor a new one: the server after the esac still runs in sub; after the
    `)` of line 7, at the start."""
    text = """(
  cd sub
  case "$MODE" in
    big) vllm serve m --config big.yaml ;;
    (small) vllm serve m --config small.yaml ;;
  esac
  vllm serve m --config in.yaml
)
vllm serve m --config out.yaml
"""
    assert _cwds(text) == [("big.yaml", "sub"), ("small.yaml", "sub"), ("in.yaml", "sub"),
                           ("out.yaml", "")]


def test_a_pushd_in_a_subshell_is_popped_with_it():
    cmds = read_script("(pushd a; vllm serve m --config x.yaml)\npopd\n"
                       "vllm serve m --config y.yaml\n").commands
    assert [c.cwd for c, _, _ in cmds][0].path == "a"
    # the outer shell has no pushd of its own: its popd fails, and the directory is unknown
    assert cmds[1][0].cwd == Cwd("unknown", "", 2, "(popd)")


def _check(rel: str) -> tuple[int, list[str], str]:
    res = runner.invoke(app, ["check", str(SUB / rel), "--gpu", "h100"])
    lines = [line for line in res.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    return res.exit_code, lines, " ".join(res.stdout.split())


def test_a_build_steps_subshell_cd_does_not_move_the_server():
    """buildsteps/build-then-serve.sh: `( cd kernels && pip install -e . )`, then `vllm serve ...
    --config configs/serve.yaml` from the script's folder: configs/serve.yaml (TP 4), PASS.
    Before: kernels/configs/serve.yaml (TP 1), FAIL."""
    code, lines, out = _check("buildsteps/build-then-serve.sh")
    assert code == 0 and len(lines) == 1 and lines[0].startswith("PASS  line 11"), out
    assert "--config configs/serve.yaml: 2 option(s) read from configs/serve.yaml;" in out
    assert "kernels" not in out


def test_each_server_reads_the_file_of_its_own_subshell():
    """pd/prefill-decode.sh: prefill (line 4, `(cd prefill && ...)`) reads prefill/serve.yaml
    (TP 4, 8,192 tokens), decode (line 5, `( cd decode && ...)`) decode/serve.yaml (TP 4,
    16,384). Same TP, same GPUs: one pool of 511,168 tokens each, which holds
    511,168 // 8,192 = 62 and 511,168 // 16,384 = 31 sequences (511,200 before task h51blocks
    booked torch's whole blocks from vLLM 0.21: Llama-3.1-70B's embeddings and LM head at TP 4,
    32,064 rows x 8,192 x 2 B = 501 MiB each -> 502, 2 MiB, two blocks of 1,310,720 B; 517,776,
    63 and 31 before task
    h43graphs priced the CUDA-graph estimate by its capture sizes; 500,832, 61 and 30 until task
    h44graphbase booked it as 358,612,992 + 100 later graphs x 80 layers x 89,653 B =
    1,075,836,992 B for 1,925,180,640: 849,343,648 B, 648 blocks of 1,310,720 B, 10,368 tokens
    more). Before: the prefill's `(cd` was not read, no file was found and TP 1 FAILed."""
    code, lines, out = _check("pd/prefill-decode.sh")
    assert code == 0, out
    assert lines[0].startswith("PASS  line 4  prefill-decode.sh: starts; holds 62 sequences of "
                               "8,192 tokens per replica (511,168 tokens in the pool)")
    assert lines[1].startswith("PASS  line 5  prefill-decode.sh: starts; holds 31 sequences of "
                               "16,384 tokens per replica (511,168 tokens in the pool)")
    assert "--config serve.yaml: 2 option(s) read from prefill/serve.yaml" in out
    assert "--config serve.yaml: 2 option(s) read from decode/serve.yaml" in out


def test_a_multiline_command_substitutions_cd_ends_at_its_parenthesis():
    """cachedir/cache-dir.sh: `CACHE_DIR=$(` / `cd cache` / `pwd` / `)`, then `vllm serve ...
    --config serve.yaml`: the script's serve.yaml (TP 4), PASS. Before: cache/serve.yaml
    (TP 1), FAIL."""
    code, lines, out = _check("cachedir/cache-dir.sh")
    assert code == 0 and lines[0].startswith("PASS  line 10"), out
    assert "--config serve.yaml: 2 option(s) read from serve.yaml;" in out
