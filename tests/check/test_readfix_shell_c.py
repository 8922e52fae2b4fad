"""Task readfix, item 4 (the notes of earlier stops): a container's `sh -c` script.

- An integer `$(( ))` stayed as written ("'$((4096*2))' is not a number"); bash evaluates it
  (bash(1), "Arithmetic Expansion"), as kvplan does in a script file (shell_arith): now the same
  here, and one kvplan does not evaluate (`$((9**9**9))`, a `**` tower) is said to be an
  arithmetic expansion, as in a script file.
- A quote the script never closes passed: shlex's error made kvplan split the script at spaces
  and plan it (a PASS). bash stops on it before running any command ("unexpected EOF while
  looking for matching `\"'"): now an ERROR.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke


def _pod(tmp_path: Path, script: str) -> Path:
    f = tmp_path / "pod.yaml"
    f.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n"
                 "  template:\n    spec:\n      containers:\n      - name: v\n"
                 "        image: vllm/vllm-openai:v0.10.0\n"
                 f"        command: [sh, -c, {json.dumps(script)}]\n"
                 "        resources: {limits: {nvidia.com/gpu: 1}}\n")
    return f


SERVE = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len "


def _result(runner: CliRunner, f: Path) -> dict:
    [r] = json.loads(invoke(runner, "check", str(f), "--gpu", "h100", "-f", "json").output)[
        "results"]
    return r


def test_arithmetic_in_a_sh_c_script(runner: CliRunner, tmp_path: Path) -> None:
    r = _result(runner, _pod(tmp_path, SERVE + "$((4096*2))"))
    assert (r["verdict"], r["max_model_len_tokens"]) == ("PASS", 8192)
    r = _result(runner, _pod(tmp_path, SERVE + "$((128*128))"))
    assert (r["verdict"], r["max_model_len_tokens"]) == ("PASS", 16384)
    r = _result(runner, _pod(tmp_path, SERVE + "$((9**9**9))"))
    assert [(e["field"], e["message"]) for e in r["errors"]] == [(
        "--max-model-len", "'$((9**9**9))': an arithmetic expansion kvplan does not evaluate: "
        "a power of a power (a `**` tower); write the value in the script")]


def test_an_unclosed_quote_in_a_sh_c_script(runner: CliRunner, tmp_path: Path) -> None:
    r = _result(runner, _pod(tmp_path, SERVE + "4096 --served-model-name \"qwen"))
    assert r["verdict"] == "ERROR"
    assert [e["message"] for e in r["errors"]] == [
        "a \" quote in the `sh -c` script is never closed; the shell stops on it before running "
        "any command (bash: \"unexpected EOF while looking for matching `\"'\"), so the server "
        "never starts: close the quote"]
    r = _result(runner, _pod(tmp_path, "vllm serve 'Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"))
    assert r["errors"][0]["message"].startswith("a ' quote in the `sh -c` script is never closed")
    r = _result(runner, _pod(tmp_path, SERVE + "4096 --served-model-name `q"))  # shlex passed it
    assert r["errors"][0]["message"].startswith("a ` quote in the `sh -c` script is never closed")
    # closed quotes, an apostrophe in a comment, an escaped quote: read as before
    r = _result(runner, _pod(tmp_path, "# it's the server\n" + SERVE + "4096 --served-model-name "
                                       "\"q\\\"wen\""))
    assert (r["verdict"], r["max_model_len_tokens"]) == ("PASS", 4096)
