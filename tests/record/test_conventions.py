"""CLI conventions: -h, completion, `kvplan` alone, global options anywhere, stdin, JSON shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app, build_app
from kvplan.cli.common import STATE

ROOT = Path(__file__).resolve().parents[2]


def test_kvplan_alone_prints_help_and_exits_0():
    res = CliRunner().invoke(app, [])
    assert res.exit_code == 0
    assert "Commands" in res.output and "fleet" in res.output


@pytest.mark.parametrize("argv", [["-h"], ["size", "-h"], ["fleet", "-h"], ["plot", "memory", "-h"]])
def test_dash_h_is_help(argv):
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    assert "Usage:" in res.output


def test_completion_is_offered():
    assert "--install-completion" in CliRunner().invoke(app, ["--help"]).output


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_works_before_and_after_the_command(where):
    args = ["size", "no-such-model"]
    argv = ["--debug", *args] if where == "before" else [*args, "--debug"]
    res = CliRunner().invoke(app, argv)
    assert res.exit_code != 0 and res.exception is not None  # the traceback, not one line
    assert not isinstance(res.exception, SystemExit)
    STATE["debug"] = False


def test_no_color_after_the_command_is_accepted():
    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--no-color", "-f", "json"])
    assert res.exit_code == 0, res.output
    STATE["no_color"] = False


def test_help_metavars_are_words():
    text = CliRunner().invoke(app, ["fleet", "--help"]).output
    assert "GPU[,GPU...]" in text and "TOKENS" in text
    assert "<list[str]>" not in text and "TEXT" not in text and "INTEGER" not in text


def test_stdin_deployment_and_prices():
    runner = CliRunner()
    text = (ROOT / "examples" / "support-chatbot.yaml").read_text()
    res = runner.invoke(app, ["fleet", "-", "--gpu", "h200", "-f", "json"], input=text)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["results"][0]["gpu"] == "h200-141gb"
    priced = runner.invoke(app, ["fleet", "examples/support-chatbot.yaml", "--prices", "-",
                                 "-f", "json"], input="h100-sxm-80gb: 2\n")
    row = json.loads(priced.stdout)["results"][0]
    assert row["price_per_hour_usd"] == 2.0 and row["cost_per_hour_usd"] == 82 * 2.0


def test_stdin_sample():
    res = CliRunner().invoke(app, ["fleet", "llama-3-8b", "-n", "100", "--context", "8192",
                                   "--context-sample", "-", "-f", "json"],
                             input="tokens\n1000\n2000\n3000\n")
    assert res.exit_code == 0, res.output
    # the mean of 1,000, 2,000 and 3,000 tokens
    assert json.loads(res.stdout)["results"][0]["context_mean_tokens"] == 2000.0


@pytest.mark.parametrize("argv", [["size", "llama-3-8b"], ["fleet", "llama-3-8b", "-n", "10"],
                                  ["explain", "llama-3-8b"]])
def test_one_json_shape_an_object_with_a_results_list(argv):
    res = CliRunner().invoke(app, [*argv, "-f", "json"])
    data = json.loads(res.stdout)
    assert isinstance(data, dict) and isinstance(data["results"], list) and len(data["results"]) == 1
    many = CliRunner().invoke(app, [*argv, "--gpu", "h100,h200", "-f", "json"])
    assert len(json.loads(many.stdout)["results"]) == 2


def test_a_program_run_registers_only_the_invoked_command():
    assert set(build_app("size").registered_commands[0].name or "") <= set("size")
    code = ("import sys; sys.argv = ['kvplan', 'size', 'llama-3-8b', '--format', 'json']\n"
            "import kvplan.cli\n"
            "import json; print(json.dumps(sorted(m for m in sys.modules "
            "if m.startswith('kvplan.cli.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    loaded = json.loads(out)
    assert "kvplan.cli.size" in loaded
    assert not {"kvplan.cli.fleet", "kvplan.cli.check", "kvplan.cli.plot",
                "kvplan.cli.explain"} & set(loaded)
