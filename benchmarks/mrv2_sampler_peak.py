"""Live-byte peaks of vLLM Model Runner V2's profiling sampler passes, measured on CPU.

Issue #13 (docs/engines-findings.md, "Model Runner V2's profiled activation"). Each pass below repeats
the Python-level tensor allocations of the vLLM / FlashInfer code read in the released wheels
(cited per function); Triton / CUDA kernels that work in place are left out, and a kernel
wrapper's own output allocation is kept. A TorchDispatchMode counts every storage an op returns
until its last tensor is freed, so the peak is what a caching allocator's "allocated" peak sees.

    PYTHONPATH=. .venv/bin/python benchmarks/mrv2_sampler_peak.py [ROWS VOCAB]

At 256 x 152,064 (2026-12-04): 0.25 default 6.01 B a logit, 0.28 default 2.01, early runner
(0.16/0.17) 6.01, 0.33 warm-up with FlashInfer 14.00, 0.33 warm-up with Triton (132 SMs) 8.07.
(vLLM's own `apply_top_k_top_p_pytorch` from the 0.33.0 wheel, run the same way ad hoc: 24.00;
it runs only where Triton is missing.)
"""

from __future__ import annotations

import math
import sys
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

BF16 = torch.bfloat16
GUMBEL_BLOCK = 1024  # gpu/sample/gumbel.py gumbel_sample: BLOCK_SIZE = 1024


class LiveBytes(TorchDispatchMode):
    """Peak bytes of the storages ops return while the mode is on (inputs not counted)."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, list[int]] = {}  # storage pointer -> [bytes, tensors alive]
        self.seen: set[int] = set()
        self.current = 0
        self.peak = 0

    def _drop(self, key: int, oid: int) -> None:
        self.seen.discard(oid)
        entry = self.live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self.live[key]

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor) or id(t) in self.seen:
                continue
            storage = t.untyped_storage()
            key, size = storage.data_ptr(), storage.nbytes()
            if size == 0:
                continue
            if key not in self.live:
                self.live[key] = [size, 0]
                self.current += size
                self.peak = max(self.peak, self.current)
            self.live[key][1] += 1
            self.seen.add(id(t))
            weakref.finalize(t, self._drop, key, id(t))
        return out


def peak_bytes(fn: Callable[[], object]) -> int:
    """The live-byte peak of one call of `fn` (everything it returns freed after)."""
    mode = LiveBytes()
    with mode:
        out = fn()
        del out
    return mode.peak


def _logits(rows: int, vocab: int) -> torch.Tensor:
    return torch.zeros(rows, vocab, dtype=BF16)  # compute_logits: [rows, vocab] in bf16


def _gumbel(logits: torch.Tensor) -> torch.Tensor:
    # gumbel.py gumbel_sample: per-block argmax (int64) and max (fp32), then a gather
    rows, vocab = logits.shape
    blocks = math.ceil(vocab / GUMBEL_BLOCK)
    local_argmax = logits.new_zeros(rows, blocks, dtype=torch.int64)
    local_max = logits.new_zeros(rows, blocks, dtype=torch.float32)
    best = local_max.argmax(dim=-1, keepdim=True)
    return local_argmax.gather(dim=-1, index=best).view(-1)


def _fp32_copy(logits: torch.Tensor) -> torch.Tensor:
    # sampler.py apply_sampling_params: "Copy logits to a new FP32 tensor."
    return torch.empty_like(logits, dtype=torch.float32).copy_(logits)


def v025_default(rows: int, vocab: int) -> object:
    """0.25.0: the fp32 copy always; idle rows are greedy, no top-k/top-p, no logprobs."""
    logits = _logits(rows, vocab)
    return _gumbel(_fp32_copy(logits))


def v028_default(rows: int, vocab: int) -> object:
    """0.28.0: no dummy row needs processing, so the bf16 logits go to the sampler untouched.

    The same pass from 0.26.0 to 0.34.0 (task h36samp: 0.26.0 works in place, 0.27 on return
    early; kvplan.engines.activation.UNTOUCHED_SAMPLER_BYTES_PER_LOGIT)."""
    return _gumbel(_logits(rows, vocab))


def early_runner(rows: int, vocab: int) -> object:
    """0.16/0.17 (sample/metadata.py make_dummy): fp32 copy, in-place temperature, 20 logprobs."""
    logits = _logits(rows, vocab)
    sampled = _gumbel(_fp32_copy(logits))
    topk = torch.topk(logits, 20, dim=-1).indices  # logprob.py compute_topk_logprobs
    ids = torch.cat((sampled.unsqueeze(-1), topk), dim=1)
    logprobs = torch.empty(rows, ids.shape[1], dtype=torch.float32)  # Triton, top-k + 1 only
    return sampled, logprobs


def v033_warmup_flashinfer(rows: int, vocab: int) -> object:
    """0.33.0's second pass with FlashInfer 0.7.2.post1 (top-k a tensor: the top_k_first path)."""
    logits = _logits(rows, vocab)
    processed = _fp32_copy(logits)  # penalties, bias, bad words, temperature, min-p in place
    masked = torch.empty_like(processed)  # top_k_mask_logits: mask_logits = empty_like(logits)
    masked.copy_(processed)  # (written by the CUDA kernel)
    probs = torch.softmax(masked, dim=-1)
    samples = torch.empty(rows, dtype=torch.int32)  # top_p_sampling_from_probs outputs
    valid = torch.empty(rows, dtype=torch.bool)
    del masked, probs, valid
    topk = torch.topk(logits, 5, dim=-1).indices  # compute_topk_scores on the raw logits
    return samples.to(torch.int64), processed, topk


def v033_warmup_triton(rows: int, vocab: int, sms: int = 132) -> object:
    """0.33.0's second pass without FlashInfer: apply_top_k_top_p_triton masks in place."""
    logits = _logits(rows, vocab)
    processed = _fp32_copy(logits)
    size = min(1 << (min(sms, rows) - 1).bit_length(), sms)
    buffer = processed.new_empty((size, vocab))  # _TRITON_BUFFER_CACHE, kept between calls
    return _gumbel(processed), buffer


PASSES: dict[str, Callable[[int, int], object]] = {
    "0.25 default (lean)": v025_default,
    "0.28 default (lean)": v028_default,
    "early runner, 0.16/0.17": early_runner,
    "0.33 warm-up, FlashInfer": v033_warmup_flashinfer,
    "0.33 warm-up, Triton, 132 SMs": v033_warmup_triton,
}


def main(argv: list[str]) -> None:
    rows, vocab = (int(argv[0]), int(argv[1])) if len(argv) == 2 else (256, 152_064)
    for name, fn in PASSES.items():
        peak = peak_bytes(lambda fn=fn: fn(rows, vocab))
        print(f"{name:32s} {peak:>13,} B  {peak / (rows * vocab):6.2f} B a logit")


if __name__ == "__main__":
    main(sys.argv[1:])
