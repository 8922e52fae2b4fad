"""The conversation-size lattice as kvplan built it before numpy: one block count at a time."""

from __future__ import annotations

from kvplan.capacity.kv import Allocation, Precision, sequence_bytes, sequences_bytes, stage_caches
from kvplan.capacity.plan import SizeRequest
from kvplan.traffic.lengths import LengthDistribution
from kvplan.traffic.plan import heaviest_stage

from .risk import SequenceLattice


def sequence_lattice(req: SizeRequest, lengths: LengthDistribution) -> SequenceLattice:
    stage = heaviest_stage(stage_caches(req.model, Precision(req.kv_dtype, req.kv_group_size),
                                        req.tp, req.pp))
    b = req.block_size_tokens
    shared = 0
    if req.allocation is Allocation.paged and req.shared_prefix_tokens:
        shared = req.shared_prefix_tokens // b * b
    if req.allocation is Allocation.reserved:
        seq = sequence_bytes(stage, req.model, req.context_tokens, Allocation.reserved, b)
        return SequenceLattice.from_bytes({seq: 1.0})
    pmf = lengths.block_pmf(b, req.context_tokens)
    tokens = [max(min(k * b, req.context_tokens), shared) for k in pmf]
    probs: dict[int, float] = {}
    for seq, p in zip(sequences_bytes(stage, req.model, tokens, Allocation.paged, b, shared),
                      pmf.values(), strict=True):
        probs[seq] = probs.get(seq, 0.0) + p
    return SequenceLattice.from_bytes(probs)
