"""vLLM's "Model loading took" counts torch's whole allocator blocks (task h50awq7b).

What the figure measures (vLLM 0.22.1): `GPUModelRunner.load_model` wraps the load in
`DeviceMemoryProfiler` (v1/worker/gpu_model_runner.py:5032-5136) and prints its
`consumed_memory` (utils/mem_utils.py:48-64), the difference of
`get_current_memory_usage` = `empty_cache(); reset_peak_memory_stats();
max_memory_allocated()` (platforms/cuda.py:250-255) before and after: torch's allocated
bytes. The worker runs `load_model` inside `_scoped_allocator_max_split(max_split_size_mb=20)`
(v1/worker/gpu_worker.py:211-233 and :337-342; read in the 0.21.0, 0.22.1, 0.23.0, 0.26.0 and
0.30.0 wheels, :336-349 there; not in 0.20.0).

torch's caching allocator (pytorch c10/cuda/CUDACachingAllocator.cpp, the stored version
read: `get_allocation_size`, `should_split`, `get_free_block`, `alloc_found_block`) counts a
block's whole size in `allocated_bytes`, not the request; a request of 10 MiB or more gets a
fresh segment rounded up to 2 MiB (`kRoundLarge`), and a request of max_split_size or more is
never split (`should_split`: `size < max_split_size() && remaining > kSmallSize`), nor served
from a cached block 20 MiB larger (`get_free_block`). So every weight tensor of 20 MiB or more
that vLLM allocates while loading counts as its size rounded up to 2 MiB, and "Model loading
took" exceeds the tensors' bytes by the sum of those round-ups. Smaller tensors packed into 20
MiB segments leave a placement-dependent remainder (not booked).

Booked for the layout kvplan.capacity.linear_quant prices (GPTQ/AWQ specs, whose tensors it
knows one by one): per layer the fused qkv_proj and gate_up_proj and the o_proj and down_proj
qweight, scales, qzeros (and GPTQ's g_idx), plus the embeddings and, untied, the LM head
(vocab padded to 64 rows, VocabParallelEmbedding). Not booked for other layouts (the same
round-up applies to them; their tensors are not laid out one by one here).
"""

from __future__ import annotations

from kvplan.capacity.linear_quant import G_IDX_BYTES, _widths, quantized_params
from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_series import DEFAULT_VERSION
from kvplan.specs.schema import ModelSpec
from kvplan.units import MIB, ceil_div

SCOPED_SPLIT_FROM = (0, 21, 0)  # first wheel read with max_split_size_mb 20 around load_model
MAX_SPLIT_BYTES = 20 * MIB  # max_split_size_mb:20 (gpu_worker.py:340 in 0.22.1)
ROUND_LARGE = 2 * MIB  # torch's kRoundLarge
VOCAB_PAD = 64  # vLLM's DEFAULT_VOCAB_PADDING_SIZE
METHODS = frozenset({"awq", "gptq"})


def applies(model: ModelSpec, version: str | None) -> bool:
    """Whether kvplan books the round-up: a GPTQ/AWQ spec under a release that scopes it."""
    quant = model.weight_quant
    if quant is None or quant.method not in METHODS:
        return False
    return (parse_version(version or DEFAULT_VERSION) or ())[:3] >= SCOPED_SPLIT_FROM


def round_up(size: int) -> int:
    """Bytes torch counts for one tensor of `size` bytes under max_split_size 20 MiB: a tensor
    of 20 MiB or more sits alone in a segment rounded up to 2 MiB; a smaller one is not
    counted here (0)."""
    if size < MAX_SPLIT_BYTES:
        return 0
    return ceil_div(size, ROUND_LARGE) * ROUND_LARGE - size


def layer_tensors(model: ModelSpec, tp: int) -> list[int]:
    """Bytes of each quantized tensor of one decoder layer on one TP rank."""
    quant = model.weight_quant
    assert quant is not None
    bits, group, scale_bits = quant.weight_dtype.bits, quant.group_size, quant.scale_dtype.bits
    column, row = _widths(model, tp)
    sizes = []
    for k, n in column + row:
        groups = ceil_div(k, group)
        sizes += [k * n * bits // 8, groups * n * scale_bits // 8,
                  groups * ceil_div(n * bits, 32) * 4]
        if quant.method == "gptq":
            sizes.append(k * G_IDX_BYTES)
    return sizes


def vocab_tensors(model: ModelSpec, tp: int) -> list[int]:
    """The embeddings and, where the spec's 16-bit rest holds a second vocab x hidden matrix
    (untied), the LM head, on one TP rank."""
    rest = model.params_total - quantized_params(model)
    matrix = model.vocab_size * model.hidden_size
    count = 2 if rest >= 2 * matrix else 1
    rows = ceil_div(ceil_div(model.vocab_size, VOCAB_PAD) * VOCAB_PAD, tp)
    return [rows * model.hidden_size * model.weight_dtype.bits // 8] * count


def slack_bytes(model: ModelSpec, tp: int, pp: int, version: str | None) -> int:
    """Bytes "Model loading took" counts above the tensors on one GPU (0 where not booked):
    the layers' round-ups over pp stages, the vocab matrices' over pp, as weights_bytes."""
    if not applies(model, version):
        return 0
    layers = model.num_layers * sum(round_up(s) for s in layer_tensors(model, tp))
    vocab = sum(round_up(s) for s in vocab_tensors(model, tp))
    return ceil_div(layers, pp) + ceil_div(vocab, pp)


def slack_how(model: ModelSpec, tp: int, pp: int, version: str | None) -> str:
    """The term in words for `kvplan explain`."""
    slack = slack_bytes(model, tp, pp, version)
    return (f" + {slack:,} B of torch blocks: tensors of 20 MiB or more rounded up to 2 MiB "
            "(vLLM loads under max_split_size_mb 20)") if slack else ""
