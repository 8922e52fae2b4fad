"""Which kernels of a vLLM-like first piece would Inductor's combo-kernel benchmark copy?

Issue #13, task h42mrv2 (docs/engines-findings.md, "Read again for task h42mrv2"). vLLM sets Inductor's
`combo_kernels` and `benchmark_combo_kernel` from torch 2.9 (`config/compilation.py:982-992` in
vLLM 0.26.0). Inductor then benchmarks every group of two or more pointwise / reduction kernels
that share a topological level (torch 2.11.0 `_inductor/scheduler.py:2435-2541`, `:3625-3649`,
`:4663-4680`, `:6905-6922`), giving each benchmarked kernel fresh random copies of every buffer it
reads, graph inputs included (`codegen/triton.py:5106-5137`). A benchmarked embedding kernel would
therefore copy the whole vocab x hidden table. This script compiles a small stand-in for the first
piece vLLM splits off a Llama / Qwen2 model (embedding, RMSNorm, qkv linear with bias, native RoPE,
the attention output buffer) on the CPU, records the scheduler's topological levels, applies
Inductor's own `combinable_nodes` filter to each and prints the groups of two or more (the CPU
backend's own grouping skips CPU nodes, so the filter is applied here by hand).

    PYTHONPATH=. .venv/bin/python benchmarks/inductor_combo_levels.py

With the venv's torch 2.13 CPU (2026-12-06): two groups, the q and k RoPE kernels and their two
casts back to bf16; the embedding kernel is alone among combinable kernels at its level (beside
the attention output's `empty`, which the filter drops). Tests:
tests/engines/test_inductor_combo_levels.py. CPU fusion can differ from Triton's, so this is a reconstruction,
not the GPU schedule.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

VOCAB, HIDDEN, Q_HEADS, KV_HEADS, HEAD_DIM, MAX_POS, TOKENS = 4096, 256, 4, 2, 64, 1024, 512


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, heads: int) -> torch.Tensor:
    x = x.reshape(x.shape[0], heads, HEAD_DIM)
    x1, x2 = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]
    c, s = cos.unsqueeze(1), sin.unsqueeze(1)
    out = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)
    return out.to(x.dtype).flatten(1)


def first_piece(ids: torch.Tensor, pos: torch.Tensor, emb: torch.Tensor, ln_w: torch.Tensor,
                qkv_w: torch.Tensor, qkv_b: torch.Tensor, cos_sin: torch.Tensor) -> tuple[Any, ...]:
    """Embedding -> RMSNorm -> qkv linear + bias -> RoPE on q and k, as vLLM's native ops."""
    hidden = F.embedding(ids.long(), emb)
    var = hidden.float().pow(2).mean(-1, keepdim=True)
    normed = (hidden.float() * torch.rsqrt(var + 1e-6)).to(hidden.dtype) * ln_w
    qkv = F.linear(normed, qkv_w, qkv_b)
    q, k, v = qkv.split([Q_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
    cos, sin = cos_sin.index_select(0, pos).chunk(2, dim=-1)
    q, k = _rope(q, cos, sin, Q_HEADS), _rope(k, cos, sin, KV_HEADS)
    return q, k, v, hidden, torch.empty_like(q)


class _Scheduled(Exception):
    """Raised once the scheduler's levels are recorded: no kernel needs to be built."""


def _op_name(target: object) -> str:
    parts = str(target).split(".")  # "aten.embedding.default" -> "embedding"
    return parts[-2] if len(parts) >= 2 else parts[0]


Level = list[tuple[bool, frozenset[str]]]


def scheduled_levels() -> list[Level]:
    """Schedule `first_piece` with Inductor and return its topological levels: per kernel,
    whether Inductor's `combinable_nodes` keeps it and its set of FX origin op names.
    Compilation stops once the scheduler has sorted its nodes, before any kernel is built."""
    import torch._inductor.config as inductor_config
    from torch._inductor import scheduler as sched

    recorded: list[Level] = []
    original = sched.Scheduler._topological_sort_nodes

    def spy(self: Any) -> Any:
        for level in original(self):
            kept = sched.ForeachKernelSchedulerNode.combinable_nodes(list(level))
            recorded.append([
                (node in kept,
                 frozenset(_op_name(o.target) for n in node.get_nodes() if n.node is not None
                           for o in n.node.get_origins()))
                for node in level
            ])
        raise _Scheduled

    torch.manual_seed(0)
    bf16 = torch.bfloat16
    args = (
        torch.randint(0, VOCAB, (TOKENS,), dtype=torch.int32),
        torch.randint(0, MAX_POS, (TOKENS,)),
        torch.randn(VOCAB, HIDDEN, dtype=bf16),
        torch.randn(HIDDEN, dtype=bf16),
        torch.randn((Q_HEADS + 2 * KV_HEADS) * HEAD_DIM, HIDDEN, dtype=bf16),
        torch.randn((Q_HEADS + 2 * KV_HEADS) * HEAD_DIM, dtype=bf16),
        torch.randn(MAX_POS, HEAD_DIM, dtype=torch.float32),
    )
    torch._dynamo.reset()
    sched.Scheduler._topological_sort_nodes = spy  # type: ignore[method-assign]
    try:
        with inductor_config.patch(combo_kernels=True, benchmark_combo_kernel=True,
                                   fx_graph_cache=False), torch.inference_mode():
            torch.compile(first_piece, dynamic=True)(*args)
    except Exception as exc:  # Dynamo wraps the backend's exception
        if not _caused_by_scheduled(exc):
            raise
    finally:
        sched.Scheduler._topological_sort_nodes = original  # type: ignore[method-assign]
        torch._dynamo.reset()
    return recorded


def combo_groups(levels: list[Level]) -> list[list[frozenset[str]]]:
    """The combo candidate groups: two or more combinable kernels at one level."""
    groups = [[origins for kept, origins in level if kept] for level in levels]
    return [g for g in groups if len(g) >= 2]


def _caused_by_scheduled(exc: BaseException | None) -> bool:
    while exc is not None:
        if isinstance(exc, _Scheduled):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def main() -> None:
    for i, group in enumerate(combo_groups(scheduled_levels())):
        print(f"group {i}: " + " | ".join(",".join(sorted(k)) for k in group))


if __name__ == "__main__":
    main()
