"""TensorRT-LLM's C++ executor: the runtime buffers and decoder allocated before the KV pool.

On the TensorRT-engine path the in-flight batcher's constructor (TrtGptModelInflightBatching,
cpp/tensorrt_llm/batch_manager/trtGptModelInflightBatching.cpp at
arthurrasmusson/TensorRT-LLM@2730076db20bb24c0647912c5667ebbfbb2c8ae7, 0.11/0.12-era, and the
stored copies after it) runs createRuntimeContexts, then createBuffers ("[MemUsageChange]
Allocated X GPU memory for runtime buffers"), then createDecoder ("... for decoder"), and only
then createKvCacheManager, which sizes the pool from the memory left. Both buffers are sized by
the engine's limits, not by traffic (S = max_seq_len, the max attention window; B =
max_batch_size; beam 1; V = vocab padded to the world size, ModelConfig::getVocabSizePadded:
ceil(vocab / (tp x pp)) x (tp x pp), as the stored model configs define it):

- runtime buffers (runtimeBuffers.cpp / transformerBuffers.cpp / decoderBuffers.cpp at 2730076):
  `logits` [B, V] in the engine's logits type, and the cache indirections (RuntimeBuffers'
  `cache_indirection` and DecoderBuffers' input and output), three int32 [B, beam, S]:
  B x V x L + 3 x B x S x 4.
- decoder (GptDecoderBatched::setup, the 0.12-era signature as stored): `ids`, `parentIds`,
  `logProbs` [B, beam, S] and `logProbsTiled` [S, B, beam], 4 B each: B x S x 16; then the
  sampling layers' top-p workspace, B x V x (sizeof(T) + 4 + 4), T the decoder's type, which is
  the logits type (cpp/tensorrt_llm/kernels/samplingTopPKernels.cu getTopPWorkspaceSizes at
  NVIDIA/TensorRT-LLM@14e801da3632eb71367b847e335c4f2b09098651).
- the logits type: trtllm-build's PretrainedConfig(logits_dtype='float32') unless the
  checkpoint states another (tensorrt_llm/models/modeling_utils.py, stored code index id
  1189552800), so L = T = 4 B at best.

Range: low = a 16-bit logits type (2 B in the logits and in the top-p values); high = best plus
two allocations a later decoder makes or asks for: the decoding layers' shared workspace keeps a
[B, V] copy of the logits in their type (runtime/decodingLayerWorkspace.cpp, mRuntimeLogitsDevice,
at NVIDIA/TensorRT-LLM@1a43c7d62d008ca9d1efdfd50f9180390598d314), and CUB's
DeviceSegmentedRadixSort::SortPairsDescending, called without a DoubleBuffer, holds an alternate
copy of the keys and values (B x V x (4 + 4); TensorRT-LLM asks CUB for the size at run time).
Which sampling layers 0.11-0.19 build, and so which workspace is the largest, was not placed by
release, hence the range. Read in the source, not fitted; checked against the printed lines
(docs/engines-findings.md, "TensorRT-LLM's runtime buffers and decoder"): log 251 (0.16.0, B 2,048, V
128,256, S 25,000) prints 1.63 + 3.30 GiB, best 1.55 + 3.70; log 152 (0.13.0, B 8) 18.49 MiB,
best 17.4 MiB; log 96 (0.12, a guide's sample whose figures disagree with each other) 5.49 GiB,
best 2.39 GiB, above the high end.

The releases: the lines are the in-flight batcher's (0.12 on in the calibration logs; the 0.8 logs
143 and 145 print none, and 0.8's GptSession sizes its decoder by the run's batch), and the
batch manager's source is not in the stored index before the 0.11/0.12-era copy read above, so
the term is booked on the TensorRT-engine path from 0.11 (`BUFFERS_FROM`, the release whose
build defaults kvplan takes for it; trtllm-build 0.8-0.10 defaulted to max_batch_size 1, where the
term is a few MB); not on the PyTorch backend, whose sampler is torch code profiled with the model
(kvplan/engines/trtllm_pytorch.py). max_batch_size unstated: trtllm-build's default of the
release (256 from 0.11, 2,048 from 0.14: docs/source/release-notes.md at NVIDIA/TensorRT-LLM@001eaec).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.interface import Interval
from kvplan.units import ceil_div

BUFFERS_FROM = (0, 11)
# trtllm-build's default max_batch_size (release notes, 0.11.0 and 0.14.0), by first release.
DEFAULT_MAX_BATCH_SIZE = (((0, 14), 2048), ((0, 11), 256))
LOGITS_BYTES = 4  # PretrainedConfig logits_dtype 'float32'
LOGITS_BYTES_LOW = 2  # a 16-bit logits_dtype
CACHE_INDIRECTIONS = 3  # RuntimeBuffers' and DecoderBuffers' input and output, int32
DECODER_OUTPUT_BYTES = 16  # ids, parentIds, logProbs, logProbsTiled: 4 B a slot and position
TOP_P_EXTRA_BYTES = 4 + 4  # getTopPWorkspaceSizes: int32 ids in and out beside the T values
CUB_ALTERNATE_BYTES = 4 + 4  # SortPairsDescending's alternate keys and values (high end only)
WORKSPACE_LOGITS_BYTES = 4  # DecodingLayerWorkspace's fp32 [B, V] logits copy (high end only)


@dataclass(frozen=True)
class Buffers:
    """The C++ executor's runtime buffers and decoder (bytes), and the limits they use."""

    runtime: Interval
    decoder: Interval
    slots: int
    slots_stated: bool
    vocab_padded: int
    seq_len: int

    @property
    def total(self) -> Interval:
        return Interval(self.runtime.best + self.decoder.best, self.runtime.low + self.decoder.low,
                        self.runtime.high + self.decoder.high)

    def how(self) -> str:
        src = "" if self.slots_stated else " (trtllm-build default)"
        return (f"max_batch_size {self.slots:,}{src} x (vocab {self.vocab_padded:,} x (4 B fp32 "
                f"logits + 12 B top-p workspace) + max_seq_len {self.seq_len:,} x (3 x 4 B "
                "cache indirections + 16 B decoder outputs))")


def default_max_batch_size(ver: tuple[int, ...]) -> int | None:
    """trtllm-build's default max_batch_size for a release (None: before 0.11, not booked)."""
    for first, slots in DEFAULT_MAX_BATCH_SIZE:
        if ver >= first:
            return slots
    return None


def vocab_padded(vocab: int, world: int) -> int:
    """ModelConfig::getVocabSizePadded: the vocabulary rounded up to a multiple of the world size
    (tp x pp)."""
    return ceil_div(vocab, world) * world


def executor_buffers(ver: tuple[int, ...], pytorch: bool, vocab: int, world: int,
                     max_batch_size: int | None, max_seq_len: int) -> Buffers | None:
    """The runtime buffers and decoder the C++ executor allocates before the pool (None where
    the term is not booked: the PyTorch backend, or an engine release before 0.11)."""
    if pytorch or ver < BUFFERS_FROM:
        return None
    slots = max_batch_size or default_max_batch_size(ver)
    if slots is None:
        return None
    v = vocab_padded(vocab, world)
    per_slot_window = max_seq_len * CACHE_INDIRECTIONS * 4
    runtime = Interval(slots * (v * LOGITS_BYTES + per_slot_window),
                       slots * (v * LOGITS_BYTES_LOW + per_slot_window),
                       slots * (v * LOGITS_BYTES + per_slot_window))
    outputs = slots * max_seq_len * DECODER_OUTPUT_BYTES
    top_p = slots * v * (LOGITS_BYTES + TOP_P_EXTRA_BYTES)
    decoder = Interval(outputs + top_p,
                       outputs + slots * v * (LOGITS_BYTES_LOW + TOP_P_EXTRA_BYTES),
                       outputs + top_p + slots * v * (WORKSPACE_LOGITS_BYTES + CUB_ALTERNATE_BYTES))
    return Buffers(runtime, decoder, slots, max_batch_size is not None, v, max_seq_len)
