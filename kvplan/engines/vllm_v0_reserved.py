"""vLLM 0.2.5-0.5.4: the profiled peak is what torch's caching allocator *reserved* (issue #13).

Read in the released wheels (pip download --no-deps vllm==0.2.5 / 0.3.0 / 0.3.3 / 0.4.0.post1 /
0.4.1 / 0.5.0 ... 0.5.5): from 0.2.5 to 0.6.3 `Worker` measures the profile run's peak as the
drop in free device memory, `total - free` (0.2.5-0.3.0) or `init free - free` (0.3.1 on), right
after `profile_run()`, with `torch.cuda.empty_cache()` only *before* it (v0.2.5
worker/worker.py:81-98, v0.4.1 worker/worker.py:133-146). The caching allocator keeps every
segment it took during the run, so the term is the allocator's reserved bytes at the end of the
run, not the allocated peak that 0.6.4 on reads (memory_stats "allocated_bytes.all.peak", which
SAMPLER_BYTES_PER_LOGIT was fitted to). This module replays the run's large tensors through
PyTorch's allocation rules (c10/cuda/CUDACachingAllocator.cpp, torch 2.1-2.3: sizes rounded to
512 B; requests above 1 MiB served from the large pool, best fit by size then address; a cached
block split when more than 1 MiB would remain; a new segment of 20 MiB for requests under 10 MiB,
else the request rounded up to 2 MiB; freed blocks merged with free neighbours) and reports the
reserved total at the end as the best figure, the allocated peak as the low end.

The replayed tensors, per release (dense decoder models with a gated MLP: Llama, Mistral, Qwen2):
- forward, each layer (model_executor/models/llama.py; layers/layernorm.py: the first layer's
  RMSNorm writes a new tensor, later ones fused_add_rms_norm in place): qkv_proj output; from 0.4.1
  the attention's `output = torch.empty_like(query)` before any prompt is run (0.4.1 and 0.5.0
  attention/backends/xformers.py; 0.2.5-0.4.0.post1 view xFormers' output, 0.3.3 allocates one
  only on the prefix-caching path), then xFormers' output; o_proj output; gate_up output (2 x I),
  SiluAndMul output (I), down_proj output. `gate_up` stays referenced until LlamaMLP.forward
  returns. xFormers' internal copies of the GQA-expanded key/value are not replayed (a term
  inside the attention phase, below the MLP's).
- sampler on max_num_seqs rows x vocab (profile_run's SamplingParams(top_p=0.99,
  top_k=vocab - 1)): logits in the model's 16-bit dtype (no fp32 cast before 0.5.5: v0.5.5
  sampler.py:136 adds `logits = logits.to(torch.float)`); the top-k/top-p sort (values, int64
  indices; inside PyTorch's segmented sort an int64 reverse-index buffer and cub's third keys
  and values buffers, kvplan.engines.vllm_sort_sampler); 0.3.0-0.5.4's _apply_top_k_top_p masks
  (1 B each), softmax and cumsum of the sorted values (16-bit), the inverse index (int64) and the
  gathered logits; 0.2.5's _apply_top_p_top_k instead masks by boolean indexing
  (`logits_sort[top_p_mask] = -inf`: nonzero() indices, 16 B a masked logit, how many depends on
  the dummy prompt's distribution: all masked is the best figure, none the low end) and argsorts
  the int64 indices; then fp32 probabilities and log-probabilities, _multinomial's row copy and
  exponential noise (fp32 each), and from 0.4.0 _get_ranks' log-probability copy, comparison
  (bool) and, in 0.4.x only, its int64 cast (`.long()`, dropped in 0.5.0).
- vLLM 0.2.5 with tensor parallelism: every all-reduce input stays allocated (record_stream
  before TORCH_NCCL_AVOID_RECORD_STREAMS; kvplan.engines.vllm_v0_early). With tensor parallelism
  the logits are all-gathered in 0.2.5 (partial, gathered and reshaped copies; v0.2.5
  sampler.py _get_logits) and gathered on rank 0, the driver that samples, from 0.3.0 (a partial,
  one buffer a rank and their torch.cat; v0.4.1 distributed/communication_op.py
  tensor_model_parallel_gather).
The cuBLAS workspace (8,519,680 B, in a 20 MiB segment) is replayed at the first matmul. Not
replayed: tensors of 1 MiB or less (the small pool), xFormers' and NCCL's workspaces, and the
weights' own segments (empty_cache releases only whole free segments). The high end adds
COMPILE_SLACK for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.capacity.kv import kv_heads_per_gpu
from kvplan.engines.activation import ACT_BYTES, COMPILE_SLACK
from kvplan.engines.interface import Interval, parse_version
from kvplan.specs.schema import ModelSpec
from kvplan.units import MIB, ceil_div

# PyTorch CUDACachingAllocator.cpp constants
MIN_BLOCK = 512  # kMinBlockSize: sizes rounded up to a multiple
SMALL_SIZE = MIB  # kSmallSize: larger requests use the large pool
LARGE_BUFFER = 20 * MIB  # kLargeBuffer: the segment for requests under kMinLargeAlloc
MIN_LARGE_ALLOC = 10 * MIB  # kMinLargeAlloc
ROUND_LARGE = 2 * MIB  # kRoundLarge

RESERVED_FROM = (0, 2, 5)  # total - free (PR #2031), then init free - free (0.3.1)
RESERVED_BEFORE = (0, 5, 5)  # 0.5.5 casts the logits to fp32 (not replayed here)
ASCENDING_SORT_FROM = (0, 3, 0)  # _apply_top_k_top_p with masked_fill_ (0.2.5: index_put)
ATTN_BUFFER_FROM = (0, 4, 1)  # `output = torch.empty_like(query)` in the prompt path
RANKS_FROM = (0, 4, 0)  # _get_ranks in _get_logprobs
RANKS_LONG_BEFORE = (0, 5, 0)  # (x > vals).long() until 0.5.0
# PyTorch's default cuBLAS workspace outside Hopper, ":4096:2:16:8" (pytorch/pytorch
# aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize: "sm90 ? 4096 * 8 * 1024 :
# 4096 * 1024 * 2 + 16 * 1024 * 8"), taken from the caching allocator (getNewWorkspace) at the
# first cuBLAS call, the profile run's first matmul, and kept; builds for CUDA below 12.2 only
# ("CUDA_VERSION < 12200"), as the cu121 torch wheels these vLLM releases pin
CUBLAS_WORKSPACE = 4096 * 1024 * 2 + 16 * 1024 * 8
HOLD_BEFORE = (0, 2, 6)  # TORCH_NCCL_AVOID_RECORD_STREAMS=1 from 0.2.6
# config.json model_type of the decoders replayed: LlamaForCausalLM's layers (Mistral and Qwen2
# share them in these releases: gate_up_proj + SiluAndMul + down_proj, qkv_proj + o_proj)
GATED_MLP_TYPES = frozenset({"llama", "mistral", "qwen2"})


class CachingAllocator:
    """The large pool of PyTorch's CUDA caching allocator, one stream."""

    def __init__(self) -> None:
        self.segments: list[list[list[int]]] = []  # per segment: [offset, size, free] blocks
        self.reserved = 0
        self.allocated = 0
        self.peak_allocated = 0
        self.live: dict[str, tuple[int, int]] = {}  # name -> (segment, offset)
        self.forward_reserved = 0  # reserved when the forward pass ends (set by replay)

    @staticmethod
    def round_size(n: int) -> int:
        return max(MIN_BLOCK, ceil_div(n, MIN_BLOCK) * MIN_BLOCK)

    @staticmethod
    def segment_size(n: int) -> int:
        return LARGE_BUFFER if n < MIN_LARGE_ALLOC else ceil_div(n, ROUND_LARGE) * ROUND_LARGE

    def malloc(self, name: str, nbytes: int) -> None:
        n = self.round_size(nbytes)
        if n <= SMALL_SIZE:
            return  # the small pool is not replayed
        fits = [(b[1], si, b[0]) for si, seg in enumerate(self.segments) for b in seg
                if b[2] and b[1] >= n]
        if fits:
            _, si, off = min(fits)
        else:
            self.segments.append([[0, self.segment_size(n), 1]])
            self.reserved += self.segments[-1][0][1]
            si, off = len(self.segments) - 1, 0
        seg = self.segments[si]
        i = next(k for k, b in enumerate(seg) if b[0] == off)
        block = seg[i]
        if block[1] - n > SMALL_SIZE:  # should_split (large pool)
            seg.insert(i + 1, [off + n, block[1] - n, 1])
            block[1] = n
        block[2] = 0
        self.allocated += block[1]
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        self.live[name] = (si, off)

    def free(self, name: str) -> None:
        where = self.live.pop(name, None)
        if where is None:
            return
        si, off = where
        seg = self.segments[si]
        i = next(k for k, b in enumerate(seg) if b[0] == off)
        seg[i][2] = 1
        self.allocated -= seg[i][1]
        if i + 1 < len(seg) and seg[i + 1][2]:  # merge with the next free block
            seg[i][1] += seg.pop(i + 1)[1]
        if i > 0 and seg[i - 1][2]:  # and the previous one
            seg[i - 1][1] += seg.pop(i)[1]


@dataclass(frozen=True)
class ReservedPeak:
    """The replayed profile run: reserved at the end (best) and the allocated peak."""

    reserved: int
    allocated_peak: int
    masked_low: int  # 0.2.5: reserved with no logit masked by top-p (the low end)
    peak: Interval
    formula: str


def early_activation(version: str | None, v1: bool, model: ModelSpec, tp: int, tokens: int,
                     rows: int, quantized: bool) -> ReservedPeak | None:
    """The reserved-memory activation term where it applies (vLLM V0 0.2.5-0.5.4, a dense
    gated-MLP decoder), else None (the allocated-peak model of kvplan.engines.activation)."""
    if not applies(version, v1, model):
        return None
    return reserved_peak(model, tp, tokens, rows, version, quantized)


def applies(version: str | None, v1: bool, model: ModelSpec) -> bool:
    """Whether this replay models the release and the model: V0 0.2.5-0.5.4, a dense decoder
    with a gated MLP and per-head attention (no MoE, MLA, linear attention or vision tower)."""
    ver = parse_version(version) or ()
    att = model.attention
    return (not v1 and bool(ver) and RESERVED_FROM <= ver < RESERVED_BEFORE
            and model.moe is None and att.mla is None and att.linear is None
            and bool(model.intermediate_size) and model.model_type in GATED_MLP_TYPES
            and model.vision_hidden_size is None and model.mm_tokens_per_item is None)


def _forward(a: CachingAllocator, model: ModelSpec, tp: int, tokens: int, attn_buffer: bool,
             hold: bool) -> None:
    h = tokens * model.hidden_size * ACT_BYTES
    att = model.attention
    q = tokens * ceil_div(model.num_attention_heads, tp) * att.head_dim * ACT_BYTES
    kv = tokens * kv_heads_per_gpu(att.num_kv_heads, tp) * att.head_dim * ACT_BYTES
    inter = tokens * ceil_div(model.intermediate_size or 0, tp) * ACT_BYTES
    a.malloc("cublas workspace", CUBLAS_WORKSPACE)
    a.malloc("residual", h)  # the embedding output (reduced in place), then the residual
    a.malloc("hidden", h)  # the first layer's RMSNorm output
    for layer in range(model.num_layers):
        a.malloc("qkv", q + 2 * kv)
        if attn_buffer:
            a.malloc("attn out", q)
            a.malloc("xformers out", q)
            a.free("xformers out")  # copied into `output`
        else:
            a.malloc("attn out", q)  # xFormers' output, viewed
        a.malloc("o_proj", h)
        a.free("qkv")
        a.free("attn out")
        a.free("hidden")
        a.malloc("gate_up", 2 * inter)
        a.malloc("act", inter)
        a.malloc("down", h)
        a.free("gate_up")
        a.free("act")
        if hold:  # all-reduce inputs kept by record_stream (vLLM 0.2.5, TP)
            a.live[f"held o_proj {layer}"] = a.live.pop("o_proj")
            a.live[f"held down {layer}"] = a.live.pop("down")  # also the next input
        else:
            a.free("o_proj")
            a.live["hidden"] = a.live.pop("down")


def _sort(a: CachingAllocator, n: int, key: int, name: str) -> None:
    """logits.sort(dim=-1) on n elements of `key` bytes: values, int64 indices, and inside
    PyTorch's segmented sort the reverse indices and cub's third keys/values buffers."""
    a.malloc(f"{name} values", n * key)
    a.malloc(f"{name} indices", n * 8)
    a.malloc("reverse indices", n * 8)
    a.malloc("cub temp", n * (key + 8))
    a.free("cub temp")
    a.free("reverse indices")


def _sampler(a: CachingAllocator, model: ModelSpec, tp: int, rows: int, ver: tuple[int, ...],
             masked: int) -> None:
    n = rows * model.vocab_size
    a.malloc("pruned", rows * model.hidden_size * ACT_BYTES)
    part = ceil_div(n, tp) * ACT_BYTES
    if tp > 1 and ver < ASCENDING_SORT_FROM:  # 0.2.5 all-gathers the logits on every rank
        a.malloc("partial logits", part)
        a.malloc("gathered", part * tp)  # torch.empty((world_size,) + size)
        a.malloc("logits", n * ACT_BYTES)  # movedim + reshape: a copy
        a.free("gathered")
        a.free("partial logits")
    elif tp > 1:  # from 0.3.0 gathered on rank 0, the driver, which samples
        a.malloc("partial logits", part)
        for r in range(tp):  # gather_list: torch.empty_like(input_) per rank
            a.malloc(f"gathered {r}", part)
        a.malloc("logits", n * ACT_BYTES)  # torch.cat(gather_list)
        for r in range(tp):
            a.free(f"gathered {r}")
        a.free("partial logits")
    else:
        a.malloc("logits", n * ACT_BYTES)
    a.free("pruned")
    temps = ["sort values", "sort indices", "probs sort", "probs sum", "mask k", "mask p"]
    _sort(a, n, ACT_BYTES, "sort")
    if ver >= ASCENDING_SORT_FROM:  # 0.3.0-0.5.4 _apply_top_k_top_p
        a.malloc("mask k", n)
        a.malloc("probs sort", n * ACT_BYTES)
        a.malloc("probs sum", n * ACT_BYTES)
        a.malloc("mask p", n)
        a.malloc("inverse", n * 8)
        temps.append("inverse")
    else:  # 0.2.5 _apply_top_p_top_k
        a.malloc("probs sort", n * ACT_BYTES)
        a.malloc("probs sum", n * ACT_BYTES)
        a.malloc("difference", n * ACT_BYTES)
        a.malloc("mask p", n)
        a.free("difference")
        a.malloc("nonzero", masked * 16)  # logits_sort[top_p_mask] = -inf
        a.free("nonzero")
        a.malloc("mask k", n)
        _sort(a, n, 8, "argsort")  # torch.argsort(logits_idx)
        a.free("argsort values")
        temps.append("argsort indices")
    a.malloc("new logits", n * ACT_BYTES)
    for t in temps:
        a.free(t)
    a.malloc("probs", n * 4)
    a.malloc("logprobs", n * 4)
    a.malloc("probs rows", n * 4)  # _multinomial: probs[sample_indices], exponential noise
    a.malloc("noise", n * 4)
    a.free("noise")
    a.free("probs rows")
    if ver >= RANKS_FROM:  # _get_ranks(logprobs[...], ...)
        a.malloc("logprob rows", n * 4)
        a.malloc("greater", n)
        if ver < RANKS_LONG_BEFORE:
            a.malloc("as long", n * 8)


def replay(model: ModelSpec, tp: int, tokens: int, rows: int, version: str | None,
           masked: int | None = None, hold: bool | None = None) -> CachingAllocator:
    """The allocator after vLLM's profile run (`masked`: logits 0.2.5's top-p masks, default
    all of them; `hold`: 0.2.5's all-reduce inputs kept, default with tensor parallelism)."""
    ver = parse_version(version) or ()
    if hold is None:
        hold = tp > 1 and ver < HOLD_BEFORE
    a = CachingAllocator()
    _forward(a, model, tp, tokens, ver >= ATTN_BUFFER_FROM, hold)
    a.forward_reserved = a.reserved
    n = rows * model.vocab_size
    _sampler(a, model, tp, rows, ver, n if masked is None else masked)
    return a


def reserved_peak(model: ModelSpec, tp: int, tokens: int, rows: int,
                  version: str | None, quantized: bool = False) -> ReservedPeak:
    """The profiled activation term of vLLM 0.2.5-0.5.4 (see the module docstring)."""
    ver = parse_version(version) or ()
    full = replay(model, tp, tokens, rows, version)
    low_masked = full.reserved
    least = full
    if ver < ASCENDING_SORT_FROM:  # 0.2.5: no logit masked, no all-reduce input held
        low_masked = replay(model, tp, tokens, rows, version, masked=0).reserved
        least = replay(model, tp, tokens, rows, version, masked=0, hold=False)
    best = full.reserved
    low = min(least.peak_allocated, low_masked)
    high = best + COMPILE_SLACK + (2 * 1024 * MIB if quantized else 0)
    spans = {"the allocator's reserve over the allocated peak": least.reserved - low,
             "workspaces not replayed (high end)": high - best,
             "0.2.5's top-p mask count (nonzero indices)": best - low_masked,
             "record_stream's held all-reduce inputs": low_masked - least.reserved}
    top = max(spans, key=lambda k: spans[k])
    formula = (f"torch's caching allocator, reserved after the profile run (vLLM "
               f"{'.'.join(map(str, ver))} books it): forward {tokens:,} tokens "
               f"{full.forward_reserved:,} B + sampler {rows:,} rows x vocab "
               f"{model.vocab_size:,} (16-bit logits) {best - full.forward_reserved:,} B in "
               f"{len(full.segments)} segments; allocated peak {full.peak_allocated:,} B"
               + (f"; {2 * model.num_layers} all-reduce inputs held by record_stream (vLLM "
                  "0.2.5)" if tp > 1 and ver < HOLD_BEFORE else "")
               + f"; range dominated by {top}")
    return ReservedPeak(best, full.peak_allocated, low_masked, Interval(best, low, high),
                        formula)


__all__ = ["CachingAllocator", "ReservedPeak", "applies", "early_activation", "replay", "reserved_peak"]
