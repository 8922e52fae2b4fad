"""`kvplan plot`: images render (PNG and SVG, non-trivial), and terminal bars without -o."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kvplan.cli import app


def invoke(runner, *args: str):  # noqa: ANN001, ANN201 - typer's Result type
    return runner.invoke(app, list(args))


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def mpl() -> None:
    """Image tests need the `plot` extra (the `test` extra installs it)."""
    pytest.importorskip("matplotlib")


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_users_vs_context_png(runner, mpl, tmp_path: Path):
    out = tmp_path / "users.png"
    result = invoke(runner, "plot", "users-vs-context", "llama-3-8b", "-o", str(out))
    assert result.exit_code == 0, result.output
    width, height = _png_size(out)
    assert width > 400 and height > 300
    assert out.stat().st_size > 20_000  # four lines, axes and a legend, not an empty canvas


def test_memory_svg(runner, mpl, tmp_path: Path):
    out = tmp_path / "memory.svg"
    args = ["plot", "memory", "llama-3-8b", "--context", "8192", "--avg-context", "2000",
            "-o", str(out)]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "KV in use" in text and "weights: 14.96 GiB" in text


def test_risk_png(runner, mpl, tmp_path: Path):
    out = tmp_path / "risk.png"
    args = ["plot", "risk", "llama-3-8b", "--context", "8192", "--kv-budget-gib", "60",
            "--context-p50", "1200", "--context-p95", "6000", "-o", str(out)]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.output
    assert _png_size(out)[0] > 400
    assert out.stat().st_size > 20_000


def test_terminal_bars_without_output(runner):
    result = invoke(runner, "plot", "users-vs-context", "llama-3-8b", "--kv-dtype", "fp16",
                    "--allocation", "paged")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("2,048" in line and "217" in line and "█" in line for line in lines)
    risk = invoke(runner, "plot", "risk", "llama-3-8b", "--context", "8192", "--kv-budget-gib",
                  "60", "--context-p50", "1200", "--context-p95", "6000")
    assert risk.exit_code == 0, risk.output
    assert "cache of 231 open conversations" in risk.output
    assert "KV pool 60 GiB: P(overflow) = 0.840%" in risk.output


def test_bad_image_suffix(runner, tmp_path: Path):
    result = invoke(runner, "plot", "memory", "llama-3-8b", "-o", str(tmp_path / "m.jpg"))
    assert result.exit_code == 2
    assert ".png or .svg" in result.output


def test_risk_plot_needs_a_spread(runner):
    result = invoke(runner, "plot", "risk", "llama-3-8b")
    assert result.exit_code == 2 and "spread" in result.output


def test_size_does_not_import_matplotlib():
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from kvplan.cli import app\n"
        "r = CliRunner().invoke(app, ['size', 'llama-3-8b', '--context', '8192'])\n"
        "assert r.exit_code == 0, r.output\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('matplotlib', 'numpy', 'scipy')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_matplotlib_the_error_says_what_to_install(runner, tmp_path: Path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    result = invoke(runner, "plot", "memory", "llama-3-8b", "-o", str(tmp_path / "m.png"))
    assert result.exit_code == 2
    assert "pip install matplotlib" in result.output and "kvplan[" not in result.output
    assert not (tmp_path / "m.png").exists()


def test_context_ticks_too_close_to_the_maximum_lose_their_label(runner, mpl, tmp_path: Path,
                                                                  monkeypatch):
    # DeepSeek-V3.1's config.json (tests/assets/check/qa/hf, task h33qa2): max_position_embeddings
    # 163,840, so the last power of two, 131,072, sat 1.25x below it and the two labels printed
    # over each other ("131,07163,840").
    from kvplan.render import plots

    drawn: list = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: drawn.append(fig))
    v31 = Path(__file__).parents[1] / "assets" / "check" / "qa" / "hf" / \
        "deepseek-ai--DeepSeek-V3.1.json"
    result = invoke(runner, "plot", "users-vs-context", str(v31), "--gpu", "h200", "--tp", "8",
                    "-o", str(tmp_path / "v31.png"))
    assert result.exit_code == 0, result.output
    ax = drawn[0].axes[0]
    assert list(ax.get_xticks())[-3:] == [65536, 131072, 163840]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[-3:] == ["65,536", "", "163,840"]
    assert labels[0] == "256"
    import matplotlib.pyplot as plt

    plt.close(drawn[0])
