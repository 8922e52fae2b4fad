"""vLLM 0.2.5-0.5.4 (kvplan.engines.vllm_v0_reserved): the profile run's activation term is what
torch's caching allocator reserved, replayed from the tensors each release's source allocates.
Expected values are worked by hand from those rules (the module docstring cites them)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_v0_reserved import (
    CUBLAS_WORKSPACE,
    CachingAllocator,
    applies,
    early_activation,
    replay,
)
from kvplan.specs import load_hardware, load_model
from kvplan.units import MIB

# Llama-3-8B, vLLM 0.4.1 defaults at max_model_len 8,192: 8,192 batched tokens, 256 sequences.
#   hidden 8,192 x 4,096 x 2 B = 64 MiB; qkv 8,192 x (32 + 2 x 8) x 128 x 2 B = 96 MiB;
#   gate_up 8,192 x 2 x 14,336 x 2 B = 448 MiB; SiluAndMul output 224 MiB.
# Forward segments (steady from the first layer on): the cuBLAS workspace (8,519,680 B in a
#   20 MiB segment), residual 64, first RMSNorm output 64, qkv 96, attention buffer 64, xFormers
#   output 64 (freed once copied, then o_proj's), gate_up 448, act 224 (down_proj reuses the
#   freed RMSNorm block): 20 + 4 x 64 + 96 + 448 + 224 = 1,044 MiB = 1,094,713,344 B.
# Sampler, 256 x 128,256 = 32,833,536 logits: the bf16 logits (62.625 MiB) and the sorted values
#   take the two free 64 MiB blocks, the int64 indices (250.5 MiB) the 448 MiB block; the
#   sort's reverse indices (250.5 MiB) fit nowhere: a 252 MiB segment; cub's third keys and
#   values (2 + 8 B a logit, 313.125 MiB) a 314 MiB segment. Everything after fits in freed
#   blocks. Reserved: 1,044 + 252 + 314 = 1,610 MiB = 1,688,207,360 B.
FORWARD_RESERVED = 1_094_713_344
RESERVED_041 = 1_688_207_360


def _llama3(version: str, gpu: str = "rtx-3090", tp: int = 1, model: str = "llama-3-8b"):
    req = SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=8192, tp=tp)
    return run_engine(req, EngineSettings(engine=Engine.vllm, version=version))


def test_the_041_profile_run_reserves_by_hand():
    a = replay(load_model("llama-3-8b"), 1, 8192, 256, "0.4.1")
    assert a.forward_reserved == FORWARD_RESERVED == 1044 * MIB
    assert a.reserved == RESERVED_041 == (1044 + 252 + 314) * MIB
    sizes = sorted(sum(b[1] for b in seg) // MIB for seg in a.segments)
    assert sizes == [20, 64, 64, 64, 64, 96, 224, 252, 314, 448]


def test_log_144_pool_in_bytes():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 4,972,797,952 -> 4,970,700,800, 2,371 -> 2,370
    # RTX 3090 25,327,697,920 B x 0.9 = 22,794,928,128; weights 8,030,261,248 x 2 B =
    # 16,060,522,496; non-torch growth (0.3.1-0.6.3: init free - free) 70 MiB = 73,400,320.
    # KV = 22,794,928,128 - 16,060,522,496 - 1,688,207,360 - 73,400,320 = 4,972,797,952 B
    # blocks = 4,972,797,952 // (16 x 32 x 8 x 256 x 2 B = 2,097,152) = 2,371 (log 144: 2,358)
    r = _llama3("0.4.1")
    assert r.activation_bytes == RESERVED_041
    assert r.kv_cache_bytes == 4_970_700_800
    assert r.blocks == 2370
    assert r.log_lines == ("# GPU blocks: 2370",)


def test_explain_shows_the_reserved_term():
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 2,371 -> 2,370
    res = CliRunner().invoke(app, ["explain", "llama-3-8b", "--gpu", "rtx-3090", "--engine",
                                   "vllm", "--engine-version", "0.4.1", "--context", "8192",
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = {s["label"]: s for s in row["steps"]}
    assert steps["activation peak"]["value"] == RESERVED_041
    formula = steps["activation peak"]["formula"]
    assert "reserved after the profile run" in formula
    assert f"forward 8,192 tokens {FORWARD_RESERVED:,} B" in formula
    assert "range dominated by the allocator's reserve over the allocated peak" in formula
    assert steps["GPU blocks"]["value"] == 2370


@pytest.mark.parametrize(("version", "v1", "replayed"), [
    ("0.2.4", False, False),  # torch.cuda.max_memory_allocated: the allocated peak
    ("0.2.5", False, True), ("0.3.0", False, True), ("0.4.1", False, True),
    ("0.5.4", False, True),
    ("0.5.5", False, False),  # the fp32 logits cast: not replayed
    ("0.6.3", False, False), ("0.8.5-v0", False, False), ("0.10.2", True, False),
])
def test_which_releases_are_replayed(version: str, v1: bool, replayed: bool):
    assert applies(version, v1, load_model("llama-3-8b")) is replayed


def test_models_outside_the_replay_keep_the_allocated_peak_model():
    assert not applies("0.4.1", False, load_model("qwen3-30b-a3b"))  # MoE
    assert not applies("0.4.1", False, load_model("deepseek-v2-lite"))  # MLA
    assert early_activation("0.4.1", False, load_model("qwen3-30b-a3b"), 1, 8192, 256,
                            False) is None
    # 0.5.5 books what 0.5.4 would have with the fitted 40 B sampler (1.22 GiB)
    assert _llama3("0.5.5").activation_bytes == 1_313_341_440


def test_release_boundaries_inside_the_replay():
    m = load_model("llama-3-8b")
    n = 256 * 128_256
    # 0.4.0.post1 views xFormers' output; 0.4.1 allocates `output` first and copies into it, but
    # xFormers' output is freed before o_proj's output takes a block: no segment more, 64 MiB
    # more allocated at the attention (below the MLP's peak)
    a40, a41 = replay(m, 1, 8192, 256, "0.4.0"), replay(m, 1, 8192, 256, "0.4.1")
    assert a41.forward_reserved == a40.forward_reserved == FORWARD_RESERVED
    # _get_ranks casts the comparison to int64 in 0.4.x, not from 0.5.0
    a4, a5 = replay(m, 1, 8192, 256, "0.4.1"), replay(m, 1, 8192, 256, "0.5.0")
    assert a4.peak_allocated - a5.peak_allocated == 0  # the sort stays the peak
    assert "as long" in a4.live and "as long" not in a5.live
    # 0.3.x has no _get_ranks at all
    assert "greater" not in replay(m, 1, 8192, 256, "0.3.0").live
    # 0.2.5 masks by boolean indexing: the low end has no logit masked (16 B a masked logit)
    full = replay(m, 1, 8192, 256, "0.2.5")
    none = replay(m, 1, 8192, 256, "0.2.5", masked=0)
    assert full.reserved > none.reserved
    # all 32,833,536 logits masked: 525,336,576 B (501 MiB) of indices, a 502 MiB segment size
    assert CachingAllocator.segment_size(n * 16) == 502 * MIB


def test_the_025_hold_costs_more_than_its_bytes_under_best_fit():
    # With TP the held o_proj/down outputs (64 MiB at Llama-2-70B TP 4, 4,096 tokens) split the
    # 112 MiB gate_up block the next layer frees, so gate_up takes a fresh segment each layer.
    m = load_model("llama-2-70b")
    held = replay(m, 4, 4096, 256, "0.2.5")
    free = replay(m, 4, 4096, 256, "0.2.5", hold=False)
    assert held.reserved - free.reserved > 160 * 64 * MIB
    assert replay(m, 4, 4096, 256, "0.2.6").reserved == replay(
        m, 4, 4096, 256, "0.2.6", hold=False).reserved


def test_allocator_rules():
    a = CachingAllocator()
    a.malloc("tiny", MIB)  # the small pool is not replayed
    assert a.reserved == 0
    a.malloc("ws", CUBLAS_WORKSPACE)  # under 10 MiB: a 20 MiB segment, split
    assert a.reserved == 20 * MIB and [b[1] for b in a.segments[0]] == [
        CUBLAS_WORKSPACE, 20 * MIB - CUBLAS_WORKSPACE]
    a.malloc("big", 100 * MIB + 1)  # rounded up to 2 MiB: 102 MiB, 1.9999 MiB left: split
    assert a.reserved == 122 * MIB and len(a.segments[1]) == 2
    a.free("big")
    assert [b[1] for b in a.segments[1]] == [102 * MIB]  # merged back
    a.malloc("c", 101 * MIB)  # 1 MiB would remain: not split (kSmallSize)
    assert [b[1] for b in a.segments[1]] == [102 * MIB] and a.allocated == (
        CUBLAS_WORKSPACE + 102 * MIB)
    a.malloc("d", 5 * MIB)  # best fit: the workspace segment's 11.875 MiB remainder
    assert a.reserved == 122 * MIB
