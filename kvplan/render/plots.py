"""Pictures (PNG or SVG) with matplotlib, imported here only: `pip install matplotlib`.

Every function takes numbers already computed by the core and writes one image file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kvplan.errors import InputError
from kvplan.units import GIB

FORMATS = (".png", ".svg")
PART_STYLE = (
    ("weights_bytes", "weights", "#7b3294"),
    ("kv_used_bytes", "KV in use", "#1a9641"),
    ("kv_free_bytes", "KV free", "#a6d96a"),
    ("reserve_bytes", "reserve (activations, CUDA context)", "#fdae61"),
    ("unallocated_bytes", "unallocated", "#cccccc"),
)


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(
            "plots need matplotlib: pip install matplotlib (or leave out --output to "
            "see the chart in the terminal)"
        ) from None
    return plt


def check_path(path: Path) -> None:
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"{path}: --output writes a picture: name a .png or .svg file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{path}: folder {folder} does not exist")


def _save(fig: Any, path: Path) -> None:
    from kvplan.inputs import atomic_write  # a temporary file renamed into place

    check_path(path)
    try:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight"))
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def tick_labels(ticks: Sequence[int]) -> list[str]:
    """Labels of the context ticks (powers of two, then the model's maximum) on a log-2 axis.

    A tick less than 1.5x below the next one would print over it (131,072 beside a maximum of
    163,840 read "131,07163,840"), so it keeps its mark but loses its label; the last (the
    maximum, which the title names) always keeps its own.
    """
    return ["" if i + 1 < len(ticks) and ticks[i + 1] < 1.5 * t else f"{t:,}"
            for i, t in enumerate(ticks)]


def users_vs_context(
    series: dict[str, Sequence[tuple[int, float]]], title: str, path: Path
) -> None:
    """Users per GPU (y) against tokens per conversation (x), one line per series."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, points in series.items():
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        style = "--" if "reserved" in label else "-"
        ax.plot(xs, ys, style, marker="o", markersize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ticks = sorted({x for points in series.values() for x, _ in points})
    ax.set_xticks(ticks)
    ax.set_xticklabels(tick_labels(ticks))
    ax.minorticks_off()
    ax.set_xlabel("tokens per conversation")
    ax.set_ylabel("concurrent conversations per GPU")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    _save(fig, path)


def memory_breakdown(parts: dict[str, int], total: int, title: str, path: Path) -> None:
    """One GPU's memory as a stacked horizontal bar, in GiB."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 1.8))
    left = 0.0
    for key, label, color in PART_STYLE:
        value = parts.get(key, 0) / GIB
        if value <= 0:
            continue
        ax.barh([0], [value], left=left, color=color, label=f"{label}: {value:.2f} GiB")
        left += value
    ax.set_xlim(0, total / GIB)
    ax.set_yticks([])
    ax.set_xlabel(f"GiB (of {total / GIB:.2f})")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.4), ncol=2, fontsize=8, frameon=False)
    _save(fig, path)


def risk_distribution(
    totals_bytes: Sequence[int],
    probs: Sequence[float],
    pool_bytes: int,
    overflow: float,
    title: str,
    path: Path,
) -> None:
    """The distribution of the concurrent cache with the pool marked and overflow shaded."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    xs = [b / GIB for b in totals_bytes]
    ax.plot(xs, probs, color="#2b83ba", linewidth=1.2)
    ax.fill_between(xs, probs, where=[b > pool_bytes for b in totals_bytes], color="#d7191c",
                    alpha=0.5, label=f"overflow: P = {overflow:.3%}")
    ax.axvline(pool_bytes / GIB, color="black", linestyle="--", linewidth=1,
               label=f"KV pool {pool_bytes / GIB:.2f} GiB")
    ax.set_xlabel("cache held by the open conversations (GiB)")
    ax.set_ylabel("probability")
    ax.set_title(title)
    ax.legend()
    ax.grid(True, alpha=0.3)
    _save(fig, path)
