"""Pipeline parallelism: vLLM's layer split, the bottleneck stage, weights read once per stage.

Each expected value is worked by hand in a comment or comes from vLLM's published source.
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.kv import pipeline_stages
from kvplan.specs import load_hardware, load_model
from kvplan.traffic.plan import Traffic, plan_traffic


def vllm_get_pp_indices(num_hidden_layers: int, pp_rank: int, pp_size: int) -> tuple[int, int]:
    """The oracle: vLLM's get_pp_indices without the VLLM_PP_LAYER_PARTITION override.

    Source: vllm-project/vllm, vllm/distributed/utils.py @ 5a6541db9bfa77756459722f69e8c89a0b47a14d:
        layers_per_partition = num_hidden_layers // pp_size
        partitions = [layers_per_partition for _ in range(pp_size)]
        if remaining_layers := num_hidden_layers % pp_size:
            for i in range(2, remaining_layers + 2):
                partitions[-i] += 1
        start_layer = sum(partitions[:pp_rank]); end_layer = start_layer + partitions[pp_rank]
    """
    partitions = [num_hidden_layers // pp_size] * pp_size
    for i in range(2, num_hidden_layers % pp_size + 2):
        partitions[-i] += 1
    start = sum(partitions[:pp_rank])
    return start, start + partitions[pp_rank]


def test_ten_layers_three_stages_as_vllm_splits_them():
    # 10 // 3 = 3 each, remainder 1 goes to partitions[-2] (the middle stage): [3, 4, 3]
    assert pipeline_stages(10, 3) == [range(0, 3), range(3, 7), range(7, 10)]


def test_sixty_one_layers_two_stages():
    # DeepSeek-V3: 61 // 2 = 30, remainder 1 to partitions[-2] (the first stage): [31, 30]
    assert pipeline_stages(61, 2) == [range(0, 31), range(31, 61)]


@pytest.mark.parametrize("pp", range(1, 9))
def test_every_split_matches_vllm(pp: int):
    for layers in range(pp, 97):
        want = [range(*vllm_get_pp_indices(layers, r, pp)) for r in range(pp)]
        assert pipeline_stages(layers, pp) == want, (layers, pp)


def test_deepseek_v3_pp2_is_bound_by_the_fuller_stage(cli):
    # kvplan size deepseek-v3 --gpu h200 --tp 8 --pp 2 --context 131072 --kv-dtype int4
    # H200 memory 150,109,880,320 B (hardware_specs/h200-141gb.yaml);
    # usable = 0.9 x 150,109,880,320 = 135,098,892,288; weights = 671e9 params x 1 B (fp8)
    # / 16 GPUs = 41,937,500,000; reserve 2 GiB = 2,147,483,648
    # budget = 135,098,892,288 - 41,937,500,000 - 2,147,483,648 = 91,013,908,640
    # MLA latent 512 + 64 = 576 values x 4 bits = 2,304 bits + ceil(576/64) = 9 scales x 16 bits
    # = 2,448 bits = 306 B per layer per token.
    # stage 0 (31 layers): 9,486 B/token x 131,072 = 1,243,348,992 B -> 91,013,908,640 // that = 73
    # stage 1 (30 layers): 9,180 B/token x 131,072 = 1,203,240,960 B -> 75 (the wrong stage)
    doc = cli("size", "deepseek-v3", "--gpu", "h200", "--tp", "8", "--pp", "2",
                   "--context", "131072", "--kv-dtype", "int4")
    assert doc["kv_budget_bytes"] == 91_013_908_640
    assert doc["kv_bytes_per_token"] == 9_486
    assert doc["kv_bytes_per_sequence"] == 1_243_348_992
    assert doc["users_per_replica"] == 73


def test_pp2_decode_reads_the_weights_of_both_stages():
    # Llama-3-8B, 8,030,261,248 params in bf16 = 16,060,522,496 B; at PP 2 each stage's GPU holds
    # half (8,030,261,248 B) and a token passes both stages: 2 x 8,030,261,248 = 16,060,522,496
    req = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192, pp=2)
    plan = plan_traffic(req, Traffic(peak_users=1))
    assert plan.weights_read_bytes == 2 * 8_030_261_248
    # KV read per step at the mean (8,192 tokens), all 32 layers over both stages:
    # 8,192 tokens x 32 layers x 2 (K, V) x 8 heads x 128 x 2 B = 1,073,741,824
    assert plan.kv_read_bytes_per_sequence == 1_073_741_824


def test_pp2_step_time_counts_both_stages_on_the_cli(cli):
    # kvplan fleet llama-3-8b --gpu h100 --pp 2 --peak-users 1 --kv-budget-gib 1.5
    # a stated 1.5 GiB pool holds one 8,192-token sequence per replica (stage 0: 16 layers x
    # 8,192 x 4,096 B = 536,870,912 B; 1.5 GiB // that = 3) -> planned 3 per replica.
    # step = (16,060,522,496 + 3 x 1,073,741,824) / 3.35e12 B/s (H100 SXM bandwidth)
    #      = 19,281,747,968 / 3.35e12 = 0.005755745662 s
    doc = cli("fleet", "llama-3-8b", "--gpu", "h100", "--pp", "2", "--peak-users", "1",
                   "--kv-budget-gib", "1.5")
    assert doc["users_per_replica"] == 3
    assert doc["step_time_s"] == pytest.approx(19_281_747_968 / 3.35e12, rel=1e-6)
