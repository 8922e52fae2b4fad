"""Quantized checkpoints' weight bytes against the checkpoint (issue #13 task h31fp8w), by hand.

Qwen/Qwen3-235B-A22B-FP8's config.json (tests/assets/hf_configs/qwen3-235b-a22b-fp8.json):
94 layers, hidden 4,096, 64 query heads and 4 KV heads of 128, 128 experts of 1,536, vocab
151,936, untied; quantization_config fp8 with weight_block_size [128, 128] (one float32
`weight_scale_inv` per 128 x 128 block) and modules_to_not_convert naming lm_head and every
layer's input_layernorm, post_attention_layernorm and mlp.gate (the router).

The checkpoint's bytes, from that config:
- embeddings + LM head, bf16: 2 x 151,936 x 4,096 x 2 B = 2,489,319,424 B;
- a layer's attention, fp8: (8,192 + 512 + 512) x 4,096 + 4,096 x 8,192 = 71,303,168 B, with
  (64 + 4 + 4) x 32 + 32 x 64 = 4,352 blocks of scales = 17,408 B;
- its experts, fp8: 128 x 3 x 4,096 x 1,536 = 2,415,919,104 B, with 128 x 3 x 12 x 32 = 147,456
  blocks = 589,824 B;
- its router, bf16: 128 x 4,096 x 2 B = 1,048,576 B; its norms, bf16: (2 x 4,096 + 2 x 128) x 2 B
  = 16,896 B;
- a layer 2,488,894,976 B, x 94 = 233,956,127,744 B, + the final norm 8,192 B + the embeddings:
  236,445,455,360 B (the checkpoint's index total_size was not found in the stored sources; this
  is the sum of its tensors as the config lays them out).

kvplan: the 1,244,659,712 embedding parameters in 2 B, the 94 x 4,096 x 128 = 49,283,072 router
parameters in 2 B on every TP rank, the other 233,799,691,776 in 1 B: 236,387,577,344 B at TP 1,
57,878,016 B under the checkpoint: the block scales (94 x (17,408 + 589,824) = 57,079,808 B) and
the norms' second byte (94 x 8,448 + 4,096 = 798,208 B), not modelled (0.02%). Before the router
was kept whole in 16 bits it was priced 1 B a parameter split over the ranks, 49,283,072 B
fewer at TP 1, and at TP 8 92,405,760 B a GPU fewer than vLLM's ReplicatedLinear holds.
"""

from __future__ import annotations

import json
from pathlib import Path

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import router_params, weights_bytes
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType
from tests.conftest import blocks_words, explain_steps, rotary_words

CONFIG = Path(__file__).parents[1] / "assets" / "hf_configs" / "qwen3-235b-a22b-fp8.json"
H100 = load_hardware("h100")


def _checkpoint_bytes(cfg: dict) -> int:
    """The FP8 block checkpoint's tensors as its config lays them out (see the module doc)."""
    q = cfg["quantization_config"]
    bn, bk = q["weight_block_size"]
    hidden, layers, vocab = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    hd, heads, kv = cfg["head_dim"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    experts, inter = cfg["num_experts"], cfg["moe_intermediate_size"]

    def fp8(n: int, k: int) -> int:  # weight + one float32 scale a block
        return n * k + -(-n // bn) * -(-k // bk) * 4

    attention = fp8((heads + 2 * kv) * hd, hidden) + fp8(hidden, heads * hd)
    expert = 2 * fp8(inter, hidden) + fp8(hidden, inter)
    skipped = set(q["modules_to_not_convert"])
    assert {"lm_head", "model.layers.0.mlp.gate", f"model.layers.{layers - 1}.mlp.gate"} <= skipped
    router = experts * hidden * 2
    norms = (2 * hidden + 2 * hd) * 2
    layer = attention + experts * expert + router + norms
    return layers * layer + hidden * 2 + 2 * vocab * hidden * 2


def _req(tp: int) -> SizeRequest:
    return SizeRequest(model=load_model("qwen3-235b-a22b-fp8"), gpu=H100, context_tokens=32768,
                       tp=tp)


def test_the_fp8_checkpoint_by_hand() -> None:
    cfg = json.loads(CONFIG.read_text())
    assert _checkpoint_bytes(cfg) == 236_445_455_360
    model = load_model("qwen3-235b-a22b-fp8")
    assert model.params_total == 235_093_634_560  # the same shapes, summed by kvplan.specs
    assert router_params(model) == 94 * 4096 * 128 == 49_283_072
    assert weights_bytes(_req(1), None) == 236_387_577_344
    assert _checkpoint_bytes(cfg) - weights_bytes(_req(1), None) == 57_079_808 + 798_208


def test_the_router_is_whole_on_every_rank() -> None:
    # (2,489,319,424 + 233,799,691,776) / tp + 98,566,144 on every rank
    assert weights_bytes(_req(4), None) == 59_072_252_800 + 98_566_144 == 59_170_818_944
    assert weights_bytes(_req(8), None) == 29_536_126_400 + 98_566_144 == 29_634_692_544
    # bf16 weights are params x 2 B / GPUs as before; a dense model has no router
    bf16 = SizeRequest(model=load_model("qwen3-235b-a22b"), gpu=H100, context_tokens=32768,
                       tp=8)
    assert weights_bytes(bf16, None) == 235_093_634_560 * 2 // 8
    dense = SizeRequest(model=load_model("llama-3-8b"), gpu=H100, context_tokens=4096,
                        weight_dtype=DType.fp8)
    assert router_params(dense.model) == 0
    # 1,050,673,152 x 2 B + 6,979,588,096 x 1 B
    assert weights_bytes(dense, None) == 9_080_934_400


def test_explain_shows_the_router() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 40,960 positions x 128 x 2 B = 10,485,760 B, and leaves the pool; recomputed: 29,634,692,544
    # -> 29,645,178,304; task h51blocks: torch's whole blocks from vLLM 0.21, the bf16 embeddings
    # and LM head at TP 8, 18,992 rows x 4,096 x 2 B = 148.375 MiB each, round up to 150 MiB:
    # 2 x 1,703,936 = 3,407,872 (the experts' 192 and 96 MiB and everything else whole or under
    # 20 MiB): 29,648,586,176
    steps = explain_steps("qwen3-235b-a22b-fp8", "--engine", "vllm", "--tp", "8",
                          "-c", "32768")
    weights = next(s for s in steps if s["label"] == "weights")
    assert weights["value"] == 29_645_178_304 + 3_407_872 == 29_648_586_176
    # the embeddings and LM head stay 16-bit: 2 x 151,936 x 4,096 = 1,244,659,712 params
    assert weights["formula"] == ("235,093,634,560 params x 8 bits / 8 GPU(s), the embeddings "
                                  "and LM head (1,244,659,712 params) in 16 bits, the MoE router "
                                  "(49,283,072 params) in 16 bits on every GPU"
                                  + rotary_words("40,960 positions x 128 x 2 B")
                                  + blocks_words(3_407_872, "FP8 MoE"))


def test_qwen3_30b_fp8_against_its_checkpoint_and_log_112() -> None:
    # 48 layers: attention (4,096 + 512 + 512) x 2,048 + 2,048 x 4,096 B with 1,152 blocks of
    # scales (4,608 B); 128 experts x 3 x 2,048 x 768 B with 128 x 288 blocks (147,456 B); the
    # router 128 x 2,048 x 2 B; norms (2 x 2,048 + 2 x 128) x 2 B; + final norm and 2 x 151,936 x
    # 2,048 x 2 B of embeddings and LM head: 31,174,545,408 B.
    cfg = json.loads((CONFIG.parent / "qwen3-30b-a3b-fp8.json").read_text())
    assert _checkpoint_bytes(cfg) == 31_174_545_408
    req = SizeRequest(model=load_model("qwen3-30b-a3b-fp8"), gpu=H100, context_tokens=32768)
    kvplan = weights_bytes(req, None)
    # block scales 48 x (4,608 + 147,456) and the norms' second byte 48 x 4,352 + 2,048
    assert 31_174_545_408 - kvplan == 48 * (4_608 + 147_456) + 48 * 4_352 + 2_048 == 7_510_016
    # log 112 "Model loading took 29.0435 GiB": the checkpoint + vLLM's rotary cos/sin buffer,
    # 40,960 positions x 128 x 2 B (max_position_embeddings; a buffer, not priced by kvplan)
    assert abs((31_174_545_408 + 40_960 * 128 * 2) / 2**30 - 29.0435) < 0.0003  # 29.0433
