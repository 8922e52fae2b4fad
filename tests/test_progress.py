"""Progress for long work: on stderr, only on a terminal, only past a delay; never on stdout.

A terminal is simulated by replacing `kvplan.cli.progress.on_terminal` (CliRunner's streams
are not terminals) and the 2-second delay by 0, so the lines of a short run show."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from kvplan.cli import progress
from tests.conftest import ASSETS, invoke


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stream counts as a terminal, and progress shows from the first update."""
    monkeypatch.setattr(progress, "on_terminal", lambda stream: True)
    monkeypatch.setattr(progress, "DELAY_S", 0.0)


def _shown(stderr: str) -> list[str]:
    """The lines a terminal showed one after another (each `\\r`-rewrite is one), blanks dropped."""
    return [part.strip() for part in stderr.replace("\n", "\r").split("\r") if part.strip()]


def test_status_line_draws_rewrites_and_erases_on_a_terminal() -> None:
    out = Tty()
    with progress.StatusLine("kvplan check", delay_s=0.0, stream=out) as line:
        line.update("1/3 files")
        line.update("2/3 files, 1 FAIL")
    # each draw starts at the line's start; the shorter line is padded over the longer one;
    # at the end the line is blanked, leaving the cursor at its start
    first, second = "kvplan check: 1/3 files", "kvplan check: 2/3 files, 1 FAIL"
    assert out.getvalue() == f"\r{first}\r{second}\r{' ' * len(second)}\r"


def test_status_line_is_silent_off_a_terminal_and_before_the_delay() -> None:
    pipe = io.StringIO()  # not a terminal
    with progress.StatusLine("kvplan check", delay_s=0.0, stream=pipe) as line:
        line.update("1/3 files")
    assert pipe.getvalue() == ""
    early = Tty()
    with progress.StatusLine("kvplan check", delay_s=60.0, stream=early) as line:
        line.update("1/3 files")  # one minute has not passed
    assert early.getvalue() == ""


def test_status_line_shows_blocking_work_after_the_delay() -> None:
    # a download gives no updates: the timer draws the line once the delay has passed
    out = Tty()
    with progress.StatusLine("kvplan import", "fetching a/b", delay_s=0.05, stream=out):
        deadline = time.monotonic() + 5
        while "fetching" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert out.getvalue().startswith("\rkvplan import: fetching a/b")
    assert out.getvalue().endswith("\r")
    quick = Tty()
    with progress.StatusLine("kvplan import", "fetching a/b", delay_s=60.0, stream=quick):
        pass
    time.sleep(0.01)
    assert quick.getvalue() == ""


def test_check_reports_files_done_and_fails_so_far(runner, terminal) -> None:
    folder = ASSETS / "check" / "kvplan"
    files = sorted(p.name for p in folder.glob("*.yaml"))
    assert len(files) == 10
    shown = invoke(runner, "check", str(folder), "--format", "json")
    assert shown.exit_code == 1
    lines = _shown(shown.stderr)
    assert lines[0] == "kvplan check: 0/10 files"
    # fail-capacity, fail-fp8, fail-max-num-seqs, fail-p95, fail-reserved, fail-start and
    # fail-weights-h200 fail in this order; pass-h200 and pass pass; vllm-profile-fail fails
    assert lines[7] == "kvplan check: 7/10 files, 7 FAIL"
    assert lines[9] == "kvplan check: 9/10 files, 7 FAIL"
    assert lines[-1] == "kvplan check: 10/10 files, 8 FAIL"
    payload = json.loads(shown.stdout)  # stdout is the report alone
    assert [o["verdict"] for o in payload["results"]].count("FAIL") == 8


def test_check_stdout_is_the_same_with_and_without_a_terminal(runner, monkeypatch) -> None:
    args = ("check", str(ASSETS / "check" / "kvplan"), "--format", "json")
    plain = invoke(runner, *args)
    assert plain.stderr == ""
    monkeypatch.setattr(progress, "on_terminal", lambda stream: True)
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    shown = invoke(runner, *args)
    assert shown.stderr != "" and shown.stdout == plain.stdout


def test_check_counts_errors_too(runner, terminal) -> None:
    shown = invoke(runner, "check", str(ASSETS / "check" / "invalid"), "--format", "json")
    lines = _shown(shown.stderr)
    n = len(list((ASSETS / "check" / "invalid").glob("*.yaml")))
    assert lines[-1] == f"kvplan check: {n}/{n} files, {n} ERROR"


def test_calibrate_reports_log_files_done(runner, terminal, monkeypatch) -> None:
    folder = ASSETS / "logs"
    n = len(list(folder.glob("*.log")))
    plain_args = ("calibrate", str(folder), "--format", "csv")
    shown = invoke(runner, *plain_args)
    lines = _shown(shown.stderr)
    progress_lines = [x for x in lines if x.startswith("kvplan calibrate:")]
    assert progress_lines == [f"kvplan calibrate: {i}/{n} log files" for i in range(n + 1)]
    monkeypatch.setattr(progress, "on_terminal", lambda stream: False)
    plain = invoke(runner, *plain_args)
    assert shown.stdout == plain.stdout  # the CSV is untouched
    assert not any(x.startswith("kvplan calibrate:") for x in _shown(plain.stderr))


def test_import_from_the_hub_says_what_it_waits_for(runner, monkeypatch, tmp_path: Path) -> None:
    from kvplan.specs import hf_import, load_model

    def slow_hub(source: str, **kwargs: object) -> object:  # a download that takes a while
        time.sleep(0.3)
        return load_model("llama-3-8b")

    monkeypatch.setattr(hf_import, "import_model", slow_hub)
    monkeypatch.setattr(progress, "on_terminal", lambda stream: True)
    monkeypatch.setattr(progress, "DELAY_S", 0.05)
    shown = invoke(runner, "import", "some-org/some-model")
    assert shown.exit_code == 0, shown.output
    assert _shown(shown.stderr) == [
        "kvplan import: fetching some-org/some-model's config.json from the Hugging Face hub"]
    assert shown.stdout.startswith("name: llama-3-8b")  # the spec YAML alone on stdout


FLEET_SEARCH = ("fleet", "llama-3-8b", "-n", "2000", "--context", "8192", "--context-p50",
                "1200", "--context-p95", "6000", "--search", "--search-gpus", "h100,a100-80gb",
                "--format", "json")


def test_fleet_search_draws_a_bar_on_a_terminal_and_keeps_stdout(runner, terminal,
                                                                 monkeypatch) -> None:
    monkeypatch.setattr(progress, "BAR_DELAY_S", 0.0)
    shown = invoke(runner, *FLEET_SEARCH)
    assert shown.exit_code == 0, shown.output
    assert "searching" in shown.stderr  # the bar's label, drawn on the (simulated) terminal
    assert "\x1b[" in shown.stderr  # rich drew it with terminal controls
    monkeypatch.setattr(progress, "on_terminal", lambda stream: False)
    plain = invoke(runner, *FLEET_SEARCH)
    assert plain.stderr == ""
    assert shown.stdout == plain.stdout
    assert json.loads(shown.stdout)["results"]  # the JSON alone on stdout


def test_fleet_search_shows_no_bar_before_its_delay(runner, terminal, monkeypatch) -> None:
    # a search that ends before BAR_DELAY_S has passed leaves nothing on stderr
    monkeypatch.setattr(progress, "BAR_DELAY_S", 3600.0)
    shown = invoke(runner, *FLEET_SEARCH)
    assert shown.exit_code == 0, shown.output
    assert "searching" not in shown.stderr
