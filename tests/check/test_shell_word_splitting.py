"""A launch script's words as bash splits them (task h82shell): quotes kept in view while a
command is tokenized (kvplan.check.manifests.shell_words.scan), an unquoted expansion split into
words once expanded and a quoted one kept whole (bash(1), "Word Splitting"), `${VAR:+WORDS}`
(bash(1), "Parameter Expansion": WORDS when VAR is set and not null, else nothing), and a `case`
whose subject the script sets (`${1:-qwen3-30b}`: the script run without arguments) read in the
branch that runs. The real case: guardkit's vllm-graphiti.sh (tests/assets/check/outcomes 83/84)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.manifests.shell_lex import expand_split, read_script
from kvplan.check.manifests.shell_words import ShellWord, scan, unmark
from tests.check.test_check_outcomes import pool_tokens

TOKEN = '${HF_TOKEN:+-e "HF_TOKEN=$HF_TOKEN"}'


def test_scan_keeps_an_expansion_with_quotes_and_spaces_whole() -> None:
    words = scan(f'docker run {TOKEN} -e "A=b c" "$IMAGE" $EXTRA_ARGS x&&y')
    assert [unmark(w) for w in words] == [
        "docker", "run", TOKEN, "-e", "A=b c", "$IMAGE", "$EXTRA_ARGS", "x", "&&", "y"]
    # unquoted expansions are marked, quoted ones are not
    assert [w != unmark(w) for w in words] == [
        False, False, True, False, False, False, True, False, False, False]


def _split(text: str, env: dict[str, str]) -> list[str]:
    return [x for w in scan(text) for x in expand_split(ShellWord(w), env)]


def test_an_unquoted_expansion_splits_and_a_quoted_one_does_not() -> None:
    env = {"EXTRA_ARGS": "--trust-remote-code --kv-cache-dtype fp8\n  --enable-prefix-caching"}
    assert _split("vllm serve m $EXTRA_ARGS", env) == [
        "vllm", "serve", "m", "--trust-remote-code", "--kv-cache-dtype", "fp8",
        "--enable-prefix-caching"]
    assert _split('vllm serve m "$EXTRA_ARGS"', env) == ["vllm", "serve", "m", env["EXTRA_ARGS"]]
    assert _split("a ${EMPTY} b", {"EMPTY": ""}) == ["a", "b"]  # an empty one leaves no word
    assert _split("--x=$V", {"V": "1 2"}) == ["--x=1", "2"]
    assert _split("a $UNSET b", {}) == ["a", "$UNSET", "b"]  # kept as written, named later
    # inside an arithmetic or command substitution: one word, evaluated whole (outcome 73's
    # `--tp-size $((${num_prefill}*4))`)
    assert _split("--tp-size $((${n}*4))", {"n": "1"}) == ["--tp-size", "4"]


def test_an_alternate_value_is_its_words_or_nothing() -> None:
    assert _split(f"docker run {TOKEN} img", {}) == ["docker", "run", "img"]
    assert _split(f"docker run {TOKEN} img", {"HF_TOKEN": "hf x"}) == [
        "docker", "run", "-e", "HF_TOKEN=hf x", "img"]
    assert _split(f"docker run {TOKEN} img", {"HF_TOKEN": ""}) == ["docker", "run", "img"]


CASE = """#!/bin/bash
PRESET="${1:-big}"
case "$PRESET" in
  small|tiny)
    LEN=4096
    ;;
  big|default|"")
    LEN=32768
    ARGS="--kv-cache-dtype fp8 --enable-prefix-caching"
    ;;
  *)
    exit 1
    ;;
esac
vllm serve Qwen/Qwen3-8B --max-model-len "$LEN" $ARGS
"""


def test_a_case_on_a_value_the_script_sets_runs_one_branch() -> None:
    script = read_script(CASE)
    [(cmd, env, _)] = [c for c in script.commands if c[0].words[0] == "vllm"]
    assert (env["LEN"], env["ARGS"]) == ("32768", "--kv-cache-dtype fp8 --enable-prefix-caching")
    assert cmd.block == ""
    assert script.cases == [(14, "the branch `big|default|\"\")` of the `case` of line 3 runs, "
                                 "as $PRESET is 'big'")]
    # the `exit 1` of the branch that does not run is not read
    assert not any(c[0].words[0] == "exit" for c in script.commands)
    # an unknown subject: the branches stay alternatives, as before
    open_case = read_script(CASE.replace('"${1:-big}"', '"$1"'))
    assert [c[0].block for c in open_case.commands if c[0].words[0] == "vllm"] == [""]
    assert "LEN" not in [c for c in open_case.commands if c[0].words[0] == "vllm"][0][1]


def test_the_case_script_is_checked_with_its_branch(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text(CASE)
    written = tmp_path / "written.sh"
    written.write_text("vllm serve Qwen/Qwen3-8B --max-model-len 32768 --kv-cache-dtype fp8 "
                       "--enable-prefix-caching\n")
    got = {Path(o.file).name: o for o in check_paths(
        [str(tmp_path / "serve.sh"), str(written)], default_gpu="h100").outcomes}
    assert got["serve.sh"].verdict == got["written.sh"].verdict == "PASS"
    assert pool_tokens(got["serve.sh"]) == pool_tokens(got["written.sh"]) > 0
