"""Options whose effect no output shows, each checked for that effect on every command.

--debug: an error's traceback instead of the one line (exit 3 without it); --no-color: no
colour escapes on a terminal (a real pseudo-terminal, not a captured stream); --allow-no-fit:
the verdict "nothing fits" exits 0 instead of 1 with the same output; --measure and its
options reach the measurement; completion is installed and completes. COVERS says which
commands each test covers (tests/options/test_option_walk.py checks it against the app).
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.cli.common import STATE

ROOT = Path(__file__).resolve().parents[2]
LOG = "tests/assets/logs/01-vllm-llama3.1-8b-rtx3090-v0.log"
CONFIG = "tests/assets/hf_configs/gemma-2-2b.json"
MANIFEST = "examples/k8s/vllm-llama3-8b.yaml"

# command -> (argv after the command, the function a run calls that the test makes raise)
RUNS: dict[str, tuple[tuple[str, ...], str]] = {
    "size": (("size", "llama-3-8b"), "kvplan.plan.planner.size_records"),
    "fleet": (("fleet", "llama-3-8b", "-n", "100"), "kvplan.plan.planner.fleet_records"),
    "explain": (("explain", "llama-3-8b"), "kvplan.plan.planner.explain_records"),
    "models": (("models",), "kvplan.specs.all_models"),
    "gpus": (("gpus",), "kvplan.specs.all_hardware"),
    "import": (("import", CONFIG), "kvplan.specs.hf_import.import_model"),
    "check": (("check", MANIFEST), "kvplan.check.check_paths"),
    "calibrate": (("calibrate", LOG), "kvplan.calibrate.compare.calibrate_files"),
    "plot users-vs-context": (("plot", "users-vs-context", "llama-3-8b"),
                              "kvplan.plan.planner.users_vs_context"),
    "plot memory": (("plot", "memory", "llama-3-8b"), "kvplan.plan.planner.size_records"),
    "plot risk": (("plot", "risk", "llama-3-8b", "--avg-context", "2000", "--context-p95",
                   "6000"), "kvplan.plan.planner.cache_distribution"),
}
EVERY = {*RUNS, ""}  # "" is the top level: `kvplan --debug models`, `kvplan --no-color gpus`
COLOURLESS = {"check", "import"}  # they print plain text on a terminal too
COVERS = {
    "test_debug_shows_the_traceback_of_every_command": EVERY,
    "test_no_color_strips_the_colours_of_every_command": EVERY,
    "test_allow_no_fit_turns_the_verdict_into_exit_0": {"size", "fleet"},
    "test_measure_and_its_options_change_the_measurement": {"size"},
    "test_completion_is_installed_and_completes": {""},
}


class Boom(RuntimeError):
    pass


@pytest.fixture(autouse=True)
def _fresh_state() -> Any:
    """--debug and --no-color set process-wide state; each test starts and ends without it."""
    STATE.update(debug=False, no_color=False)
    yield
    STATE.update(debug=False, no_color=False)


@pytest.mark.parametrize("command", sorted(EVERY), ids=lambda c: c or "kvplan")
def test_debug_shows_the_traceback_of_every_command(command: str, monkeypatch: Any) -> None:
    argv, target = RUNS[command or "models"]

    def boom(*_a: Any, **_k: Any) -> Any:
        raise Boom("walked")

    monkeypatch.setattr(target, boom)
    runner = CliRunner()
    plain = runner.invoke(app, list(argv))
    assert plain.exit_code == 3
    assert plain.output.strip() == ("internal error: Boom: walked; this is a bug in kvplan; "
                                    "please report it with --debug output")
    debug_argv = ["--debug", *argv] if command == "" else [*argv, "--debug"]
    shown = runner.invoke(app, debug_argv)
    assert isinstance(shown.exception, Boom), shown.output  # raised with its traceback
    assert STATE["debug"] is True


def _on_a_terminal(*args: str) -> bytes:
    """`python -m kvplan ARGS` with a pseudo-terminal as its stdout and stderr."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "KVPLAN_DEBUG")}
    env.update(TERM="xterm-256color", COLUMNS="100", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "kvplan", *args], stdin=follower,  # noqa: S603
                            stdout=follower, stderr=follower, env=env, cwd=ROOT, close_fds=True)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(leader)
    return out


@pytest.mark.parametrize("command", sorted(EVERY), ids=lambda c: c or "kvplan")
def test_no_color_strips_the_colours_of_every_command(command: str) -> None:
    argv = RUNS[command or "gpus"][0]
    plain_argv = ("--no-color", *argv) if command == "" else (*argv, "--no-color")
    with ThreadPoolExecutor(max_workers=2) as pool:  # the two processes run side by side
        coloured_run = pool.submit(_on_a_terminal, *argv)
        plain_run = pool.submit(_on_a_terminal, *plain_argv)
        coloured, plain = coloured_run.result(), plain_run.result()
    escape = b"\x1b["
    assert escape not in plain, plain[:400]
    if command in COLOURLESS:
        assert escape not in coloured  # plain either way: the option's promise holds
    else:
        assert escape in coloured, coloured[:400]
        # the same words, without the escapes
        assert len(plain) < len(coloured)


@pytest.mark.parametrize("argv", [
    ("size", "llama-3.1-70b", "--gpu", "l4"),  # 141 GB of bf16 weights on a 24 GB GPU
    ("fleet", "llama-3.1-70b", "--gpu", "l4", "-n", "100"),
    ("fleet", "llama-3.1-70b", "-n", "100000", "--search", "--search-gpus", "t4"),
], ids=["size", "fleet", "fleet-search"])
def test_allow_no_fit_turns_the_verdict_into_exit_0(argv: tuple[str, ...]) -> None:
    runner = CliRunner()
    verdict = runner.invoke(app, [*argv, "-f", "json"])
    allowed = runner.invoke(app, [*argv, "-f", "json", "--allow-no-fit"])
    assert verdict.exit_code == 1, verdict.output  # a verdict of no
    assert allowed.exit_code == 0, allowed.output
    assert allowed.stdout == verdict.stdout  # the same answer, only the exit status moves


def test_measure_and_its_options_change_the_measurement(monkeypatch: Any) -> None:
    """--measure runs the measurement instead of the sizing, with --device, --layers,
    --tolerance and --time-limit as given (tests/measure runs the real one on the CPU)."""
    import kvplan.measure
    import kvplan.measure.run

    seen: list[Any] = []

    def fake_measure(spec: Any, options: Any) -> Any:
        seen.append((spec.name, options))
        raise typer.Exit(code=0)

    monkeypatch.setattr(kvplan.measure, "require_extra", lambda: None)
    monkeypatch.setattr(kvplan.measure.run, "measure", fake_measure)
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--measure", "--device", "cpu",
                                   "--layers", "2", "--tolerance", "5", "--time-limit", "9",
                                   "--context", "64"])
    assert res.exit_code == 0, res.output
    [(name, options)] = seen
    assert name == "llama-3-8b" and res.stdout == ""  # no sizing printed
    assert (options.device, options.layers, options.tolerance_pct, options.time_limit_s,
            options.context_tokens) == ("cpu", 2, 5.0, 9.0, 64)
    seen.clear()
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--measure", "--device", "cpu"])
    [(_, defaults)] = seen
    assert (defaults.layers, defaults.tolerance_pct, defaults.time_limit_s) == (None, 10.0, 120.0)


def test_completion_is_installed_and_completes(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "SHELL": "/bin/bash"}

    def kvplan(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kvplan", *args], capture_output=True,  # noqa: S603
                              text=True, env={**env, **extra}, cwd=ROOT, timeout=120)

    shown = kvplan("--show-completion", "bash")
    assert shown.returncode == 0 and "_KVPLAN_COMPLETE=complete_bash" in shown.stdout
    installed = kvplan("--install-completion", "bash")
    assert installed.returncode == 0, installed.stderr
    script = tmp_path / ".bash_completions" / "kvplan.sh"
    assert script.read_text() == shown.stdout.rstrip("\n") + "\n" or \
        "_KVPLAN_COMPLETE=complete_bash" in script.read_text()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()
    completed = kvplan(_KVPLAN_COMPLETE="complete_bash", COMP_WORDS="kvplan si", COMP_CWORD="1")
    assert completed.stdout.split() == ["size"]
