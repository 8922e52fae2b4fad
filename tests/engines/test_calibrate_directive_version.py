"""A `version=` directive that the log's own release line overrides is said in the run's notes
(never set aside unsaid); one a source build's dev version gives way to is used, as before."""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.compare import calibrate_run
from kvplan.calibrate.parse import parse_file, parse_text

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"


def _run(text: str):
    (run,) = parse_text(text, Path("x.log")).runs
    return run


def test_release_line_wins_and_the_directive_is_said() -> None:
    run = _run("# kvplan: version=0.11.2\n"
               "INFO 01-01 00:00:00 api_server.py:1] vLLM API server version 0.11.2rc1+rhai0\n")
    assert run.version == "0.11.2rc1+rhai0"
    assert run.overridden == ["directive version=0.11.2 set aside: the log's own release line, "
                              "0.11.2rc1+rhai0, is used"]


def test_dev_build_gives_way_to_the_directive_unsaid() -> None:
    run = _run("# kvplan: version=0.5.4\n"
               "INFO 01-01 00:00:00 api_server.py:1] vLLM API server version 0.1.dev7548+gbaba038\n")
    assert run.version == "0.5.4"
    assert run.overridden == []


def test_agreeing_directive_adds_nothing() -> None:
    run = _run("# kvplan: version=0.11.2\n"
               "INFO 01-01 00:00:00 api_server.py:1] vLLM API server version 0.11.2\n")
    assert run.version == "0.11.2" and run.overridden == []


def test_real_log_861_reports_its_directive() -> None:
    (path,) = LOGS.glob("861-*.log")
    (run,) = parse_file(path).runs
    rep = calibrate_run(run, LOGS)
    assert ("directive version=0.11.2 set aside: the log's own release line, "
            "0.11.2rc1+rhai0.cuda, is used") in rep.notes
