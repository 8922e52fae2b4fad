"""SGLang started from Python with a ServerArgs object (task h80sglpy): `launch_server(sa)`, fields
set on `sa` after its construction, `Engine(ServerArgs(...))` given positionally, the stated
release's option table for Engine keywords and --config lists, and --kv-cache-dtype /
--attention-backend values where no read release decides them.

The figures a Python start should give are those of the same options on a shell script's command
line, read by the shell reader (kvplan.check.manifests.shell): an independent path to the plan."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app
from tests.conftest import ASSETS

SERVER = ("from sglang.srt.server_args import ServerArgs\n"
          "from sglang.srt.entrypoints.http_server import launch_server\n")
CORPUS = ASSETS / "check" / "sglang_python"


def _check(path: Path) -> str:
    out = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    return out.output


def _pool(output: str) -> tuple[int, int, int]:
    """(sequences, tokens each, tokens in the pool) of the one PASS line."""
    m = re.search(r"holds ([\d,]+) sequences of ([\d,]+) tokens per replica \(([\d,]+) tokens",
                  output)
    assert m is not None, output
    seqs, each, pool = (int(g.replace(",", "")) for g in m.groups())
    return seqs, each, pool


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def test_a_field_set_before_launch_server_is_planned(tmp_path: Path) -> None:
    """The brief's case: planned at the model's own 40,960 tokens before; now at 8,192, as
    `--context-length 8192` on the command line plans it."""
    script = _write(tmp_path, "serve.py", SERVER + 'sa = ServerArgs(model_path="Qwen/Qwen3-8B")\n'
                    "sa.context_length = 8192\nlaunch_server(sa)\n")
    shell = _write(tmp_path, "serve.sh", "python3 -m sglang.launch_server --model-path "
                   "Qwen/Qwen3-8B --context-length 8192\n")
    alone = _write(tmp_path, "alone.sh", "python3 -m sglang.launch_server --model-path "
                   "Qwen/Qwen3-8B\n")
    said = _check(script)
    assert "PASS  line 5" in said, said
    assert _pool(said) == _pool(_check(shell))
    assert _pool(said)[1] == 8192 and _pool(_check(alone))[1] == 40960
    assert "sa.context_length (line 4): set after ServerArgs(...) and before the launch " \
        "(line 5): read as its keyword" in said


def test_the_last_assignment_replaces_the_keyword(tmp_path: Path) -> None:
    script = _write(tmp_path, "engine.py", "import sglang\nfrom sglang import ServerArgs\n"
                    "if __name__ == '__main__':\n"
                    "    sa = ServerArgs(model_path='Qwen/Qwen3-8B', mem_fraction_static=0.5)\n"
                    "    sa.mem_fraction_static = 0.7\n"
                    "    setattr(sa, 'mem_fraction_static', 0.8)\n"
                    "    engine = sglang.Engine(server_args=sa)\n")
    shell = _write(tmp_path, "engine.sh", "python3 -m sglang.launch_server --model-path "
                   "Qwen/Qwen3-8B --mem-fraction-static 0.8\n")
    said = _check(script)
    assert _pool(said) == _pool(_check(shell))
    assert "sa.mem_fraction_static (line 6) replaces the mem_fraction_static= of the " \
        "ServerArgs(...) on line 4" in said


def test_what_is_not_followed_is_named(tmp_path: Path) -> None:
    [t] = read_targets(_write(tmp_path, "main.py", SERVER + (
        "def main(n, cfg):\n"
        "    sa = ServerArgs(model_path='Qwen/Qwen3-8B')\n"
        "    for _ in range(n):\n"
        "        sa.mem_fraction_static = 0.5\n"
        "    if n:\n"
        "        sa.max_running_requests = 4\n"
        "    sa.chunked_prefill_size = cfg.chunk()\n"
        "    sa.context_length += 1\n"
        "    sa.tensor_parallel_size = 2\n"
        "    sa.my_note = 'x'\n"
        "    sa.log_level = cfg.level\n"
        "    configure(sa)\n"
        "    print(sa)\n"
        "    launch_server(sa)\n"
        "    sa.max_total_tokens = 3\n")), {})
    problems = _problems(t)
    assert "mem_fraction_static line 6: sa.mem_fraction_static = ... (line 6) is not followed: " \
        "inside a loop (line 5) the launch is not in" in problems
    assert "max_running_requests line 8: sa.max_running_requests = ... (line 8) is not " \
        "followed: inside an if (line 7) the launch is not in" in problems
    assert "chunked_prefill_size line 9: sa.chunked_prefill_size (line 9): cfg.chunk(): a " \
        "value computed when the script runs" in problems
    assert "context_length line 10: sa.context_length = ... (line 10) is not followed: " \
        "changed by `op=`" in problems
    assert "tensor_parallel_size line 11: sa.tensor_parallel_size (line 11): not a field of " \
        "ServerArgs (--tensor-parallel-size is the command line's spelling of tp_size)" in problems
    assert "set sa.tp_size instead" in problems
    notes = " | ".join(t.notes)
    assert "sa.my_note (line 12): not a field of ServerArgs" in notes
    assert "log_level (line 13) not read" in notes  # no pool option: a note
    assert "sa is handed to configure(...) (line 14) before launch_server(...) (line 16)" in notes
    assert "handed to print" not in notes
    assert "sa.max_total_tokens (line 17) is set after launch_server(...) (line 16)" in notes


def test_a_function_s_own_variable_of_the_name_is_another_object(tmp_path: Path) -> None:
    [t] = read_targets(_write(tmp_path, "two.py", SERVER + (
        "def other():\n"
        "    sa = ServerArgs(model_path='x')\n"
        "    sa.context_length = 5\n"
        "sa = ServerArgs(model_path='Qwen/Qwen3-8B')\n"
        "def later():\n"
        "    sa.context_length = 4096\n"
        "sa.mem_fraction_static = 0.8\n"
        "launch_server(sa)\n")), {})
    assert [p.field for p in t.problems] == ["context_length"], _problems(t)
    assert "it and the launch (line 10) are not in the same function's code" in _problems(t)


def test_engine_given_server_args_positionally_is_a_type_error(tmp_path: Path) -> None:
    said = _check(_write(tmp_path, "pos.py", "import sglang\nfrom sglang import ServerArgs\n"
                         "engine = sglang.Engine(ServerArgs(model_path='Qwen/Qwen3-8B'))\n"))
    assert "ERROR line 3: sglang.Engine(...) (line 3) is given ServerArgs(model_path='Qwen/Qwen3-" \
        in said
    assert "takes keywords only" in said and "srt/entrypoints/engine.py:278" in said
    assert "no model" not in said  # what it said before


def test_run_server_and_a_server_args_keyword(tmp_path: Path) -> None:
    said = _check(_write(tmp_path, "run.py", "from sglang.launch_server import run_server\n"
                         "from sglang.srt.server_args import ServerArgs\n"
                         "run_server(server_args=ServerArgs(model_path='Qwen/Qwen3-8B', "
                         "context_length=8192))\n"))
    assert "PASS  line 3" in said and _pool(said)[1] == 8192


def test_engine_keywords_use_the_pinned_release_s_table(tmp_path: Path) -> None:
    """--cuda-graph-bs is gone from 0.5.20 (OLD_OPTIONS): a notebook pinned to 0.5.19 takes
    `cuda_graph_bs=[...]` as 0.5.19 does; before, the newest table refused the keyword."""
    code = ("!pip install sglang==0.5.19\n"
            "import sglang\n"
            "engine = sglang.Engine(model_path='Qwen/Qwen3-8B', cuda_graph_bs=[1, 2, 4, 8])\n")
    book = {"cells": [{"cell_type": "code", "source": code, "metadata": {}, "outputs": [],
                       "execution_count": None}], "metadata": {}, "nbformat": 4,
            "nbformat_minor": 5}
    import json

    [t] = read_targets(_write(tmp_path, "nb.ipynb", json.dumps(book)), {})
    assert not t.problems, _problems(t)
    assert t.deployment.engine.version == "0.5.19"
    assert t.deployment.engine.cuda_graph_max_bs == 8
    shell = _write(tmp_path, "s.sh", "pip install sglang==0.5.19\npython3 -m sglang.launch_server "
                   "--model-path Qwen/Qwen3-8B --cuda-graph-bs 1 2 4 8\n")
    [s] = read_targets(shell, {})
    assert s.deployment.engine.cuda_graph_max_bs == 8


def test_a_config_list_on_a_single_value_option_of_the_release(tmp_path: Path) -> None:
    """--piecewise-cuda-graph-tokens takes one value (type=json_list_type) in 0.5.7
    (srt/server_args.py:4024-4029) and several from 0.5.8; 0.5.7's config merger writes a YAML
    list as `--key item ...` (srt/server_args_config_parser.py:138-142)."""
    (tmp_path / "c.yaml").write_text("context-length: 8192\n"
                                     "piecewise-cuda-graph-tokens: [128, 256]\n")
    for release, refused in (("0.5.7", True), ("0.5.8", False)):
        script = _write(tmp_path, f"s{release}.sh", "cd \"$(dirname \"$0\")\"\n"
                        f"pip install sglang=={release}\n"
                        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                        "--config c.yaml\n")
        said = _check(script)
        assert ("SGLang 0.5.7's --piecewise-cuda-graph-tokens takes one value, so argparse "
                "stops on the rest (256: unrecognized arguments)" in said) is refused, said


def test_kv_cache_dtype_without_a_release_is_checked_against_the_default(tmp_path: Path) -> None:
    """sglang 0.5.23 srt/arg_groups/fields/model.py:197-219: no `fp8` among the choices (and
    srt/mem_cache/kv_cache_dtype.py:90 raises "Unsupported kv_cache_dtype" past argparse)."""
    said = _check(_write(tmp_path, "fp8.sh", "python3 -m sglang.launch_server --model-path "
                         "Qwen/Qwen3-8B --kv-cache-dtype fp8\n"))
    assert "FAIL  line 1" in said
    assert "the file names no SGLang release; SGLang 0.5.23, the one kvplan plans with, takes " \
        "--kv-cache-dtype auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, " \
        "fp4_mx_block16, not fp8" in said
    assert "no SGLang release read, 0.3.0 to 0.5.23, takes it" in said
    ok = _check(_write(tmp_path, "e4m3.sh", "python3 -m sglang.launch_server --model-path "
                       "Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3\n"))
    assert "PASS  line 1" in ok


def test_a_value_an_older_release_takes_is_noted_without_a_release(tmp_path: Path) -> None:
    [t] = read_targets(_write(tmp_path, "old.sh", "python3 -m sglang.launch_server --model-path "
                              "Qwen/Qwen3-8B --attention-backend cutlass_mla\n"), {})
    assert any("SGLang 0.5.19 took it, 0.5.20 removed it; a plugin may add backends" in n
               for n in t.notes), t.notes
    assert not t.refusals


def test_a_newer_release_is_checked_against_the_newest_choices(tmp_path: Path) -> None:
    said = _check(_write(tmp_path, "new.sh", "pip install sglang==0.5.30\npython3 -m "
                         "sglang.launch_server --model-path Qwen/Qwen3-8B --kv-cache-dtype fp8\n"))
    assert "FAIL  line 2" in said
    assert "SGLang 0.5.30 is newer than the newest release read, 0.5.23, which takes " \
        "--kv-cache-dtype auto" in said
    assert "its options, and the values of --kv-cache-dtype, --attention-backend, are checked " \
        "against 0.5.23's" in said


def test_the_public_files() -> None:
    """tests/assets/check/sglang_python: EXPECTED.md's lines (the held-out ones first run)."""
    got = {}
    for path in sorted(CORPUS.rglob("*.py")):
        got[path.name] = sorted((t.line, "PASS" if t.deployment and not t.problems
                                 and not t.refusals else "ERROR" if t.problems else "FAIL")
                                for t in read_targets(path, {}))
    assert got == {
        "minicpmo-engine-server-args.py": [(28, "ERROR")],
        "sglang-engine-load-model.py": [(23, "ERROR")],
        "rollout-lora-server.py": [(31, "ERROR"), (64, "PASS")],
        "openforge-serve-sglang.py": [(52, "ERROR")],
        "textonly-launcher.py": [(35, "ERROR")],
    }
    said = _check(CORPUS / "rollout-lora-server.py")
    assert _pool(said) == (15, 40960, 616219)
    assert "load_balancing_method: not a keyword sglang takes" in said


def test_launch_server_handed_to_a_process_is_named(tmp_path: Path) -> None:
    """`Process(target=launch_server, args=(sa,))` starts the server where kvplan does not
    follow: an ERROR on its line, and a folder walk reads the file."""
    folder = tmp_path / "repo"
    folder.mkdir()
    _write(folder, "serve.py", "import multiprocessing\n" + SERVER +
           "sa = ServerArgs(model_path='Qwen/Qwen3-8B')\n"
           "proc = multiprocessing.Process(target=launch_server, args=(sa,))\n")
    said = _check(folder)
    assert "ERROR line 5: launch_server (sglang's server function) is handed on as a value in " \
        "`multiprocessing.Process(target=launch_server, args=(sa,))`, not called" in said, said
