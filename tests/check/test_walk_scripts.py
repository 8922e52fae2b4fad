"""`kvplan check FOLDER` reads the shell scripts it finds (task h70walk): a script that starts an
engine is read as when named, one that starts none is counted in the footer with why, and the
final line no longer says "nothing here runs ..." when scripts were passed over
(kvplan/check/discover.py, kvplan/check/formats.py footer)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import check_paths
from kvplan.check.discover import discover, is_walked_script
from kvplan.check.manifests.side import is_side_file
from kvplan.cli import app
from tests.conftest import ASSETS

SYNTHETIC = ASSETS / "check" / "scripts" / "synthetic"
WALK = ASSETS / "check" / "walk"


def _check(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(app, ["check", *args], env={"COLUMNS": "400"})
    return got.exit_code, got.output


def _json(*args: str) -> dict:
    return json.loads(CliRunner().invoke(app, ["check", *args, "-f", "json"]).output)


def test_the_synthetic_scripts_folder_is_read_not_called_empty() -> None:
    # before: "0 checked in 0 file(s) ... error: no deployment was checked (nothing here runs
    # vLLM, SGLang or TensorRT-LLM ...)" although every .sh there but one starts vLLM or SGLang
    code, out = _check(str(SYNTHETIC), "--gpu", "h100")
    assert code == 2  # the ERRORs the synthetic scripts hold on purpose
    assert "nothing here runs" not in out
    assert out.splitlines()[-1] == (
        "16 checked in 9 file(s): 6 PASS, 1 FAIL, 9 ERROR; 1 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (1 shell; 1 of them "
        "mentions an engine: name one to be told what kvplan found)")
    # two-servers.sh as docs/check.md shows it named alone: 913,827 and 1,064,928 tokens
    assert "(913,827 tokens in the pool)" in out and "(1,064,928 tokens in the pool)" in out
    summary = _json(str(SYNTHETIC), "--gpu", "h100")["summary"]
    assert summary["skipped_scripts"] == [{
        "file": str(SYNTHETIC / "nothing-read.sh"), "kind": "shell",
        "why": "starts no engine (mentions vLLM, but none of its commands starts a server "
               "kvplan reads)"}]


def test_every_script_in_a_walk_gives_what_it_gives_named(tmp_path: Path) -> None:
    # the walk's verdicts are the named scripts' verdicts, side files included
    # (outcomes/NN.kvplan.yaml beside NN.sh name the GPU and traffic)
    folder = ASSETS / "check" / "outcomes"
    walked = check_paths([str(folder)])
    scripts = sorted(p for p in folder.iterdir() if p.suffix in (".sh", ".py"))
    # 46 until round 8 of the outcomes (task h71outcomes: 71-79), 55 until round 9 (task
    # h80outcomes: 80-87), 63 until round 10 (task h90outcomes: 88-95), 71 until round 11 (task
    # h100outcomes: 96-104, six launch scripts and the folder's first three Python scripts), 80
    # until round 12 (task outcomes12: 105-116, eleven launch scripts and one Python script), 92
    # until round 13 (task outcomes13: 117-127, eleven launch scripts)
    assert len(scripts) == 103
    named = check_paths([str(p) for p in scripts])
    on_scripts = [o for o in walked.outcomes if o.file.endswith((".sh", ".py"))]
    assert [(o.file, o.line, o.verdict, o.notes) for o in on_scripts] == \
        [(o.file, o.line, o.verdict, o.notes) for o in named.outcomes]
    assert walked.scripts_skipped == []


def test_shell_lines_suffixes_and_side_files_in_a_walk(tmp_path: Path) -> None:
    (tmp_path / "serve").write_text("#!/usr/bin/env bash\nvllm serve $MODEL --max-model-len "
                                    "8192\n")
    (tmp_path / "serve.kvplan.yaml").write_text("model: Qwen/Qwen3-8B\n")
    (tmp_path / "start.zsh").write_text("python -m sglang.launch_server --model-path "
                                        "Qwen/Qwen2.5-7B-Instruct --context-length 4096\n")
    (tmp_path / "setup.sh").write_text("#!/bin/bash\npip install vllm==0.8.5\n")
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nprint('vllm serve x')\n")
    (tmp_path / "notes.txt").write_text("vllm serve Qwen/Qwen3-8B\n")
    (tmp_path / "client.py").write_text("import openai\n")
    assert [is_walked_script(tmp_path / n) for n in
            ("serve", "start.zsh", "setup.sh", "tool", "notes.txt", "client.py")] == \
        [True, True, True, False, False, False]
    assert is_side_file(tmp_path / "serve.kvplan.yaml")  # beside a `#!` script without suffix
    skipped: list[tuple[str, str, str]] = []
    files, missing = discover([str(tmp_path)], skipped)
    assert ([p.name for p, _ in files], missing) == (["serve", "start.zsh"], [])
    assert [(Path(f).name, k, w) for f, k, w in skipped] == [
        ("client.py", "Python", "starts no engine"), ("setup.sh", "shell", "starts no engine")]
    code, out = _check(str(tmp_path), "--gpu", "h100")
    assert code == 0, out
    # the side file names the model behind $MODEL, as for `kvplan check serve`
    assert "the side file names the model: Qwen/Qwen3-8B" in out
    assert out.splitlines()[-1] == (
        "2 checked in 2 file(s): 2 PASS, 0 FAIL, 0 ERROR; 2 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (1 shell, "
        "1 Python)")
    named = CliRunner().invoke(app, ["check", str(tmp_path / "serve"), "--gpu", "h100"])
    assert named.output.splitlines()[1] in out


def test_a_folder_of_scripts_that_start_nothing_says_so(tmp_path: Path) -> None:
    (tmp_path / "bench.sh").write_text("vllm bench serve --model x\n")
    (tmp_path / "tool.sh").write_text("echo hi\n")
    (tmp_path / "big.sh").write_bytes(b"vllm serve x\0\n")  # a NUL byte: not text
    code, out = _check(str(tmp_path))
    assert code == 2
    assert out.splitlines() == [
        "0 checked in 0 file(s): 0 PASS, 0 FAIL, 0 ERROR; 3 script(s) in the folders walked "
        "skipped: 2 start no vLLM, SGLang or TensorRT-LLM server or engine (2 shell); 1 not read "
        "as text (1 shell: big.sh)",
        "error: no deployment was checked (no kvplan/v1 file, and kvplan found no start of vLLM, "
        "SGLang or TensorRT-LLM in the script(s) it passed over; name one to have it read and "
        "told why); the gate fails"]
    # an empty folder keeps the old line: there is nothing to name
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _check(str(empty))[1].splitlines()[-1].startswith(
        "error: no deployment was checked (nothing here runs vLLM, SGLang or TensorRT-LLM")


def test_a_script_the_walk_skips_is_read_when_also_named(tmp_path: Path) -> None:
    (tmp_path / "tool.sh").write_text("vllm bench serve --model x\n")
    code, out = _check(str(tmp_path), str(tmp_path / "tool.sh"))
    assert code == 2
    assert out.splitlines()[1:] == [
        "ERROR line 1: no kvplan/v1 deployment and nothing that runs vLLM, SGLang or "
        "TensorRT-LLM in this file", "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR"]


def test_a_slip_in_a_walked_script_is_refused_not_skipped(tmp_path: Path) -> None:
    # `python sglang.launch_server` (no -m) names a launch but starts none: read as if named
    (tmp_path / "run.sh").write_text("python3 sglang.launch_server --model-path x\n")
    code, out = _check(str(tmp_path))
    assert code == 2
    assert "gives the server module to Python as a file name" in out


def test_the_development_folder_wohimlee() -> None:
    code, out = _check(str(WALK / "wohimlee-openai-server"), "--gpu", "h100")
    assert code == 2
    assert "ERROR line 14: --model: 'models/Qwen3-8B' is not in the catalog" in out
    assert out.splitlines()[-1] == (
        "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR; 5 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (1 shell, "
        "4 Python)")


def test_the_held_out_folder_fs_gpt_sbin() -> None:
    # every script writes its command into a heredoc and runs `eval $cmd`: no start kvplan
    # reads, as written in tests/assets/check/walk/EXPECTED.md before the run
    folder = WALK / "fs-gpt-sbin"
    code, out = _check(str(folder), "--gpu", "h100")
    assert code == 2
    assert out.splitlines()[0] == (
        "0 checked in 0 file(s): 0 PASS, 0 FAIL, 0 ERROR; 10 script(s) in the folders walked "
        "skipped: they start no vLLM, SGLang or TensorRT-LLM server or engine (10 shell; 10 of "
        "them mention an engine: name one to be told what kvplan found)")
    whys = {Path(s["file"]).name: s["why"] for s in
            _json(str(folder), "--gpu", "h100")["summary"]["skipped_scripts"]}
    assert whys["sglang-generate.sh"].startswith("starts no engine (mentions SGLang")
    assert whys["vllm-generate.sh"].startswith("starts no engine (mentions vLLM")
    named = _check(str(folder / "vllm-generate.sh"))[1]
    assert "ERROR line 1: this file mentions vLLM, but none of its commands starts" in named


def test_the_counts_docs_check_md_gives() -> None:
    import re

    text = " ".join((Path(__file__).parents[2] / "docs" / "check.md").read_text().split())
    m = re.search(r"SOURCES\.md with repository, path and commit, EXPECTED\.md\): (\d+) public "
                  r"notebooks \((\d+) development, (\d+) held out\) and (\d+) public script "
                  r"folders \((\d+) development, (\d+) held out\)", text)
    assert m is not None
    rows = [line for line in (ASSETS / "check" / "notebooks" / "SOURCES.md").read_text()
            .splitlines() if line.startswith("| ") and ".ipynb" in line.split("|")[1]]
    books = sorted(p.name for p in (ASSETS / "check" / "notebooks").glob("*.ipynb"))
    assert len(rows) == len(books)
    held = sum("**held-out**" in r for r in rows)
    folders = [p for p in WALK.iterdir() if p.is_dir()]
    walk_rows = [line for line in (WALK / "SOURCES.md").read_text().splitlines()
                 if line.startswith("| ") and line.split("|")[1].strip().endswith("/")]
    assert len(walk_rows) == len(folders)
    walk_held = sum("**held-out**" in r for r in walk_rows)
    assert [int(g) for g in m.groups()] == [len(books), len(books) - held, held, len(folders),
                                            len(folders) - walk_held, walk_held]
    # "`sbin/`, 10 scripts", and the outcomes folder's "24 deployments before, 70 after"
    assert f"`sbin/`, {len(list((WALK / 'fs-gpt-sbin').glob('*.sh')))} scripts" in text
    outcomes = ASSETS / "check" / "outcomes"
    after = check_paths([str(outcomes)])
    before = [o for o in after.outcomes if o.file.endswith(".yaml")]  # the YAML it read then
    assert (f"tests/assets/check/outcomes: {len(before)} deployments before, "
            f"{len(after.outcomes)} after") in text
