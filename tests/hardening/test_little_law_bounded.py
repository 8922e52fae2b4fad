"""Little's law's peak has the bound of a stated peak (task srefirst): `fleet --arrival-rate 1e308
--mean-duration-s 1e308` planned 10^616 conversations and stopped in the cost's float as an
internal error (exit 3, "int too large to convert to float"). Now one line, exit 2, from the
command line and from a kvplan/v1 file alike; 10^12 at once (the limit) still plans."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

WHY = ("arrival_rate_per_s x mean_duration_s x peak_to_mean is more than 1,000,000,000,000 "
       "conversations at once, the limit on peak_concurrent_users (docs/limits.md); check the "
       "units (requests per second, seconds)")


def test_the_flags_past_the_bound_are_one_line() -> None:
    res = CliRunner().invoke(app, ["fleet", "llama-3-8b", "--arrival-rate", "1e308",
                                   "--mean-duration-s", "1e308"])
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.rstrip().endswith(WHY)
    # 10^6 per second for 10^6 s is the limit itself: planned, 10^12 / 54 users per GPU
    at = CliRunner().invoke(app, ["fleet", "llama-3-8b", "--arrival-rate", "1e6",
                                  "--mean-duration-s", "1e6", "-f", "csv"])
    assert at.exit_code == 0, at.output
    assert "18518518519" in at.stdout  # ceil(10^12 / 54): Llama-3-8B's 54 per H100 at 8,192
    over = CliRunner().invoke(app, ["fleet", "llama-3-8b", "--arrival-rate", "1e6",
                                    "--mean-duration-s", "1e6", "--peak-to-mean", "1.5"])
    assert over.exit_code == 2 and WHY in over.stderr


def test_a_file_past_the_bound_is_an_error_in_check(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: huge\nmodel: llama-3-8b\n"
                    "hardware: {gpu: h100, count: 1}\n"
                    "traffic: {arrival_rate_per_s: 1.0e+308, mean_duration_s: 1.0e+308}\n")
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "internal error" not in res.output
    assert WHY in " ".join(res.stdout.split())
