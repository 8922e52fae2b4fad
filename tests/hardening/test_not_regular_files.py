"""Task h90hostile: a FIFO (mkfifo), socket or device named where kvplan reads a file. Reading a
FIFO blocks until something writes to it: `kvplan explain/size/fleet FIFO` hung forever, and
`kvplan import FIFO` and `kvplan check FIFO` said "no such file or folder". Now one line, exit 2,
naming what the path is, for every command and every option that reads a file; the read opens
without blocking and refuses the opened file unless it is regular (kvplan.inputs.text). A FIFO
cannot be committed, so each test makes one in tmp_path; the deployment that names one is
tests/assets/hostile/fifo-trtllm-config.yaml. Run in a child process (tests/hardening/limited:
a hang is killed after 60 s and fails the test).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.hardening.limited import assert_bounded, one_error_line, run_limited

HOSTILE = Path(__file__).resolve().parents[1] / "assets" / "hostile"
GOOD_LOG = Path(__file__).resolve().parents[1] / "assets" / "logs"
REFUSED = ("is a FIFO (named pipe), not a regular file; kvplan reads only regular files: save "
           "the content to a file and name that")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("argv", [
    ("size", "{f}", "--gpu", "h100"),
    ("explain", "{f}", "--gpu", "h100"),
    ("fleet", "{f}", "--gpu", "h100", "-n", "10"),
    ("plot", "memory", "{f}", "--gpu", "h100"),
    ("import", "{f}"),
    ("calibrate", "{f}"),
    ("size", "llama-3-8b", "--gpu", "{f}"),
    ("fleet", "llama-3-8b", "--gpu", "h100", "-n", "10", "--prices", "{f}"),
    ("fleet", "llama-3-8b", "--gpu", "h100", "-n", "10", "--context-sample", "{f}"),
    ("size", "llama-3-8b", "--gpu", "h100", "--engine", "trtllm", "--trtllm-config", "{f}"),
], ids=["size", "explain", "fleet", "plot", "import", "calibrate", "gpu-file", "prices",
        "context-sample", "trtllm-config"])
def test_a_fifo_is_refused_in_one_line_not_waited_on(fifo: Path, argv: tuple[str, ...]) -> None:
    out = run_limited(*(a.format(f=fifo) for a in argv))
    assert out.code == 2, out.stdout + out.stderr
    line = one_error_line(out)
    assert line.startswith("error: ") and f"{fifo}: {REFUSED}" in line, line
    assert_bounded(out)


def test_a_deployment_naming_a_fifo_names_its_field_and_line(tmp_path: Path) -> None:
    dep = tmp_path / "fifo-trtllm-config.yaml"
    shutil.copy(HOSTILE / "fifo-trtllm-config.yaml", dep)
    os.mkfifo(tmp_path / "fifo-trtllm-config.pipe")
    for command in ("size", "explain", "fleet"):
        out = run_limited(command, str(dep))
        assert out.code == 2, out.stdout + out.stderr
        assert one_error_line(out) == (
            f"error: {dep}: line 10: engine.trtllm_config: {tmp_path}/fifo-trtllm-config.pipe: "
            f"{REFUSED}")
        assert_bounded(out)


def test_check_names_a_fifo_and_still_judges_the_file_beside_it(fifo: Path) -> None:
    """A FIFO named on check's command line was 'no such file or folder'; a folder walk already
    passed over one (task h80review). The deployment named after it is still judged."""
    good = HOSTILE.parent / "deployments" / "chatbot-vllm.yaml"
    out = run_limited("check", str(fifo), str(good))
    assert out.code == 2, out.stdout + out.stderr
    assert (f"{fifo}\nERROR file: not a regular file (a FIFO, socket or device), not opened; "
            "kvplan reads only regular files: save the content to a file and name that\n"
            ) in out.stdout, out.stdout
    # judged on its own: check needs hardware.count, which the file (written for fleet) lacks
    assert (f"{good}\nERROR line 5: hardware.count: required by `kvplan check`" in out.stdout
            and "2 checked in 2 file(s): 0 PASS, 0 FAIL, 2 ERROR" in out.stdout), out.stdout
    assert_bounded(out)


def test_calibrate_reports_the_good_log_beside_a_fifo(fifo: Path) -> None:
    log = sorted(GOOD_LOG.glob("01-*.log"))[0]
    out = run_limited("calibrate", str(log), str(fifo))
    assert out.code == 2, out.stdout + out.stderr
    assert log.name in out.stdout, out.stdout  # the good log's row is still printed
    assert f"{fifo}: {REFUSED}" in out.stderr, out.stderr
    assert_bounded(out)
