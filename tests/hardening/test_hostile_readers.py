"""Task h70hostile's findings: hostile and odd inputs on the readers added in the last stops (shell
scripts' sizes, side files, Python scripts and notebooks, pip pins), found by benchmarks/sweep.py
over the newest assets and by hand-written variants. Each reproducer under tests/assets/hostile
names the real file it came from. Run in-process (typer's CliRunner), well under a second each.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.shell_limits import (
    MAX_COMMAND_CHARS,
    MAX_SCRIPT_BYTES,
    MAX_VALUE_CHARS,
)
from tests.conftest import invoke

RUNNER = CliRunner()
ASSETS = Path(__file__).resolve().parents[1] / "assets"
HOSTILE = ASSETS / "hostile"
SCRIPT = ASSETS / "check" / "outcomes" / "23-vllm-qwen3-8b-a800-v0-started.sh"


def test_shell_limits_are_the_documented_ones() -> None:
    assert (MAX_SCRIPT_BYTES, MAX_COMMAND_CHARS, MAX_VALUE_CHARS) == (
        512 * 1024, 64 * 1024, 64 * 1024)  # docs/limits.md


def _cpu(*args: str):  # noqa: ANN202 - typer's Result type
    start = time.process_time()
    result = invoke(RUNNER, *args)
    return result, time.process_time() - start


def test_a_variable_doubled_sixty_times_is_one_error_not_a_hang() -> None:
    """script-variable-doubled.sh: a real script with `A=xx` and sixty `A="$A$A"` lines, A then
    the server's --served-model-name. kvplan expanded each value in full: the run grew A toward
    2^61 characters and did not end (killed after 120 s). Now the first value past 65,536
    characters (line 26: 2 x 32,768) is one ERROR on its line, exit 2, in check and size."""
    path = HOSTILE / "script-variable-doubled.sh"
    said = ("line 26: a word of this command expands to more than 65,536 characters, over what "
            "kvplan reads in a launch script (docs/limits.md); write the value out, or describe "
            "the deployment in a kvplan/v1 file")
    result, cpu = _cpu("check", str(path))
    assert result.exit_code == 2, result.output
    assert f"ERROR {said}\n" in result.output, result.output
    assert cpu < 2, cpu
    result = invoke(RUNNER, "size", str(path))
    assert result.exit_code == 2, result.output
    assert f"error: {path}: {said}" in result.output, result.output


def test_a_command_of_70000_characters_is_one_error() -> None:
    """script-command-70k.sh: a real script whose server line has a 70,000-character
    --served-model-name. shlex grows a token one character at a time: a 2 MB word took 47 CPU
    seconds, 2.4 MB of short lines 11 s. A command (its continuation lines joined) over 65,536
    characters is now one ERROR on its first line."""
    path = HOSTILE / "script-command-70k.sh"
    result, cpu = _cpu("check", str(path))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 11: a command of 70,231 characters (its continuation lines joined), over "
            "the 65,536 kvplan reads in a launch script (docs/limits.md); describe the deployment "
            "in a kvplan/v1 file\n") in result.output, result.output
    assert cpu < 2, cpu


def test_a_script_over_512_kib_is_one_error_in_check_and_size(tmp_path: Path) -> None:
    """The real script with 70,000 `echo hi` lines before its server (560,000 bytes more,
    written here rather than stored): check took 3 s a 100,000 lines, size and explain 6 s
    (they read it twice); a 2.4 MB one 11 and 18 s. Over 524,288 bytes it is refused with its
    size, as a Python script is."""
    lines = SCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "serve.sh"
    path.write_text("".join(lines[:8]) + "echo hi\n" * 70_000 + "".join(lines[8:]),
                    encoding="utf-8")
    size = path.stat().st_size
    assert size == SCRIPT.stat().st_size + 560_000
    said = (f"line 1: {size:,} bytes of shell script, over the 524,288 kvplan reads in a launch "
            "script (docs/limits.md); describe the deployment in a kvplan/v1 file")
    result, cpu = _cpu("check", str(path))
    assert result.exit_code == 2, result.output
    assert f"ERROR {said}\n" in result.output, result.output
    assert cpu < 2, cpu
    result, cpu = _cpu("explain", str(path))
    assert result.exit_code == 2, result.output
    assert f"error: {path}: {said}" in result.output, result.output
    assert cpu < 2, cpu


@pytest.mark.parametrize("name", ["script-variable-doubled.sh", "script-command-70k.sh"])
def test_the_limits_leave_the_other_files_checked(name: str) -> None:
    """A refused script is its own ERROR: the real script beside it is checked as before."""
    result = invoke(RUNNER, "check", str(HOSTILE / name), str(SCRIPT))
    assert result.exit_code == 2, result.output
    assert "PASS  line 9  23-vllm-qwen3-8b-a800-v0-started.sh: starts" in result.output, \
        result.output


def _side(tmp_path: Path, make: str) -> Path:
    """The real script 23 as tmp_path/serve.sh, and beside it serve.kvplan.yaml made `make`."""
    import os

    script = tmp_path / "serve.sh"
    script.write_bytes(SCRIPT.read_bytes())
    side = tmp_path / "serve.kvplan.yaml"
    if make == "folder":
        side.mkdir()
    elif make == "loop":
        side.symlink_to(side.name)
    elif make == "fifo":
        os.mkfifo(side)
    return script


@pytest.mark.parametrize(("make", "what"), [
    ("folder", "a folder"),
    ("loop", "a symbolic link that leads to no file (a loop, or a missing target)"),
    ("fifo", "not a regular file (a FIFO, socket or device)"),
])
def test_a_side_file_that_is_no_file_is_refused_not_passed_over(tmp_path: Path, make: str,
                                                                 what: str) -> None:
    """serve.kvplan.yaml beside serve.sh as a folder, a link to itself or a FIFO (made here: git
    keeps no FIFO nor an empty folder). side_file_for took only is_file(): each was passed over
    in silence, and the script WARNed 'no GPU named' though the file to name it was there. Now
    one ERROR naming the side file, never opened (a FIFO would block the read)."""
    script = _side(tmp_path, make)
    said = (f"in side file {tmp_path / 'serve.kvplan.yaml'}: {what}, not the YAML file a side "
            "file is; replace it with one, or remove it")
    result = invoke(RUNNER, "check", str(script))
    assert result.exit_code == 2, result.output
    assert f"ERROR line 9: {said}\n" in result.output, result.output
    result = invoke(RUNNER, "size", str(script))
    assert result.exit_code == 2, result.output
    assert f"error: {script}: {said}" in result.output, result.output


def test_two_side_files_are_refused_not_one_passed_over() -> None:
    """two-side-files/: the real script 23 with its side file serve.kvplan.yaml (gpu: a800-80gb)
    and a second, serve.sh.kvplan.yaml (gpu: h100). The first was read and the second passed
    over in silence: check PASSed on the A800. Now one ERROR naming both."""
    script = HOSTILE / "two-side-files" / "serve.sh"
    result = invoke(RUNNER, "check", str(script))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 9: 2 side files beside it: serve.kvplan.yaml, serve.sh.kvplan.yaml; "
            "kvplan reads one: merge them into serve.kvplan.yaml and remove the other\n"
            ) in result.output, result.output


def test_a_python_scripts_side_file_named_beside_it_is_read_with_it() -> None:
    """python-side-file/: app.py (the real vllm-chat-llama3-8b.py) and its side file
    app.kvplan.yaml (gpu: l4), both named as `kvplan check app*` names them. The side file was
    given an ERROR of its own ('no kvplan/v1 deployment and nothing that runs vLLM ...', exit 2)
    and a folder walk counted it as a YAML file skipped, as for a shell script's before commit
    fc21a60: .py and .ipynb were not among the files a side file sits beside."""
    folder = HOSTILE / "python-side-file"
    result = invoke(RUNNER, "check", str(folder / "app.py"), str(folder / "app.kvplan.yaml"))
    assert result.exit_code == 0, result.output
    assert "app.kvplan.yaml" not in result.output, result.output
    assert result.output.endswith("1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR\n"), \
        result.output
    result = invoke(RUNNER, "check", str(folder))
    assert result.output.endswith("1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR\n"), \
        result.output
    # the side file is read: its l4 is the GPU (33,696 tokens; without it 'no GPU named')
    assert "PASS  line 4  app.py: starts; holds 4 sequences of 8,192 tokens per replica " \
           "(33,696 tokens in the pool)" in result.output, result.output


def test_check_says_a_calibration_directive_in_a_python_script_is_not_read(tmp_path: Path
                                                                          ) -> None:
    """python-kvplan-directive.py: benchmarks/sweep.py's `# kvplan: sweep_unknown=3` added (line
    3) to the real sglang-offline-llama31.py. A shell script names such a line (h51sweep); a
    Python script read past it without a word (14 sweep flags over check/python), so a `gpu=`
    written there looked honoured. Now the same note, in a notebook's code cell too."""
    path = HOSTILE / "python-kvplan-directive.py"
    said = ("note: line 3: `# kvplan: sweep_unknown=3`: `# kvplan:` lines are read in calibration "
            "logs only (`kvplan calibrate`), not in scripts: this one is not read; write the "
            "traffic and GPU in the side file python-kvplan-directive.kvplan.yaml, or give --gpu\n")
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 0, result.output
    assert said in result.output, result.output
    import json

    book = tmp_path / "serve.ipynb"
    book.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": path.read_text(encoding="utf-8")}]}), encoding="utf-8")
    result = invoke(RUNNER, "check", str(book))
    assert result.exit_code == 0, result.output
    assert said.replace("python-kvplan-directive", "serve") in result.output, result.output


@pytest.mark.parametrize("command", ["size", "explain", "fleet"])
def test_size_explain_fleet_read_a_python_script_by_a_relative_path(command: str,
                                                                    monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    """tests/assets/check/python/vllm-coder-3b.py given to size, explain or fleet by a relative
    path said 'no such file or folder' (the file is there: resolve.looks_like_path took only a
    folder for a path without a YAML/JSON suffix; task h70hostile). Since task h71left these
    commands read a script as check does: the same line check gives. The model its LLM(...)
    names (line 13), Qwen/Qwen2.5-Coder-3B, was not in the catalog (exit 2); since task
    h91catalog it is an alias of qwen2.5-3b (its config's shapes), so each command plans it."""
    monkeypatch.chdir(ASSETS.parent.parent)
    rel = "tests/assets/check/python/vllm-coder-3b.py"
    args = (command, rel, "--peak-users", "1") if command == "fleet" else (command, rel)
    result = invoke(RUNNER, *args)
    assert result.exit_code == 0, result.output
    assert f"note: {rel}: model Qwen/Qwen2.5-Coder-3B → qwen2.5-3b (alias)" in result.output
    assert f"note: {rel}: LLM(...) (line 13) starts vllm inside the script" in result.output
    assert "no such file" not in result.output


@pytest.mark.parametrize(("name", "release", "note"), [
    ("skypilot-pip-arbitrary-equality.yaml", "vllm 0.6.1.post2",
     "note: setup installs vllm===0.6.1.post2: vllm 0.6.1.post2\n"),
    ("skypilot-pip-range-below.yaml", "vllm (default version)",
     "note: setup installs vllm<=0.6.1.post2: a range, not a release; the vllm profile's default "
     "version is used\n"),
])
def test_a_pip_pin_with_any_pep440_operator_is_read_or_noted(name: str, release: str,
                                                             note: str) -> None:
    """The real SkyPilot qwen25-7b.yaml with its `pip install vllm==0.6.1.post2` spelled
    `vllm===0.6.1.post2` (PEP 440's arbitrary equality: pip installs exactly that release) or
    `"vllm<=0.6.1.post2"`. launcher_sites._PIN knew ==, >=, > and ~= only: both were passed over
    in silence, the first planned with the default release instead of the pinned one, the
    second without the range note that `>=` gets. Now === pins as == does; <=, < and != are
    noted as ranges."""
    result = invoke(RUNNER, "check", str(HOSTILE / name))
    assert result.exit_code == 0, result.output
    assert f"no traffic declared (qwen2.5-7b, {release})\n" in result.output, result.output
    assert note in result.output, result.output


def test_a_long_value_a_file_gives_is_clipped_in_the_line_people_read() -> None:
    """python-dtype-5000.py: the real vllm-mistral-7b-half.py with dtype a 5,000-character word.
    The ERROR wrote it out whole: a line of 5,290 characters (a 100,000-character one, 100,290;
    a 5,000-digit argparse default, 5,471; a 60,000-character CUDA_VISIBLE_DEVICES in a note,
    60,048). A word of 300 characters or more is now its first 80 and last 20 around its
    length, in text (and github annotations, and the `error:` / `note:` lines of every command);
    json keeps the value whole for tools."""
    path = HOSTILE / "python-dtype-5000.py"
    result = invoke(RUNNER, "check", str(path))
    assert result.exit_code == 2, result.output
    word = "'" + "h" * 5000 + "'"
    assert (f"ERROR line 8: --dtype: {word[:80]}…[5,002 characters]…{word[-20:]} is not a "
            "compute dtype vLLM takes") in result.output, result.output
    assert max(len(line) for line in result.output.splitlines()) < 500, result.output
    result = invoke(RUNNER, "check", str(path), "--format", "json")
    assert result.exit_code == 2, result.output
    assert f"{word} is not a compute dtype vLLM takes" in result.output, result.output[:300]


def test_clip_words_keeps_short_words_and_spaces() -> None:
    from kvplan.render.clip import clip_words

    text = "a " * 200 + "b" * 299 + " " + "c" * 300
    assert clip_words(text) == "a " * 200 + "b" * 299 + " " + "c" * 80 + "…[300 characters]…" + \
        "c" * 20
    assert clip_words("x" * 299) == "x" * 299


def test_a_vllmruntime_count_that_is_a_string_is_refused() -> None:
    """vllmruntime-tp-empty.yaml: the real crossplane-inference-vllm-kimi.yaml (Kimi-K2.5 on 8
    GPUs at TP 8) with spec.vllmConfig.tensorParallelSize: '' (line 14), a sweep mutant. The
    reader took '' as unset: TP 1, 'starts on: none' and '7 of 8 GPUs per engine unused', exit
    0, without naming the field; the CRD's int32 (vllmruntime_types.go VLLMConfig at 18f0b206)
    makes the API server refuse it. Now one ERROR on its line."""
    result = invoke(RUNNER, "check", str(HOSTILE / "vllmruntime-tp-empty.yaml"))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 14: spec.vllmConfig.tensorParallelSize: must be an integer (VLLMRuntime "
            "CRD, production-stack.vllm.ai/v1alpha1), got a string (''); write it as an integer, "
            "or remove it\n") in result.output, result.output


def test_keywords_beside_server_args_are_said_to_be_passed_over() -> None:
    """sglang-engine-beside-server-args/serve.py: the real sglang-chunk-prefill-serverargs.py
    with context_length=131072 passed to sglang.Engine beside server_args=ServerArgs(...,
    context_length=4096) (line 28). SGLang's Engine.__init__ takes the ServerArgs given and
    reads no other keyword; kvplan planned 4,096 as SGLang does but said nothing of the 131,072
    the script appears to ask for. Now a note names it as passed over."""
    result = invoke(RUNNER, "check", str(HOSTILE / "sglang-engine-beside-server-args" /
                                         "serve.py"))
    assert result.exit_code == 0, result.output
    assert "holds 168 sequences of 4,096 tokens per replica (688,128 tokens in the pool)" in \
        result.output, result.output
    assert ("note: line 28: context_length= passed over: given server_args=, sglang.Engine(...) "
            "starts from that ServerArgs and reads no other keyword (Engine.__init__, "
            "srt/entrypoints/engine.py: `if \"server_args\" in kwargs: server_args = "
            "kwargs[\"server_args\"]`); set them in the ServerArgs(...)\n") in result.output, \
        result.output


def test_a_quoted_number_given_to_sglang_is_refused_not_read_as_the_number() -> None:
    """python-sglang-quoted-number.py: the real sglang-multijail-tp4.py with tp_size="4" (line
    170). The string was read as the number in silence: PASS at TP 4, 394,188 tokens. vLLM's
    lax pydantic configs convert such a string; SGLang's ServerArgs (and TensorRT-LLM's LLM) are
    not those, and kvplan does not know what they make of it, as for a bool there. Now one
    ERROR on its line, as a bool gets; vLLM's reading is unchanged."""
    result = invoke(RUNNER, "check", str(HOSTILE / "python-sglang-quoted-number.py"), "--gpu",
                    "h100")
    assert result.exit_code == 2, result.output
    assert ("ERROR line 170: tp_size: tp_size='4' (line 170): a string where --tp-size takes a "
            "number, which kvplan does not know what sglang makes of; write the number\n"
            ) in result.output, result.output


def test_a_notebook_cell_whose_cell_type_is_no_string_is_named() -> None:
    """notebook-cell-type-list.ipynb: the real sglang-offline-engine-api.ipynb with cell 5 (the
    one that builds sglang.Engine) given cell_type ["code"]. The cell was taken for a markdown
    or raw cell and left out in silence: 'no kvplan/v1 deployment and nothing that runs vLLM,
    SGLang or TensorRT-LLM in this file', though the file does; nbformat 4 takes only the
    strings code, markdown and raw. Now the ERROR names the cell and the field."""
    result = invoke(RUNNER, "check", str(HOSTILE / "notebook-cell-type-list.ipynb"))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 1: not a notebook kvplan reads: cell 5's cell_type is a list, not code, "
            "markdown or raw (nbformat 4)\n") in result.output, result.output


def test_a_notebook_cell_that_is_a_number_reads_an_int(tmp_path: Path) -> None:
    """The refusal of a cell that is no object said 'cell 1 is a int'."""
    book = tmp_path / "bad.ipynb"
    book.write_text('{"nbformat": 4, "cells": [1]}', encoding="utf-8")
    result = invoke(RUNNER, "check", str(book))
    assert result.exit_code == 2, result.output
    assert ("not a notebook kvplan reads: cell 1 is an int, not a cell (nbformat 4: an object "
            "with cell_type and source)") in result.output, result.output


def test_a_skypilot_infra_that_is_no_string_is_refused() -> None:
    """skypilot-infra-list.yaml: the real nebius-llama4-sglang.yaml with resources.infra: []
    (line 13), a sweep mutant ({} and a nested list alike). cloud_of took only a string and read
    the rest as no cloud named: the task PASSed on any cloud's GPU counts, the field never
    named. SkyPilot's schema takes infra and cloud as strings: one ERROR on the line."""
    result = invoke(RUNNER, "check", str(HOSTILE / "skypilot-infra-list.yaml"))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 13: resources.infra: must be a string (SkyPilot's resources schema: infra "
            "CLOUD[/REGION[/ZONE]], cloud NAME), got a list ('[]'); write it as a string, or "
            "remove it\n") in result.output, result.output


def test_a_dstack_image_that_is_no_string_is_refused() -> None:
    """dstack-image-mapping.dstack.yml: the real llama4-vllm-amd.dstack.yml with image: {}
    (line 6), a sweep mutant ([] and a nested list alike). str({} or "") made it no image: the
    commands were read as run outside a container, PASS with 'the vllm release is the one
    installed' (a list's str() would have been an image named '[...]'). dstack takes image as a
    string: one ERROR on its line, at the top level or in a replica group."""
    result = invoke(RUNNER, "check", str(HOSTILE / "dstack-image-mapping.dstack.yml"))
    assert result.exit_code == 2, result.output
    assert ("ERROR line 6: image: must be a string (dstack's run configuration: image is a "
            "string), got a mapping ('{}'); write it as a string, or remove it\n"
            ) in result.output, result.output


def test_a_refused_context_length_names_its_option() -> None:
    """script-sglang-context-length-word.sh: the real outcomes/68 script with --context-length
    abc (line 11), a sweep mutant. The FAIL said "SGLang 0.5.23's human_readable_int ... so
    argparse stops on 'abc'" without naming the option (vLLM's plain refusal names it; its
    suffix, multiplier and decimal refusals did not either). Each now says which option the
    release parses with which function."""
    result = invoke(RUNNER, "check", str(HOSTILE / "script-sglang-context-length-word.sh"),
                    "--gpu", "h200")
    assert result.exit_code == 1, result.output
    assert ("FAIL  line 11  script-sglang-context-length-word.sh: the engine refuses it: SGLang "
            "0.5.23 parses --context-length with human_readable_int (srt/utils/common.py), which "
            "takes a whole number,") in result.output, result.output


def test_an_unknown_docker_run_option_is_named() -> None:
    """docker-unknown-option/serve.sh: the real outcomes/50 script (with its side file) whose
    `docker run` gets --kvplan-sweep-unknown (line 15), a sweep mutant. Docker refuses an
    option it does not know; kvplan read it as a flag without a word (only a `--name=value`
    spelling was noted), and a value after it would have been taken for the image. Now a
    note names it; the docker run options that take no value (FLAG_OPTIONS, and -d -t -i -P
    -q alone or joined as -it) stay silent, as before. Since task h80shell the table is docker's
    own (kvplan.check.manifests.docker_options), and the note says docker run has no such option."""
    result = invoke(RUNNER, "check", str(HOSTILE / "docker-unknown-option" / "serve.sh"))
    assert result.exit_code == 1, result.output
    assert ("note: docker run option --kvplan-sweep-unknown: docker run has no such option "
            "(docker refuses it: 'unknown flag'), read as taking no value, so a word after it is "
            "taken for the image\n") in result.output, result.output
    assert result.output.count("docker run option") == 1, result.output  # not for -d
