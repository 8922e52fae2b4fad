"""benchmarks/inductor_combo_levels.py (issue #13, task h42mrv2): which kernels of a vLLM-like
first piece share a topological level, i.e. which Inductor's `benchmark_combo_kernel` would
benchmark with fresh random copies of their inputs (torch `_inductor/scheduler.py`
`_topological_sort_nodes` and `combinable_nodes`, applied by the script to the CPU schedule)."""

from __future__ import annotations

import pytest

from tests.engines.bench_scripts import load

pytest.importorskip("torch")

mod = load("inductor_combo_levels")


@pytest.fixture(scope="module")
def levels() -> list:
    return mod.scheduled_levels()


def test_embedding_kernel_is_alone_among_combinable_kernels_at_its_level(levels: list) -> None:
    """The embedding gather reads only graph inputs (ids, table), so it sits at level 0; the
    only other node there is the attention output's `empty` (a no-op node that
    `combinable_nodes` filters out) -- everything else needs the qkv matmul first. So no combo
    group holds the embedding and its table is never copied for a combo benchmark."""
    with_embedding = [level for level in levels
                      if any("embedding" in origins for _, origins in level)]
    assert len(with_embedding) == 1
    kept = [origins for kept, origins in with_embedding[0] if kept]
    assert len(kept) == 1 and "embedding" in kept[0]
    assert all("embedding" not in origins
               for group in mod.combo_groups(levels) for origins in group)


def test_q_and_k_rope_kernels_form_a_combo_group(levels: list) -> None:
    """q's and k's RoPE (x1*c - x2*s, x2*c + x1*s over different head counts, 4 and 2) both read
    only the qkv output and the cos/sin cache, so they share a level: the pair vLLM's comment
    names ("fusing qk-norm and qk-rope", vLLM 0.26.0 config/compilation.py:989-990)."""
    groups = mod.combo_groups(levels)
    rope_pairs = [g for g in groups if len(g) == 2 and all({"sub", "index"} <= o for o in g)]
    assert len(rope_pairs) == 1
