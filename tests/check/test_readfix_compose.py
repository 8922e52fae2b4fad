"""Task readfix, item 2: a compose command's `$(NAME)` was expanded from the service's
environment as the kubelet expands a pod's, and a string command was split by Python's shlex.
compose-go (compose-spec/compose-go e70e961) leaves `$(` as written (template/template.go:29-50:
its pattern matches `$$`, `$NAME` and `${...}` only) and splits a string with mattn/go-shellwords
v1.0.12 (types/command.go:70-84; go.mod:11), no substitution, no shell. So `$(MODEL)` reaches the
server as text, refused with the reason; a string compose cannot split is refused; what it drops
after an operator is said. Inputs: tests/assets/check/corpus/user-repos/inferscale-docker-compose.
gpu.yaml (SOURCES.md) with its model word replaced; go-shellwords' own test cases
(tests/assets/check/readers/go-shellwords-cases.tsv)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.manifests.compose_words import compose_split
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

ASSETS = Path(__file__).parents[1] / "assets" / "check"
INFERSCALE = ASSETS / "corpus" / "user-repos" / "inferscale-docker-compose.gpu.yaml"
CASES = ASSETS / "readers" / "go-shellwords-cases.tsv"
WHY = ("compose interpolates $NAME and ${NAME} (with :- :+ :? and $$), not $(...), which it "
       "leaves as written (compose-go template/template.go:29-50), and no shell runs a compose "
       "command (a list is taken as written, a string split as mattn/go-shellwords v1.0.12 "
       "shellwords.go splits it, with no substitution), so the server would receive the text as "
       "written; write ${MODEL} (compose fills it from .env or the shell that runs compose), or "
       "run the command through sh -c")


def test_go_shellwords_own_cases_all_hold() -> None:
    """The 31 cases of go-shellwords v1.0.12's tests that hold with ParseEnv and ParseBacktick
    off, as compose-go calls it: words, errors, and the stop at `2>`."""
    rows = [line.split("\t") for line in CASES.read_text().splitlines()
            if line and not line.startswith("#")][1:]
    assert len(rows) == 31
    wrong = []
    for test, given, want in rows:
        try:
            got: object = compose_split(json.loads(given))[0]
        except ValueError:
            got = "ERROR"
        if got != (want if want == "ERROR" else json.loads(want)):
            wrong.append((test, given, got, want))
    assert wrong == []


def _compose(tmp_path: Path, old: str, new: str) -> Path:
    text = INFERSCALE.read_text()
    assert old in text
    f = tmp_path / "docker-compose.yaml"
    f.write_text(text.replace(old, new, 1).replace(
        "    HF_TOKEN: ${HF_TOKEN:-}\n",
        "    HF_TOKEN: ${HF_TOKEN:-}\n    MODEL: Qwen/Qwen2.5-1.5B-Instruct\n", 1))
    return f


def _vllm(runner: CliRunner, f: Path) -> dict:
    out = json.loads(invoke(runner, "check", str(f), "-f", "json").output)
    return next(r for r in out["results"] if r["name"] == "vllm")


def test_a_dollar_paren_in_a_list_or_string_command_is_text(runner: CliRunner,
                                                               tmp_path: Path) -> None:
    """Before: `$(MODEL)` with MODEL in the service's environment was the model, a WARN over the
    catalog's GPUs, as the unchanged file is. Now the ERROR says why, in both forms."""
    listed = _compose(tmp_path, "      - Qwen/Qwen2.5-1.5B-Instruct\n", "      - $(MODEL)\n")
    r = _vllm(runner, listed)
    assert r["verdict"] == "ERROR"
    assert [e["message"] for e in r["errors"]] == [f"'$(MODEL)': {WHY}"]
    string = _compose(tmp_path, """    command:
      - Qwen/Qwen2.5-1.5B-Instruct
      - --served-model-name=qwen2.5-1.5b-instruct
""", "    command: $(MODEL) --served-model-name=qwen2.5-1.5b-instruct\n")
    r = _vllm(runner, string)
    assert [e["message"] for e in r["errors"]] == [f"'$(MODEL)': {WHY}"]
    # `$$(MODEL)` is compose's escape: the same text `$(MODEL)` reaches the server
    escaped = _compose(tmp_path, "      - Qwen/Qwen2.5-1.5B-Instruct\n", "      - $$(MODEL)\n")
    assert [e["message"] for e in _vllm(runner, escaped)["errors"]] == [f"'$(MODEL)': {WHY}"]
    # the unchanged file: planned (a WARN: no GPU named)
    assert _vllm(runner, _compose(tmp_path, "x-gpu", "x-gpu"))["verdict"] == "WARN"


def test_a_string_compose_cannot_split_and_one_it_cuts(runner: CliRunner, tmp_path: Path) -> None:
    """An unclosed quote: compose refuses the file ("invalid command line string"); shlex's
    error made kvplan split at spaces and read `"Qwen/...` as the model. An unquoted `&&`: compose
    runs the words before it, which kvplan reads, and says what is not run; before, `&&`, `echo`
    and `done` reached vLLM's argparse as words (a FAIL, "unrecognized arguments")."""
    entry = '    entrypoint: ["vllm", "serve"]\n'
    opened = _compose(tmp_path, entry, '    entrypoint: vllm serve "Qwen/Qwen2.5-1.5B-Instruct\n')
    r = _vllm(runner, opened)
    assert [(e["field"], e["message"]) for e in r["errors"]] == [(
        "services.vllm.entrypoint", "'vllm serve \"Qwen/Qwen2.5-1.5B-Instruct': compose refuses "
        "this string (\"invalid command line string\", mattn/go-shellwords v1.0.12 "
        "shellwords.go:214-223, :277-279: an unclosed quote, $( or backquote, or a bare "
        "parenthesis); close it, or write the command as a list")]
    cut = _compose(tmp_path, entry, "    entrypoint: vllm serve && echo done\n")
    r = _vllm(runner, cut)
    assert r["verdict"] == "WARN" and r["model"] == "qwen2.5-1.5b"
    assert ("services.vllm.entrypoint: compose splits the string with mattn/go-shellwords "
            "v1.0.12 shellwords.go, which stops at the unquoted '&' (:240-250): only `vllm "
            "serve` is run, the rest is not (no shell runs it; use sh -c for a shell line)"
            in r["notes"])
