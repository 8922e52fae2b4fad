"""vLLM's printed "GPU KV cache size" from 0.21 (int(concurrency x max_model_len)), the
sliding-window group's in-flight tokens from 0.26 and GB10's serve batch tier (task h36v030;
kv_cache_utils.py get_kv_cache_capacity, config/vllm.py max_in_flight_tokens, arg_utils.py
get_batch_defaults, read in the 0.13.0, 0.20.0-0.22.0, 0.25.0-0.31.0 and 0.34.0 wheels)."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, verify_steps, vllm
from kvplan.engines.vllm_groups import Groups, in_flight_tokens, printed_tokens
from kvplan.engines.vllm_series import batching_defaults, flavour
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB

TWO = Groups(group_size=12, full_groups=1, sliding_groups=1)  # gpt-oss-20b: 12 full + 12 sliding


def test_printed_tokens_follow_the_concurrency_from_0_21():
    # 132,040 blocks, 2,313 a request (2,048 full + ceil(4,223 / 16) + 1 = 265 sliding):
    # int(132,040 / 2,313 x 32,768) = int(1,870,595.6) = 1,870,595; before 0.21:
    # 132,040 // 2 groups x 16 = 1,056,320
    assert printed_tokens(132_040, 2_313, 32_768, TWO, 16, True, True) == 1_870_595
    assert printed_tokens(132_040, 2_313, 32_768, TWO, 16, True, False) == 1_056_320
    assert flavour("0.21.0").concurrency_tokens and not flavour("0.20.0").concurrency_tokens


def test_one_group_at_a_length_off_the_block_grid():
    # one group, L = 1,000: ceil(1,000 / 16) = 63 blocks a request; 630 blocks: int(630 / 63 x
    # 1,000) = 10,000 tokens printed, where 630 x 16 = 10,080
    one = Groups(group_size=32, full_groups=1, sliding_groups=0)
    assert printed_tokens(630, 63, 1_000, one, 16, True, True) == 10_000
    assert printed_tokens(630, 63, 1_000, one, 16, True, False) == 10_080


def test_in_flight_batches_from_0_26():
    # max_concurrent_batches: 2 at PP 1 (async scheduling), PP + 1 under Model Runner V2, else PP
    assert in_flight_tokens(2_048, 1, False, True) == 4_096
    assert in_flight_tokens(2_048, 2, True, True) == 6_144
    assert in_flight_tokens(2_048, 2, False, True) == 4_096
    assert in_flight_tokens(2_048, 1, False, False) == 2_048
    assert flavour("0.26.0").in_flight_batches and not flavour("0.25.0").in_flight_batches


def test_gb10_takes_the_small_serve_tier_before_0_33_too():
    # NVML's memory query raises on GB10, get_batch_defaults falls to device_memory 0 (0.30.0
    # arg_utils.py :2719-2725); log 28 (0.13.0) prints "max_num_batched_tokens=2048 (auto)"
    gb10, h100 = load_hardware("gb10"), load_hardware("h100")
    assert batching_defaults(32_768, gb10.name, flavour("0.30.0"), gb10.memory_bytes) == (2048, 256)
    assert batching_defaults(32_768, h100.name, flavour("0.30.0"), 80 * GIB) == (8192, 1024)


def test_gpt_oss_on_gb10_under_0_30_prints_the_concurrency_count():
    # 2,048 batched x 2 in flight: sliding ceil(min(127 + 4,096, 32,768) / 16) + 1 = 265,
    # full ceil(32,768 / 16) = 2,048: 2,313 blocks a request; tokens = int(blocks / 2,313 x 32,768)
    req = SizeRequest(model=load_model("gpt-oss-20b"), gpu=load_hardware("gb10"),
                      context_tokens=32_768)
    r = vllm.profile(req, EngineSettings(engine=Engine.vllm, version="0.30.0",
                                         memory_fraction=0.55))
    steps = {s.label: s.value for s in r.steps}
    assert steps["blocks per request"] == 2_313
    assert r.kv_cache_tokens == int(r.blocks / 2_313 * 32_768)
    assert r.kv_cache_tokens != r.blocks // 2 * 16
    assert verify_steps(r.steps) == []


def test_graph_interval_reaches_the_estimate_fit_log_285_prints():
    # log 285 (0.30.0, GB10, Qwen3-30B-A3B-FP8): 0.5500 "is equivalent to
    # --gpu-memory-utilization=0.5410", so the estimate is 0.0090 x 121.63 GiB = 1.0947 GiB
    # (1.089-1.101 within the 4-decimal rounding). kvplan (task h44graphbase): GB10's 256
    # sequences -> 86 graphs in 2 modes, 84 later x 48 layers = 4,032 graph-layers: best
    # 358,612,992 + 4,032 x 89,653 = 720,093,888 B (0.671 GiB), low 170,917,888 + 361,480,896
    # = 532,398,784 B (0.496), high 813,694,976 + 4,032 x 382,730 = 2,356,862,336 B (2.195;
    # 285 set the high baseline, 776 MiB, at the best per-graph-layer cost: 776 + 4,032 x
    # 0.0855 = 1,120.7 MiB, its 1.0945 GiB)
    from kvplan.engines.vllm_capture import estimate

    term, _ = estimate("0.30.0", 256, 2048, 48, gpu_name="GB10")
    assert (term.low, term.best, term.high) == (532_398_784, 720_093_888, 2_356_862_336)
    assert abs((813_694_976 + 4032 * 89_653) / GIB - 0.0090 * 121.63) < 0.001
    assert term.low < term.best < 0.0090 * 121.63 * GIB < term.high
