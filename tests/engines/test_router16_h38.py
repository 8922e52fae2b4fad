"""A 16-bit MoE router whole on every TP rank (issue #13 task h38router), by hand.

Qwen/Qwen3-30B-A3B's config.json (tests/assets/hf_configs/qwen3-30b-a3b.json): 48 layers, hidden
2,048, 32 query heads and 4 KV heads of 128, 128 experts of 768, vocab 151,936, untied, bfloat16.
Its parameters: embeddings + LM head 2 x 151,936 x 2,048 = 622,329,856; a layer's attention
(4,096 + 512 + 512) x 2,048 + 4,096 x 2,048 = 18,874,368 with q/k norms 256, experts 128 x 3 x
2,048 x 768 = 603,979,776, router 128 x 2,048 = 262,144, norms 4,096: 623,120,640 a layer, x 48 =
29,909,790,720, + final norm 2,048 + embeddings = 30,532,122,624.

The router: 48 x 2,048 x 128 = 12,582,912 parameters, 25,165,824 B in bf16. vLLM (from 0.8.5) and
SGLang (from 0.5.21) build it as a ReplicatedLinear (kvplan.engines.common ROUTER_BYTES), so at
TP 2 a GPU holds (30,532,122,624 - 12,582,912) x 2 B / 2 = 30,519,539,712 B of the rest +
25,165,824 B of router = 30,544,705,536 B, where the even split priced 30,532,122,624 B
(12,582,912 B fewer). TensorRT-LLM and older releases keep the even split.
"""

from __future__ import annotations

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.common import router_params, router_whole, weights_bytes
from kvplan.specs import load_hardware, load_model
from tests.conftest import blocks_words, explain_steps, rotary_words

H100 = load_hardware("h100-sxm-80gb")
WHOLE = 30_544_705_536
SPLIT = 30_532_122_624
LOAD_EXTRA_TP = 290 * 1024 * 1024  # SGLang's load-time buffers with TP (sglang.LOAD_EXTRA_TP)
# vLLM's rotary cos/sin cache, whole on each rank (task h39rope): 40,960 positions x 128 x 2 B
ROTARY = 40_960 * 128 * 2


def _req(tp: int) -> SizeRequest:
    return SizeRequest(model=load_model("qwen3-30b-a3b"), gpu=H100, context_tokens=32768, tp=tp)


def _weights(engine: str, version: str) -> int:
    steps = explain_steps("qwen3-30b-a3b", "--engine", engine, "--engine-version",
                          version, "--tp", "2", "-c", "32768")
    return int(next(s for s in steps if s["label"] == "weights")["value"])


def test_bf16_router_whole_at_tp2() -> None:
    model = load_model("qwen3-30b-a3b")
    assert model.params_total == SPLIT  # 30,532,122,624 parameters x 2 B / 2 GPUs
    assert router_params(model) == 48 * 2048 * 128 == 12_582_912
    assert weights_bytes(_req(2), None) == SPLIT
    assert router_whole(_req(2), whole16=True) and not router_whole(_req(2))
    assert weights_bytes(_req(2), None, whole16=True) == 30_519_539_712 + 25_165_824 == WHOLE
    # one GPU: the whole router was already on it, 30,532,122,624 x 2 B either way
    assert weights_bytes(_req(1), None, whole16=True) == weights_bytes(_req(1), None) == 2 * SPLIT


def test_engines_and_releases() -> None:
    assert _weights("vllm", "0.12.0") == WHOLE + ROTARY == 30_555_191_296
    assert _weights("vllm", "0.8.5") == WHOLE + ROTARY
    assert _weights("vllm", "0.8.4") == SPLIT + ROTARY  # before the oldest wheel read
    assert _weights("sglang", "0.5.21") == WHOLE + LOAD_EXTRA_TP == 30_848_792_576
    assert _weights("sglang", "0.5.20") == SPLIT + LOAD_EXTRA_TP == 30_836_209_664
    assert _weights("trtllm", "1.0.0") == SPLIT  # no release read: the even split


def test_explain_names_the_bf16_router() -> None:
    steps = explain_steps("qwen3-30b-a3b", "--engine", "vllm", "--tp", "2",
                          "-c", "32768")
    weights = next(s for s in steps if s["label"] == "weights")
    # task h51blocks: torch's whole blocks from vLLM 0.21, the embeddings and LM head at TP 2,
    # 75,968 rows x 2,048 x 2 B = 296.75 MiB each, round up to 298: 2 x 1,310,720 = 2,621,440
    assert weights["formula"] == ("30,532,122,624 params x 16 bits / 2 GPU(s), the MoE router "
                                  "(12,582,912 params) in 16 bits on every GPU"
                                  + rotary_words("40,960 positions x 128 x 2 B")
                                  + blocks_words(2_621_440, "16-bit MoE"))
