"""vLLM's "Model loading took" counts torch's whole allocator blocks (tasks h50awq7b, h51blocks).

What the figure measures (read in the 0.21.0, 0.30.0, 0.33.0 and 0.34.0 wheels, and 0.22.1 by
task h50awq7b): the model runner's `load_model` wraps the load in `DeviceMemoryProfiler`
(v1/worker/gpu_model_runner.py:4868 and :4960 in 0.21.0; v1/worker/gpu/model_runner.py:394 and
:429 in 0.30.0, :397 and :429 in 0.33.0, :410 and :442 in 0.34.0) and prints its
`consumed_memory` (utils/mem_utils.py:48-64 in 0.21.0, :81-100 in 0.30.0, :82-101 in 0.33.0,
:83-102 in 0.34.0), the difference of
`get_current_memory_usage` = `empty_cache(); reset_peak_memory_stats(); max_memory_allocated()`
(platforms/cuda.py:244-249 in 0.21.0, :379-384 in 0.30.0, :369-374 in 0.33.0, :410-415 in
0.34.0) before and after: torch's allocated bytes. The worker runs `load_model` inside
`_scoped_allocator_max_split(max_split_size_mb=20)` (v1/worker/gpu_worker.py:214-236 and
:338-345 in 0.21.0; :335-357 and :500-507 in 0.30.0; :419-446 and :594-601 in 0.33.0; :421-448
and :595-603 in 0.34.0; 0.33.0 and 0.34.0 skip it for a non-native allocator backend,
cudaMallocAsync; not in 0.20.0).

torch's caching allocator (pytorch c10/cuda/CUDACachingAllocator.cpp, the stored version read:
`get_allocation_size`, `should_split`, `get_free_block`, `alloc_found_block`) counts a block's
whole size in `allocated_bytes`, not the request; a request of 10 MiB or more gets a fresh
segment rounded up to 2 MiB (`kRoundLarge`), and a request of max_split_size or more is never
split (`should_split`: `size < max_split_size() && remaining > kSmallSize`), nor served from a
cached block 20 MiB larger (`get_free_block`). So every weight tensor of 20 MiB or more that
vLLM allocates while loading counts as its size rounded up to 2 MiB, and "Model loading took"
exceeds the tensors' bytes by the sum of those round-ups. Smaller tensors packed into 20 MiB
segments leave a placement-dependent remainder (not booked).

Booked for every layout kvplan.engines.vllm_load_layout lays out tensor by tensor (16-bit and
FP8 dense decoders and MoE experts, GPTQ/AWQ); elsewhere the explanation says it is not booked,
with the bound.
"""

from __future__ import annotations

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_load_layout import not_laid_out, rank_layout, tensor_count
from kvplan.engines.vllm_series import DEFAULT_VERSION
from kvplan.units import MIB, ceil_div

SCOPED_SPLIT_FROM = (0, 21, 0)  # first wheel read with max_split_size_mb 20 around load_model
MAX_SPLIT_BYTES = 20 * MIB  # max_split_size_mb:20 (gpu_worker.py:343 in 0.21.0)
ROUND_LARGE = 2 * MIB  # torch's kRoundLarge


def scoped(version: str | None) -> bool:
    """Whether this release loads under max_split_size_mb 20."""
    return (parse_version(version or DEFAULT_VERSION) or ())[:3] >= SCOPED_SPLIT_FROM


def round_up(size: int) -> int:
    """Bytes torch counts above one tensor of `size` bytes under max_split_size 20 MiB: a
    tensor of 20 MiB or more sits alone in a segment rounded up to 2 MiB; a smaller one is not
    counted here (0)."""
    if size < MAX_SPLIT_BYTES:
        return 0
    return ceil_div(size, ROUND_LARGE) * ROUND_LARGE - size


def _stages(n: int, pp: int) -> list[int]:
    """Decoder layers a pipeline stage holds: vLLM's `get_pp_indices` (distributed/utils.py)
    gives each n // pp and one more to the stages before the last, for the remainder."""
    parts = [n // pp] * pp
    for i in range(2, n % pp + 2):
        parts[-i] += 1
    return parts


def _layer_round_ups(layers: tuple[tuple[int, tuple[int, ...]], ...], pp: int,
                     offload: int) -> int:
    """The decoder layers' round-ups summed over the pp stages, less the tensors
    --cpu-offload-gb moves to pinned host memory: `maybe_offload_to_cpu`
    (model_executor/models/utils.py; `make_layers` wraps each decoder layer in it, not the
    embeddings) moves a stage's parameters one by one from its first layer, in vLLM's order,
    while the bytes moved so far are below the budget (one per process: per stage)."""
    flat = [sizes for count, sizes in layers for _ in range(count)]
    total, start = 0, 0
    for n in _stages(len(flat), pp):
        moved = 0
        for sizes in flat[start:start + n]:
            for size in sizes:
                if moved < offload:
                    moved += size
                else:
                    total += round_up(size)
        start += n
    return total


def slack_bytes(req: SizeRequest, version: str | None, offload: int | None = None) -> int:
    """Bytes "Model loading took" counts above the tensors on one GPU (0 where not booked):
    the layers' round-ups over pp stages, the vocab matrices' over pp, as weights_bytes
    spreads them; the tensors --cpu-offload-gb moves to the host (`offload` bytes a GPU) round
    nothing."""
    if not scoped(version):
        return 0
    lay = rank_layout(req.model, req.effective_weight_dtype, req.tp, req.ep)
    if lay is None:
        return 0
    layers = _layer_round_ups(lay.layers, req.pp, offload or 0)
    vocab = sum(round_up(s) for s in lay.vocab)
    return ceil_div(layers, req.pp) + ceil_div(vocab, req.pp)


def slack_how(req: SizeRequest, version: str | None, offload: int | None = None) -> str:
    """The term in words for `kvplan explain`'s weights step: booked, or why not and the bound."""
    if not scoped(version):
        return ""
    slack = slack_bytes(req, version, offload)
    if slack:
        lay = rank_layout(req.model, req.effective_weight_dtype, req.tp, req.ep)
        assert lay is not None
        return (f" + {slack:,} B of torch blocks: the {lay.kind} layout's tensors of 20 MiB or "
                "more rounded up to 2 MiB (vLLM loads under max_split_size_mb 20)")
    why = not_laid_out(req.model, req.effective_weight_dtype)
    if why is None:
        return ""
    bound = ceil_div(tensor_count(req.model), req.pp) * ROUND_LARGE
    return (f"; torch's whole blocks not booked ({why}: not laid out tensor by tensor): vLLM "
            f"loads under max_split_size_mb 20, so up to 2 MiB more a tensor of 20 MiB or "
            f"more, at most {bound:,} B here (2 MiB x {ceil_div(tensor_count(req.model), req.pp)}"
            " tensors)")
