"""A launch script's own `pip install` pin is the release of the server it starts outside a
container (kvplan.check.manifests.shell, through launcher_sites.pip_pins as SkyPilot's setup,
dstack's commands and a notebook's cells)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

SERVE = "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"
UNNAMED = "the vllm release is the one installed, which the script does not name"


def _check(tmp_path: Path, body: str) -> str:
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/sh\n{body}\n{SERVE}\n")
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def test_a_pin_is_the_release(tmp_path: Path) -> None:
    out = _check(tmp_path, "pip install vllm==0.8.5")
    assert "(llama-3-8b, vllm 0.8.5)" in out
    assert "note: line 2 installs vllm==0.8.5: vllm 0.8.5" in out
    assert UNNAMED not in out
    # 0.8.5's V1 pool on an H100 (its profile, not the newest one's 489,616 tokens)
    assert "(420,528 tokens in the pool)" in out


def test_a_range_or_another_engine_keeps_the_release_unnamed(tmp_path: Path) -> None:
    ranged = _check(tmp_path, "pip install 'vllm>=0.8'")
    assert UNNAMED in ranged and "(llama-3-8b, vllm (default version))" in ranged
    assert "line 2 installs vllm>=0.8: a range, not a release" in ranged
    other = _check(tmp_path, "pip install sglang==0.4.6")
    assert UNNAMED in other
    assert "line 2 installs sglang==0.4.6: not the engine this server runs, so not its release" \
        in other


def test_a_pin_on_a_continued_line_is_read(tmp_path: Path) -> None:
    # `pip install \` then the packages on the next lines (one command to the shell): the pin
    # on line 4 was passed over, the note said the script names no release and the newest
    # release's 489,616 tokens were planned
    out = _check(tmp_path, "pip install --upgrade \\\n    torch \\\n    vllm==0.8.5")
    assert "note: line 2 installs vllm==0.8.5: vllm 0.8.5" in out
    assert "(420,528 tokens in the pool)" in out
    assert UNNAMED not in out
    # a backslash inside a line, or a line after a command that ends, does not join
    out = _check(tmp_path, "pip install torch\necho vllm==0.8.5")
    assert UNNAMED in out and "(489,616 tokens in the pool)" in out


def test_a_wildcard_or_another_operator_is_a_range(tmp_path: Path) -> None:
    # PEP 440: `==0.8.*` matches every 0.8 release (pip installs the newest, 0.8.5.post1), but
    # it was read as the release '0.8' ('installs vllm==0.8.: vllm 0.8', 420,528 tokens)
    out = _check(tmp_path, "pip install 'vllm==0.8.*'")
    assert "line 2 installs vllm==0.8.*: a range, not a release" in out
    assert UNNAMED in out and "(489,616 tokens in the pool)" in out
    # `<`, `<=` and `!=` are ranges too (they were passed over without a note)
    for spec in ("vllm<0.9", "vllm<=0.9.2", "vllm!=0.9.0"):
        out = _check(tmp_path, f"pip install '{spec}'")
        assert f"line 2 installs {spec}: a range, not a release" in out, spec
        assert UNNAMED in out
    # `===` is PEP 440's exact (arbitrary) equality: the release
    out = _check(tmp_path, "pip install vllm===0.8.5")
    assert "note: line 2 installs vllm===0.8.5: vllm 0.8.5" in out
    assert "(420,528 tokens in the pool)" in out


def test_a_pin_through_a_variable(tmp_path: Path) -> None:
    # `VLLM_VERSION=0.8.5` then `pip install vllm==${VLLM_VERSION}`: the pin was passed over
    # without a word (the pattern wants a digit after ==), and the newest release was planned
    out = _check(tmp_path, "VLLM_VERSION=0.8.5\npip install \"vllm==${VLLM_VERSION}\"")
    assert "note: line 3 installs vllm==0.8.5: vllm 0.8.5" in out
    assert "(420,528 tokens in the pool)" in out
    # a variable the script does not set is noted, and the release stays unnamed
    out = _check(tmp_path, "pip install vllm==$VLLM_VERSION")
    assert ("line 2 installs vllm==$VLLM_VERSION: a variable kvplan does not know there; the "
            "vllm profile's default version is used") in out
    assert UNNAMED in out and "(489,616 tokens in the pool)" in out


def test_a_skypilot_setup_pin_through_envs(tmp_path: Path) -> None:
    # SkyPilot exports `envs` to `setup` and `run` alike (the run's $MODEL_NAME is read so)
    path = tmp_path / "task.yaml"
    path.write_text("envs:\n  MODEL_NAME: meta-llama/Meta-Llama-3-8B-Instruct\n"
                    "  VLLM_VERSION: 0.8.5\nresources:\n  accelerators: H100:1\n"
                    "setup: |\n  pip install vllm==$VLLM_VERSION\n"
                    "run: |\n  vllm serve $MODEL_NAME --max-model-len 8192\n")
    res = CliRunner().invoke(app, ["check", str(path)])
    out = " ".join(res.output.split())
    assert res.exit_code == 0, out
    assert "note: setup installs vllm==0.8.5: vllm 0.8.5" in out
    assert "(llama-3-8b, vllm 0.8.5)" in out


def test_a_pin_in_a_trailing_comment_is_not_read(tmp_path: Path) -> None:
    # the shell drops ` # ...` from a command: a pin written there installs nothing, but it was
    # read as the release ('line 2 installs vllm==0.8.5: vllm 0.8.5', 420,528 tokens)
    out = _check(tmp_path, "pip install torch  # then vllm==0.8.5 from the wheel cache")
    assert UNNAMED in out and "(489,616 tokens in the pool)" in out
    assert "installs vllm==0.8.5" not in out
    # a '#' inside a word or quotes is no comment
    out = _check(tmp_path, "pip install 'vllm==0.8.5' --index-url https://x/simple#frag")
    assert "note: line 2 installs vllm==0.8.5: vllm 0.8.5" in out


def test_a_pin_is_named_in_at_most_60_characters(tmp_path: Path) -> None:
    # a hostile pin (`vllm==$A$A...` 40,000 characters) was copied whole into its note
    out = _check(tmp_path, "pip install vllm==" + "$A" * 20_000)
    assert f"line 2 installs vllm=={'$A' * 25}$...: a variable kvplan does not know there" in out
    assert len(out) < 3_000
