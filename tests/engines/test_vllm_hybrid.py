"""vLLM V1's hybrid attention / linear-attention accounting (kvplan.engines.vllm_hybrid), with
the arithmetic of vLLM's own formulas done by hand for Qwen3-Next-80B-A3B.

Qwen3-Next: 48 layers, every 4th full attention (12), the rest Gated DeltaNet (36); attention
2 KV heads of 256; the state per layer 548,864 elements (conv 3 x 8,192 + recurrent
32 x 128 x 128, both split over TP).
"""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, Measured, verify_steps, vllm
from kvplan.engines.common import LayerShape, layer_shape
from kvplan.engines.vllm import Groups, blocks_per_request, kv_groups
from kvplan.engines.vllm_hybrid import (
    hybrid_block_size,
    is_hybrid,
    kernel_alignment,
    padding_note,
    state_page_bytes,
    typed_groups,
)
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

NEXT = load_model("qwen3-next-80b-a3b")
H200 = load_hardware("h200")
B200 = load_hardware("b200")
LOG_132_KV = 47_878_721_024  # 44.59 GiB, the kv memory log 132 prints (--kv-cache-memory form)


def _req(tp: int = 2, gpu=H200, ctx: int = 262_144, **kw) -> SizeRequest:
    return SizeRequest(model=NEXT, gpu=gpu, context_tokens=ctx, tp=tp,
                       kv_dtype=kw.pop("kv_dtype", DType.bf16), **kw)


def _block(req: SizeRequest, version: str = "0.10.2") -> int:
    return hybrid_block_size(layer_shape(req).bytes_per_token_per_layer, state_page_bytes(req),
                             kernel_alignment(req, version), req.block_size_tokens)


def test_state_page_per_rank_in_the_model_dtype():
    # TP 2: conv (4 - 1) x 8,192 / 2 = 12,288 + recurrent 32 / 2 x 128 x 128 = 262,144
    # = 274,432 elements x 2 B = 548,864 B
    assert state_page_bytes(_req(tp=2)) == 548_864
    assert state_page_bytes(_req(tp=1)) == 1_097_728
    # an fp8 KV cache leaves the state in the model dtype (mamba_cache_dtype "auto")
    assert state_page_bytes(_req(tp=2, kv_dtype=DType.fp8)) == 548_864


def test_attention_block_raised_to_hold_the_state():
    # TP 2 bf16: 1 KV head x (256 + 256) x 2 B = 1,024 B a token;
    # 16 x ceil(548,864 / (16 x 1,024)) = 16 x ceil(33.5) = 544 (log 132: "Setting attention
    # block size to 544 tokens"); 544 x 1,024 = 557,056, the state padded by 1.49%
    assert _block(_req(tp=2)) == 544
    assert padding_note(544 * 1024, 548_864) == ("state page padded by 1.49% to the attention "
                                                 "page")
    # TP 1: 2 heads, 2,048 B a token, 1,097,728 B state: 16 x ceil(33.5) = 544 again
    assert _block(_req(tp=1)) == 544
    # TP 4: 1 head (replicated), 1,024 B; state 274,432 B: 16 x ceil(16.75) = 272
    assert _block(_req(tp=4)) == 272
    # fp8 KV at TP 2: 512 B a token, state unchanged: 16 x ceil(548,864 / 8,192 = 67) = 1,072
    assert _block(_req(tp=2, kv_dtype=DType.fp8)) == 1072
    # a --block-size at least as large is kept (the state padded up to it)
    assert hybrid_block_size(1024, 548_864, 16, 1024) == 1024
    assert hybrid_block_size(1024, 548_864, 16, 16) == 544


def test_blackwell_head_256_alignment_from_0_11_1():
    # FlashInfer on sm100 with head size 256: 32-token alignment (after v0.11.0)
    assert kernel_alignment(_req(tp=4, gpu=B200), "0.11.0") == 16
    assert kernel_alignment(_req(tp=4, gpu=B200), "0.11.1") == 32
    assert kernel_alignment(_req(tp=4, gpu=H200), "0.11.1") == 16
    # TP 4 on B200: 32 x ceil(274,432 / 32,768 = 8.375) = 288 (272 with 16)
    assert _block(_req(tp=4, gpu=B200), "0.11.0") == 272
    assert _block(_req(tp=4, gpu=B200), "0.12.0") == 288


def test_linear_layers_group_like_any_other_layer_type():
    # 12 full + 36 linear: group size 12 (36 >= 1.5 x 12): 1 full + 3 state groups
    assert typed_groups(12, 0, 36, wide=True) == (12, 1, 0, 3)
    shape = LayerShape(12, 0, 36, 1024, None)
    g = kv_groups(shape, v1=True)
    assert g == Groups(12, 1, 0, 3) and g.count == 4 and g.padding_layers == 48
    # 10 full + 12 linear: under 1.5 x, the larger count: 1 + 1 groups of 12 (2 padding)
    assert typed_groups(10, 0, 12, wide=True) == (12, 1, 0, 1)
    assert typed_groups(10, 0, 12, wide=False) == (10, 1, 0, 2)
    # V0 keeps its single group of the cached layers
    assert kv_groups(shape, v1=False) == Groups(12, 1, 0)
    assert not is_hybrid(_req(), v1=False) and is_hybrid(_req(), v1=True)


def test_a_request_needs_one_block_per_state_group():
    # ceil(262,144 / 544) = 482 attention blocks + 3 state blocks = 485
    shape, g = LayerShape(12, 0, 36, 1024, None), Groups(12, 1, 0, 3)
    assert blocks_per_request(shape, g, 262_144, 544, 8192, v1=True) == 482 + 3
    assert blocks_per_request(shape, g, 1, 544, 8192, v1=True) == 1 + 3


def test_log_132_from_its_kv_memory():
    # 44.59 GiB / (557,056 B x 12 layers a block) = 7,162 blocks; 7,162 // 4 groups = 1,790
    # x 544 = 973,760 tokens; 7,162 / 485 = 14.77x ("GPU KV cache size: 973,760 tokens",
    # "Maximum concurrency for 262,144 tokens per request: 14.77x")
    s = EngineSettings(engine=Engine.vllm, version="0.10.2",
                       measured=Measured(kv_cache_bytes=LOG_132_KV))
    r = vllm.profile(_req(), s)
    assert (r.block_size_tokens, r.blocks, r.kv_cache_tokens) == (544, 7162, 973_760)
    assert f"{float(r.max_concurrency):.2f}" == "14.77"
    assert verify_steps(r.steps) == []
    # users at the full length: 7,162 // 485 = 14
    assert r.size.users_per_replica == 14
    # users at an average of 8,192 tokens held: ceil(8,192 / 544) = 16 + 3 = 19 blocks each
    short = vllm.profile(_req(avg_context_tokens=8192), s)
    assert short.size.users_per_replica == 7162 // 19


def test_calibrate_checks_the_logged_block_of_log_132():
    from pathlib import Path

    from kvplan.calibrate.compare import calibrate_files

    logs = Path(__file__).parents[1] / "assets" / "logs"
    [rep] = calibrate_files([next(logs.glob("132-*.log"))])
    got = {(c.basis, c.quantity): c for c in rep.checks}
    block = got[("breakdown", "block size")]
    assert (block.logged, block.predicted, block.ok) == (544, 544, True)
    tokens = got[("breakdown", "KV tokens")]
    assert (tokens.logged, tokens.predicted, tokens.ok) == (973_760, 973_760, True)


def test_a_raised_block_size_is_said_not_silently_changed():
    s = EngineSettings(engine=Engine.vllm, version="0.10.2")
    raised = vllm.profile(_req(block_size_tokens=16), s).assumptions
    assert any("attention block 544 tokens, raised from 16 as vLLM raises it" in a for a in raised)
    kept = vllm.profile(_req(block_size_tokens=1024), s).assumptions
    assert any("attention block 1024 tokens)" in a for a in kept)
    assert not any("raised from" in a for a in kept)
