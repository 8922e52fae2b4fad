"""Parallelism rules (kvplan/capacity/parallel.py) by hand: which TP vLLM accepts, the node rule,
expert parallelism and what it takes off the weights, and the advice that retries wider TP.

Shapes (model_specs/*.yaml): Llama-3-8B 32 heads / 8 KV heads; phi-4 40 / 10; Mixtral-8x22B
48 / 8; DeepSeek-V3 128 heads with latent attention (MLA); Qwen3-30B-A3B 32 heads / 4 KV, 48
layers, hidden 2,048, 128 experts of moe_intermediate_size 768, 30,532,122,624 params (bf16).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from kvplan.capacity import SizeRequest, advise, size
from kvplan.capacity.parallel import (
    check_parallelism,
    ep_weight_saving,
    expert_params,
    tp_problem,
    valid_tps,
)
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

LLAMA = load_model("llama-3-8b")
PHI4 = load_model("phi-4")
MIXTRAL = load_model("mixtral-8x22b")
DEEPSEEK = load_model("deepseek-v3")
QWEN_MOE = load_model("qwen3-30b-a3b")
H100 = load_hardware("h100")
# routed experts: 48 layers x 128 experts x 3 x 2,048 x 768 = 28,991,029,248 params
QWEN_EXPERTS = 48 * 128 * 3 * 2048 * 768


def test_valid_tps_by_the_head_rules():
    # TP divides the 32 heads; up to 8 it divides the 8 KV heads, past 8 it is a multiple of 8
    assert valid_tps(LLAMA) == [1, 2, 4, 8, 16, 32]
    # 40 heads: 1, 2, 4, 5, 8, 10, 20, 40; the 10 KV heads rule out 4 and 8
    assert valid_tps(PHI4) == [1, 2, 5, 10, 20, 40]
    assert valid_tps(LLAMA, limit=8) == [1, 2, 4, 8]
    assert valid_tps(LLAMA, limit=3) == [1, 2]
    # MLA has no KV-head rule: every divisor of the 128 heads
    assert valid_tps(DEEPSEEK) == [1, 2, 4, 8, 16, 32, 64, 128]


def test_tp_problems_word_for_word():
    assert tp_problem(LLAMA, 0) == "tensor parallelism must be a positive integer, got 0"
    assert tp_problem(LLAMA, 4097) == "tensor parallelism 4,097 is beyond the limit of 4,096"
    # 4,096 itself is within the limit: it fails on the heads instead
    assert tp_problem(LLAMA, 4096) == ("tensor parallelism 4096 does not divide llama-3-8b's 32 "
                                       "attention heads")
    assert tp_problem(PHI4, 4) == "tensor parallelism 4 does not divide phi-4's 10 KV heads"
    assert tp_problem(MIXTRAL, 12) == (
        "tensor parallelism 12 is not a multiple of mixtral-8x22b's 8 KV heads (each KV head "
        "must be replicated a whole number of times)")
    assert tp_problem(MIXTRAL, 16) is None and tp_problem(MIXTRAL, 8) is None
    assert tp_problem(DEEPSEEK, 64) is None


def test_check_parallelism_names_the_rule_and_the_valid_choices():
    with pytest.raises(InputError) as err:
        check_parallelism(PHI4, 4)
    assert str(err.value) == ("tensor parallelism 4 does not divide phi-4's 10 KV heads; vLLM "
                              "refuses it; valid --tp values: 1, 2, 5, 10, 20, 40")


@pytest.mark.parametrize(("kw", "message"), [
    ({"tp": 16}, "tensor parallelism 16 spans more than one node of 8 GPUs; state the node "
                 "count, or use --tp 8 or less with more replicas"),
    ({"tp": 8, "gpus_per_node": 4}, "tensor parallelism 8 spans more than one node of 4 GPUs; "
                                    "state the node count, or use --tp 4 or less with more "
                                    "replicas"),
    ({"tp": 16, "nodes": 1}, "tensor parallelism 16 needs more than 1 node of 8 GPUs; state 2 "
                             "nodes, or use --tp 8 or less"),
    # a single-device board (gb10, jetson-thor: gpus_per_node 1): one GPU, no "or less" below 1
    ({"tp": 2, "gpus_per_node": 1}, "tensor parallelism 2 spans more than one node of 1 GPU; "
                                    "state the node count, or use --tp 1 with more replicas"),
    # 4 GPUs at 1 a node need ceil(4 / 1) = 4 nodes; 2 nodes of 1 hold tp 2 at the most
    ({"tp": 4, "gpus_per_node": 1, "nodes": 2}, "tensor parallelism 4 needs more than 2 nodes "
                                                "of 1 GPU; state 4 nodes, or use --tp 2 or less"),
    # a stated node count holds the whole replica, TP x PP: 16 GPUs do not fit 1 node of 8
    ({"tp": 8, "pp": 2, "nodes": 1}, "a replica of 16 GPUs (tensor parallelism 8 x pipeline "
                                     "parallelism 2) needs more than 1 node of 8 GPUs; state 2 "
                                     "nodes, or use fewer GPUs a replica"),
    # 4 x 3 = 12 GPUs on 2 nodes of 4 (8 GPUs): ceil(12 / 4) = 3 nodes
    ({"tp": 4, "pp": 3, "nodes": 2, "gpus_per_node": 4},
     "a replica of 12 GPUs (tensor parallelism 4 x pipeline parallelism 3) needs more than 2 "
     "nodes of 4 GPUs; state 3 nodes, or use fewer GPUs a replica"),
    # a server of 2 GPUs: "or less" is said for any node above one GPU
    ({"tp": 4, "gpus_per_node": 2}, "tensor parallelism 4 spans more than one node of 2 GPUs; "
                                    "state the node count, or use --tp 2 or less with more "
                                    "replicas"),
    # GB200 trays of 4 in an NVLink domain of 72: with PP 2 the replica's 16 GPUs span 4 trays
    ({"tp": 8, "gpus_per_node": 4, "nvlink_domain": 72, "pp": 2},
     "tensor parallelism 8 spans more than one node of 4 GPUs: one compute tray (one host) "
     "holds 4 GPUs, and the NVLink domain of 72 GPUs lets tensor parallelism span 2 trays as "
     "one multi-node engine; with pipeline parallelism 2 a replica of 16 GPUs spans 4 trays; "
     "state the node count (4), or use --tp 4 or less with more replicas"),
    ({"tp": 1, "ep": 2}, "expert parallelism applies to mixture-of-experts models; llama-3-8b "
                         "has no experts"),
])
def test_node_and_expert_rules(kw: dict, message: str):
    rest = {k: v for k, v in kw.items() if k != "tp"}
    with pytest.raises(InputError) as err:
        check_parallelism(LLAMA, kw["tp"], **rest)
    assert str(err.value) == message


def test_what_the_rules_accept():
    check_parallelism(LLAMA, 16, nodes=2)  # 16 GPUs on 2 nodes of 8
    check_parallelism(LLAMA, 8, nodes=2, pp=2)  # a replica of exactly 2 nodes of 8
    check_parallelism(LLAMA, 4, nodes=1, pp=2)  # 8 GPUs: exactly one node
    check_parallelism(LLAMA, 8, pp=2)  # no node count stated: pipeline stages placed freely
    check_parallelism(LLAMA, 8)  # exactly one node
    check_parallelism(LLAMA, 4, gpus_per_node=4)
    check_parallelism(LLAMA, 1, ep=1)  # EP 1 on a dense model changes nothing
    check_parallelism(QWEN_MOE, 2, ep=8)  # 8 divides 128 experts; 2 divides 8
    check_parallelism(QWEN_MOE, 8, ep=2)
    check_parallelism(QWEN_MOE, 2, ep=1)  # EP 1 divides any expert count


@pytest.mark.parametrize(("model", "tp", "ep", "message"), [
    (QWEN_MOE, 1, 3, "expert parallelism 3 does not divide qwen3-30b-a3b's 128 experts; "
                     "choose a divisor of the expert count"),
    (QWEN_MOE, 1, 0, "expert parallelism 0 does not divide qwen3-30b-a3b's 128 experts; "
                     "choose a divisor of the expert count"),
])
def test_expert_parallelism_must_divide_the_experts(model, tp: int, ep: int, message: str):
    with pytest.raises(InputError) as err:
        check_parallelism(model, tp, ep=ep)
    assert str(err.value) == message


def test_ep_and_tp_must_divide_one_another():
    # GLM-4.7: 96 heads, 8 KV heads, 160 experts: TP 24 (3 nodes) and EP 16 divide neither way
    glm = load_model("glm-4.7")
    with pytest.raises(InputError) as err:
        check_parallelism(glm, 24, nodes=3, ep=16)
    assert str(err.value) == (
        "expert parallelism 16 and tensor parallelism 24 do not divide one another: vLLM's "
        "expert-parallel size is tp x dp (a multiple of tp), SGLang's and TensorRT-LLM's "
        "divide tp")


def test_ep_beyond_tp_needs_the_expert_width():
    unknown = QWEN_MOE.model_copy(update={"moe": QWEN_MOE.moe.model_copy(
        update={"moe_intermediate_size": None})})
    with pytest.raises(InputError) as err:
        check_parallelism(unknown, 2, ep=8)
    assert str(err.value) == (
        "qwen3-30b-a3b's spec states no moe_intermediate_size, so its experts' share of the "
        "weights is unknown; expert parallelism beyond tp cannot be planned")
    check_parallelism(unknown, 8, ep=8)  # EP up to TP needs no width


def test_expert_params_and_the_saving():
    assert expert_params(QWEN_MOE) == QWEN_EXPERTS == 28_991_029_248
    assert expert_params(LLAMA) is None
    # DeepSeek-V3 keeps its first 3 layers dense: 58 x 256 x 3 x 7,168 x 2,048
    assert expert_params(DEEPSEEK) == 58 * 256 * 3 * 7168 * 2048
    # bf16, TP 2, EP 8: each GPU held 1/2 of every expert (28,991,029,248 B), now 16 of 128
    # experts (1/8: 7,247,757,312 B): 21,743,271,936 B less
    assert ep_weight_saving(QWEN_MOE, 16, 2, 1, 8) == 28_991_029_248 - 7_247_757_312
    # at PP 2 each stage holds half of that
    assert ep_weight_saving(QWEN_MOE, 16, 2, 2, 8) == (28_991_029_248 - 7_247_757_312) // 2
    assert ep_weight_saving(QWEN_MOE, 16, 8, 1, 8) == 0  # EP = TP: the same split
    assert ep_weight_saving(QWEN_MOE, 16, 2, 1, None) == 0
    assert ep_weight_saving(LLAMA, 16, 1, 1, 4) == 0


def test_size_with_expert_parallelism():
    # 30,532,122,624 params x 2 B / 2 GPUs = 30,532,122,624 B, less the saving above:
    # 8,788,850,688 B of weights per GPU
    base = SizeRequest(model=QWEN_MOE, gpu=H100, context_tokens=8192, tp=2)
    assert size(base).weights_bytes == 30_532_122_624
    assert size(replace(base, ep=8)).weights_bytes == 30_532_122_624 - 21_743_271_936
    with pytest.raises(InputError, match="^expert parallelism 3 does not divide"):
        size(replace(base, ep=3))


def test_size_checks_the_gpu_s_node_size():
    four = H100.model_copy(update={"gpus_per_node": 4})
    with pytest.raises(InputError, match="^tensor parallelism 8 spans more than one node of 4 GPUs"):
        size(SizeRequest(model=LLAMA, gpu=four, context_tokens=8192, tp=8))
    size(SizeRequest(model=LLAMA, gpu=four, context_tokens=8192, tp=8, nodes=2))


def test_advice_keeps_a_stated_node_count():
    # a 1.5 GiB pool: at TP 1 one 8,192-token sequence needs 1 GiB... fits; at 0.75 GiB it
    # does not. TP 2 halves it (512 MiB a GPU): 1 user. With --nodes 2 stated, the tip keeps it
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=3 * GIB // 4,
                      nodes=2)
    tips = advise(size(req), [], size).suggestions
    assert tips[0] == "--tp 2 --nodes 2: 1 users per replica of 2 GPUs"
    one = replace(req, nodes=1)
    assert advise(size(one), [], size).suggestions[0] == "--tp 2: 1 users per replica of 2 GPUs"
    # past one node the tip states the nodes it needs: TP 16 on 8-GPU nodes is 2
    four = H100.model_copy(update={"gpus_per_node": 4})
    # Llama-2-7B (32 KV heads: 524,288 B a token, 2 GiB a 4,096-token sequence) in 200 MiB:
    # TP 8 leaves 4 heads a rank (256 MiB: no), TP 16 two (128 MiB: 1 user) on 4 nodes of 4
    tiny = SizeRequest(model=load_model("llama-2-7b"), gpu=four, context_tokens=4096,
                       kv_budget_bytes=200 * 2**20)
    assert advise(size(tiny), [], size).suggestions[0] == ("--tp 16 --nodes 4: 1 users per "
                                                           "replica of 16 GPUs")
    # at TP 4 = the node size, no --nodes (one node)
    quarter = SizeRequest(model=LLAMA, gpu=four, context_tokens=8192,
                          kv_budget_bytes=300 * 2**20)
    assert advise(size(quarter), [], size).suggestions[0] == ("--tp 4: 1 users per replica of "
                                                              "4 GPUs")
    # a stated node count is kept for a TP of exactly one node, too
    assert advise(size(replace(quarter, nodes=2)), [], size).suggestions[0] == (
        "--tp 4 --nodes 2: 1 users per replica of 4 GPUs")


def _tray(tp: int, need: int) -> str:
    return (f"tensor parallelism {tp} spans more than one node of 4 GPUs: one compute tray (one "
            f"host) holds 4 GPUs, and the NVLink domain of 72 GPUs lets tensor parallelism span "
            f"{need} trays as one multi-node engine; state the node count ({need}), or use --tp 4 "
            f"or less with more replicas")


@pytest.mark.parametrize(("tp", "message"), [
    (8, _tray(8, 2)),
    # ceil(6 / 4) = 2 trays, not 6 // 4 = 1
    (6, _tray(6, 2)),
    # the whole domain: 72 / 4 = 18 trays (tp == nvlink_domain is inside it)
    (72, _tray(72, 18)),
    # one past the domain: the plain refusal, no tray count
    (73, "tensor parallelism 73 spans more than one node of 4 GPUs; state the node count, or "
         "use --tp 4 or less with more replicas"),
])
def test_an_nvlink_domain_of_trays_names_the_trays_to_span(tp: int, message: str):
    # GB200/GB300 NVL72 (hardware_specs/gb200.yaml: gpus_per_node 4, nvlink_domain_gpus 72);
    # DeepSeek-V3's latent attention has no KV-head rule; with 72 x 73 = 5,256 query heads
    # every TP here divides them, so only the node rule speaks
    wide = DEEPSEEK.model_copy(update={"num_attention_heads": 72 * 73})
    with pytest.raises(InputError) as err:
        check_parallelism(wide, tp, gpus_per_node=4, nvlink_domain=72)
    assert str(err.value) == message
    # without a domain the same TP gets the plain refusal
    with pytest.raises(InputError) as err:
        check_parallelism(wide, tp, gpus_per_node=4)
    assert str(err.value).startswith(f"tensor parallelism {tp} spans more than one node of 4 GPUs;")


def test_size_passes_the_gpu_s_nvlink_domain():
    gb200 = load_hardware("gb200")
    assert (gb200.gpus_per_node, gb200.nvlink_domain_gpus) == (4, 72)
    with pytest.raises(InputError) as err:
        size(SizeRequest(model=LLAMA, gpu=gb200, context_tokens=8192, tp=8))
    assert str(err.value) == _tray(8, 2)
