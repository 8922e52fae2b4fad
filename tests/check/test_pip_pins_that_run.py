"""Only a pip that runs is a pin (kvplan.check.manifests.pip_commands, task h71left): a pin that
`echo` / `printf` prints, or that a `cat <<EOF` heredoc writes as text, is not the engine's
release; a pin in a heredoc a shell runs, or in `sh -c '...'`, is. And two releases of one
engine in one pip command are neither: pip stops (ResolutionImpossible; "Double requirement
given" before pip 20.3). Task h70review found each of these read as a release."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.manifests.launcher_sites import pip_pins
from kvplan.cli import app

SERVE = "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"
UNNAMED = "the vllm release is the one installed, which the script does not name"
PIN = {"vllm": ("0.8.5", "line 2 installs vllm==0.8.5: vllm 0.8.5")}


def _at(n: int) -> str:
    return f"line {n}"


def _check(tmp_path: Path, body: str) -> str:
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/sh\n{body}\n{SERVE}\n")
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def test_a_pin_that_is_printed_is_not_a_release() -> None:
    for line in ('echo "pip install vllm==0.8.5"', "echo pip install vllm==0.8.5 >> README.md",
                 "printf 'run: pip install vllm==0.8.5\\n'", ': pip install vllm==0.8.5',
                 'echo "x; pip install vllm==0.8.5"', "sudo echo pip install vllm==0.8.5"):
        assert pip_pins(f"set -e\n{line}", _at) == ({}, []), line
    # a pip after the echo, in a command of its own, runs
    for line in ('echo installing && pip install vllm==0.8.5', 'echo x; pip install vllm==0.8.5',
                 'if pip install vllm==0.8.5; then echo ok; fi',
                 'CUDA_HOME=/usr/local/cuda sudo -E pip install vllm==0.8.5'):
        assert pip_pins(f"set -e\n{line}", _at) == (PIN, []), line


def test_a_heredoc_is_a_pin_only_where_a_shell_runs_it() -> None:
    text = "cat > setup.sh <<EOF\npip install vllm==0.8.5\nEOF\n"
    assert pip_pins(text, _at) == ({}, [])
    for opened in ("cat <<'EOF'", "tee README.md <<-EOF", "python3 - <<EOF"):
        assert pip_pins(f"{opened}\npip install vllm==0.8.5\nEOF", _at) == ({}, []), opened
    # the lines after the delimiter are the script's commands again
    assert pip_pins("cat <<EOF\ntext\nEOF\npip install vllm==0.8.5", _at) == (
        {"vllm": ("0.8.5", "line 4 installs vllm==0.8.5: vllm 0.8.5")}, [])
    # a shell reads the body: its pins run, its comments do not
    for opened in ("bash <<EOF", "sh -s <<'EOF'", "sudo bash <<EOF"):
        assert pip_pins(f"{opened}\npip install vllm==0.8.5\nEOF", _at) == (PIN, []), opened
    body = "bash <<EOF\n  # pip install vllm==0.9.0\npip install torch  # vllm==0.9.0\nEOF"
    assert pip_pins(body, _at) == ({}, [])


def test_a_shell_s_command_string_runs() -> None:
    assert pip_pins('set -e\nsh -c "pip install vllm==0.8.5 && vllm serve x"', _at) == (PIN, [])
    assert pip_pins("set -e\nbash -c 'echo pip install vllm==0.8.5'", _at) == ({}, [])


def test_a_notebook_line_that_prints_a_pin_is_not_one() -> None:
    assert pip_pins('set -e\n!echo "pip install vllm==0.8.5"', _at) == ({}, [])
    assert pip_pins("set -e\n!pip install vllm==0.8.5", _at) == (PIN, [])
    assert pip_pins("set -e\n%pip install -q vllm==0.8.5", _at) == (PIN, [])


def test_an_echoed_pin_leaves_the_release_unnamed_in_a_script(tmp_path: Path) -> None:
    # before: 'line 2 installs vllm==0.8.5: vllm 0.8.5' and 0.8.5's 420,528-token pool
    out = _check(tmp_path, 'echo "to reproduce: pip install vllm==0.8.5"')
    assert UNNAMED in out and "(489,616 tokens in the pool)" in out
    assert "installs vllm==0.8.5" not in out


def test_two_releases_in_one_pip_command_are_neither() -> None:
    """pip 23.2.1 on two local wheels of one package, `pip install foo==1.0 foo==2.0`: "ERROR:
    Cannot install foo==1.0 and foo==2.0 because these package versions have conflicting
    dependencies." / ResolutionImpossible, exit 1, nothing installed; an earlier foo 1.0 stays.
    Before, the second was said to replace the first ('line 1 installs vllm==0.9.0 after
    vllm==0.8.5 (line 1), which it replaces')."""
    pins, notes = pip_pins("pip install vllm==0.8.5 vllm==0.9.0", _at)
    assert pins == {}
    assert notes == [
        "line 1 installs vllm==0.8.5 and vllm==0.9.0 in one pip command: pip stops without "
        "installing either (ResolutionImpossible, 'these package versions have conflicting "
        "dependencies'; 'Double requirement given' before pip 20.3), so neither is the "
        "release; the vllm profile's default version is used"]
    pins, notes = pip_pins("pip install vllm==0.8.5\npip install 'vllm==0.9.0' vllm==0.10.1", _at)
    assert pins == {"vllm": ("0.8.5", "line 1 installs vllm==0.8.5: vllm 0.8.5")}
    assert notes[0].endswith("so neither is the release; vllm 0.8.5, installed before, stays")
    # the same release twice is one requirement (pip installs it), and two commands replace
    assert pip_pins("pip install vllm==0.8.5 vllm==0.8.5", _at)[0] == {
        "vllm": ("0.8.5", "line 1 installs vllm==0.8.5: vllm 0.8.5")}
    pins, _ = pip_pins("pip install vllm==0.8.5 && pip install vllm==0.9.0", _at)
    assert pins == {"vllm": ("0.9.0", "line 1 installs vllm==0.9.0 after vllm==0.8.5 (line 1), "
                                      "which it replaces: vllm 0.9.0")}


def test_two_releases_leave_the_script_s_release_unnamed(tmp_path: Path) -> None:
    out = _check(tmp_path, "pip install vllm==0.8.5 vllm==0.9.0")
    assert "(llama-3-8b, vllm (default version))" in out
    assert "in one pip command: pip stops without installing either" in out
