"""A folder walk does not go into a virtual environment or a folder of installed packages, and
says so (task harden): a repository's `venv/` was read file by file, each Python file of the
installed packages opened to see whether it starts an engine. What a folder is decides it, not
its name: a folder holding pyvenv.cfg is a virtual environment (PEP 405, whatever its name);
`site-packages`, `dist-packages` and `node_modules` are where installers put packages; an
`env/` without pyvenv.cfg is walked. A file named inside a skipped folder is checked."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.discover import discover
from kvplan.cli import app

RECORD = ("apiVersion: kvplan/v1\nname: {name}\nmodel: llama-3-8b\nhardware:\n  gpu: h100\n  count: 1\n"
          "traffic:\n  peak_concurrent_users: 10\n")
# what `python -m venv` writes (Lib/venv/__init__.py, create_configuration)
PYVENV = "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n"
ENGINE = 'from vllm import LLM\nllm = LLM(model="meta-llama/Meta-Llama-3-8B")\n'


def _repo(root: Path) -> Path:
    (root / "deploy").mkdir(parents=True)
    (root / "deploy" / "chat.yaml").write_text(RECORD.format(name="chat"), encoding="utf-8")
    venv = root / "venv"  # a virtual environment, with a library that constructs an engine
    (venv / "lib" / "python3.11" / "site-packages" / "pkg").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(PYVENV, encoding="utf-8")
    (venv / "lib" / "python3.11" / "site-packages" / "pkg" / "serve.py").write_text(
        ENGINE, encoding="utf-8")
    (root / "tools" / "py").mkdir(parents=True)  # a virtual environment by another name
    (root / "tools" / "py" / "pyvenv.cfg").write_text(PYVENV, encoding="utf-8")
    (root / "tools" / "py" / "x.yaml").write_text(RECORD.format(name="tool"), encoding="utf-8")
    (root / "env").mkdir()  # named env/, but not a virtual environment: walked
    (root / "env" / "prod.yaml").write_text(RECORD.format(name="prod"), encoding="utf-8")
    (root / "web" / "node_modules" / "lib").mkdir(parents=True)
    (root / "web" / "node_modules" / "lib" / "ci.yaml").write_text(
        RECORD.format(name="npm"), encoding="utf-8")
    return root


def test_discover_leaves_out_installed_folders_and_names_each(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    folders: list[tuple[str, str]] = []
    files, missing = discover([str(repo)], [], folders)
    assert sorted(p.relative_to(repo).as_posix() for p, _ in files) == [
        "deploy/chat.yaml", "env/prod.yaml"]
    assert missing == []
    assert sorted((Path(f).relative_to(repo).as_posix(), why.split(" (")[0]) for f, why in folders) \
        == [("tools/py", "a Python virtual environment"), ("venv", "a Python virtual environment"),
            ("web/node_modules", "installed npm packages")]


def test_the_report_says_each_folder_not_walked(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    result = CliRunner().invoke(app, ["check", str(repo)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "2 checked in 2 file(s): 2 PASS, 0 FAIL, 0 ERROR" in result.output
    assert (f"folder not walked: {repo / 'venv'}: a Python virtual environment (it holds "
            "pyvenv.cfg, PEP 405): its files are installed packages, not deployments; name a "
            "file in it to check that file") in result.output.splitlines()
    assert (f"folder not walked: {repo / 'web' / 'node_modules'}: installed npm packages "
            "(node_modules), not deployments; name a file in it to check that file"
            ) in result.output.splitlines()
    assert "serve.py" not in result.output  # the installed library was not read
    out = CliRunner().invoke(app, ["check", str(repo), "--format", "json"])
    summary = json.loads(out.output)["summary"]
    assert [Path(f["folder"]).name for f in summary["skipped_folders"]] == [
        "venv", "py", "node_modules"]


def test_a_file_named_inside_a_virtual_environment_is_checked(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    named = repo / "tools" / "py" / "x.yaml"
    result = CliRunner().invoke(app, ["check", str(repo), str(named)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "3 checked in 3 file(s): 3 PASS, 0 FAIL, 0 ERROR" in result.output
    assert str(named) in result.output


def test_a_virtual_environment_named_as_the_folder_is_walked(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    result = CliRunner().invoke(app, ["check", str(repo / "tools" / "py")],
                                env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR" in result.output
    assert "folder not walked" not in result.output
