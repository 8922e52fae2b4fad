"""Which torch.compile cache state a vLLM prediction assumes (issue #13, task h48cold).

vLLM's V1 engine compiles the model with torch.compile unless `enforce_eager` is set (0.8.5
`config.py:3884-3899`: Inductor and the PIECEWISE level only for V1 without enforce_eager; 0.33.0
`config/vllm.py:1766-1768`: enforce_eager sets `CompilationMode.NONE`). The first call of the
compiled module is `profile_run`'s dummy forward, inside `memory_profiling` (0.34.0
`v1/worker/gpu_worker.py:718-732`); on the AOT path the compile, the artifact's save and that
forward run back to back with no peak reset between them (0.34.0 `compilation/decorators.py:705-711`;
0.32.0 `:696-702`), and the window charges `torch_peak - torch_allocated` as activation memory
(0.34.0 `utils/mem_utils.py:301`, `:333-336`). A start that finds the compiled graphs in the
cache skips the compile; a first start with an empty cache pays for it. Read in the 0.32.0 and
0.34.0 wheels: neither runs a warm-up forward before the profile, so the fixes proposed
upstream (vLLM PRs #49892, #54209, #54479, all open or closed unmerged in the threads read) are in
no release through 0.34.0. 0.34's extensible KV cache keeps the profiled peak as its reserved
headroom (`gpu_worker.py:946-948`), so it carries the same excess.

kvplan's activation peak is the forward pass's (kvplan.engines.activation), with no compile
term: it is a warm-cache figure (held-out log 440's source, vLLM 0.27.1 on an RTX 4090: kvplan
+23.51% against its cold run, +2.71% against the two warm runs of the same setting). The cold
excess in the public reports read (docs/engines-findings.md "task h48cold" has each figure and its
source) is 0 on a V100, 0.47 GiB a GPU on 2x RTX 4090, 0.92-0.99 GiB on an RTX 3090 or 4090,
2.50 GiB on a Quadro RTX 8000 and "tens of GiB" on RTX PRO 6000 Blackwell cards with a
development build: it follows the card and the build, not a setting kvplan reads, so it is
stated, not booked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kvplan.capacity.plan import SizeRequest
    from kvplan.engines.interface import EngineSettings
    from kvplan.engines.vllm_series import Flavour

NOTE = ("torch.compile cache warm (the compiled graphs loaded from the cache); not modelled: a "
        "first start with an empty cache compiles inside vLLM's memory profile and got "
        "0.47-2.50 GiB a GPU less pool in the reports read (vLLM #54383, 1Cat-vLLM #518; tens of "
        "GiB in vLLM #54122), unfixed through 0.34.0")


def compiles(fl: Flavour, s: EngineSettings) -> bool:
    """Whether this vLLM start compiles the model: the V1 engine without enforce_eager."""
    return fl.v1 and not s.enforce_eager


def profiled(req: SizeRequest, s: EngineSettings) -> bool:
    """Whether kvplan sizes the pool from its own activation peak: not where the pool is given
    (--kv-cache-memory-bytes, --kv-budget-gib, a log's KV memory) or the peak is a log's (that
    log's start had whichever cache state it had)."""
    m = s.measured
    return (s.kv_cache_memory_bytes is None and req.kv_budget_bytes is None
            and m.kv_cache_bytes is None and m.stage_kv_bytes is None
            and m.activation_bytes is None)


def note(req: SizeRequest, fl: Flavour, s: EngineSettings) -> str | None:
    """The compile-cache assumption for a start that compiles and is profiled, else None."""
    return NOTE if compiles(fl, s) and profiled(req, s) else None
