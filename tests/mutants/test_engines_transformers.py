"""transformers' profile in full: every number of an EngineResult and its explain steps for
DynamicCache and StaticCache on a dense model, an MLA model, a sliding hybrid and an
all-sliding model (both with the prefill peak), TP 2 with measured terms, and one that does not
fit. Each expected number is worked by hand in the comments from transformers' own cache code as
kvplan.engines.transformers' docstring quotes it (cache_utils.py DynamicCache / StaticCache,
repeat_kv, modeling_deepseek_v3.py expand_kv).

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/transformers.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity.kv import Precision
from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult, Measured
from kvplan.engines.transformers import batch_cost
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.units import DType
from tests.mutants.engine_runs import GIB, MIB, assert_weights_overflow, numbers, run


def hf(model: str, gpu: str, ctx: int, version: str | None = None,
       **kw: object) -> EngineResult:
    return run(Engine.transformers, model, gpu, ctx, version, **kw)


def test_llama3_8b_dynamic_cache_on_one_h100_in_every_field():
    r = hf("llama-3-8b", "h100", 8192)
    # room 85,045,477,376 - 16,060,522,496 - 0.5 GiB = 68,448,083,968. A sequence: cache 8,192 x
    # 32 x 4,096 B = 1 GiB; transient one layer's cache 4,096 x 8,192 = 33,554,432 (torch.cat);
    # activations 55,296 el x 2 B + 128,256 x 4 B x 2 = 110,592 + 1,026,048 = 1,136,640; sum
    # 1,108,432,896: 68,448,083,968 // that = 61.
    # the longest that fits: (room - 1,136,640) // (131,072 + 33,554,432 // 8,192 = 135,168)
    # = 506,383, capped at the model's 8,192.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=85_045_477_376,
        weights_bytes=16_060_522_496, activation_bytes=61 * (1_136_640 + 33_554_432),
        activation_bytes_low=61 * 1_136_640, activation_bytes_high=61 * (1_136_640 + 33_554_432),
        non_torch_bytes=512 * MIB, cuda_graph_bytes=0, kv_cache_bytes=61 * GIB,
        kv_cache_bytes_low=61 * GIB, kv_cache_bytes_high=61 * GIB, kv_cache_tokens=61 * 8192,
        kv_cache_tokens_low=61 * 8192, kv_cache_tokens_high=61 * 8192, blocks=61,
        block_size_tokens=8192, max_model_len=8192, max_concurrency=Fraction(61),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.transformers and r.engine_version == "dynamic"
    s = r.size
    assert (s.users_per_replica, s.kv_budget_bytes, s.usable_bytes) == (
        61, 61 * GIB, 85_045_477_376)
    # overhead 61 x 34,691,072 + 0.5 GiB = 2,653,026,304; unallocated 85,045,477,376 -
    # 16,060,522,496 - 61 GiB - 2,653,026,304 = 833,677,312
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_060_522_496, kv_used_bytes=61 * GIB,
        kv_free_bytes=0, reserve_bytes=2_653_026_304, unallocated_bytes=833_677_312)
    assert (s.request.allocation.value, s.request.avg_context_tokens) == ("reserved", None)
    assert [(st.label, st.value, st.unit, st.op, st.args, st.formula) for st in r.steps] == [
        ("GPU memory", 85_045_477_376, "bytes", "given", (), "device total"),
        ("memory fraction", 1, "ratio", "given", (), "share torch may use (default 1)"),
        ("usable memory", 85_045_477_376, "bytes", "mul", ("GPU memory", "memory fraction"),
         "floor(memory x f)"),
        ("weights", 16_060_522_496, "bytes", "given", (), "parameters x weight bytes / GPUs"),
        ("CUDA context", 512 * MIB, "bytes", "given", (), "non-torch memory"),
        ("room for the batch", 68_448_083_968, "bytes", "sum",
         ("usable memory", "-weights", "-CUDA context"), "usable - weights - CUDA context"),
        ("cache per sequence", GIB, "bytes", "given", (),
         "8,192 tokens x 32 full layers, 4,096 B per token per layer"),
        ("transient per sequence", 33_554_432, "bytes", "given", (),
         "one layer's cache, copied by torch.cat on append"),
        ("activations per sequence", 1_136_640, "bytes", "given", (),
         "one decode token + fp32 logits (x2)"),
        ("bytes per sequence", 1_108_432_896, "bytes", "sum",
         ("cache per sequence", "transient per sequence", "activations per sequence"), "sum"),
        ("batch (raw)", 61, "users", "div", ("room for the batch", "bytes per sequence"),
         "floor(room / bytes per sequence)"),
        ("batch", 61, "users", "max", ("batch (raw)", 0), "never below 0"),
        ("KV cache memory", 61 * GIB, "bytes", "mul", ("batch", "cache per sequence"),
         "batch x cache per sequence"),
        ("KV cache tokens", 61 * 8192, "tokens", "mul", ("batch", 8192), "batch x max_model_len"),
        ("users per replica", 61, "users", "sum", ("batch",), "the batch"),
        ("GPUs per replica", 1, "GPUs", "given", (), "tp 1 x pp 1"),
        ("users per GPU", 61, "users", "ratio", ("users per replica", "GPUs per replica"),
         "users per replica / GPUs per replica"),
    ]
    assert r.assumptions == (
        "transformers generate() with DynamicCache",
        "transient 0.03 GiB per sequence: one layer's cache, copied by torch.cat on append",
        "the prefill's activations not modelled (prefill the batch in smaller groups)",
    )
    assert r.log_lines == ()


def test_static_cache_expands_grouped_kv_heads_for_one_layer():
    r = hf("llama-3-8b", "h100", 8192, "Static")
    # repeat_kv: 32 query / 8 KV heads = 4x one layer's 33,554,432 B = 134,217,728; a sequence
    # 1 GiB + 134,217,728 + 1,136,640 = 1,209,096,192: 68,448,083,968 // that = 56
    assert (r.engine_version, r.size.users_per_replica, r.kv_cache_bytes) == (
        "static", 56, 56 * GIB)
    assert (r.activation_bytes, r.activation_bytes_low) == (
        56 * (1_136_640 + 134_217_728), 56 * 1_136_640)
    by_label = {st.label: st for st in r.steps}
    assert (by_label["transient per sequence"].value,
            by_label["transient per sequence"].formula) == (
        134_217_728, "one layer's K and V expanded to all query heads (4x)")
    assert r.assumptions[:2] == (
        "transformers generate() with StaticCache",
        "transient 0.12 GiB per sequence: one layer's K and V expanded to all query heads (4x)")


def test_an_mla_model_expands_its_latent_for_every_head():
    r = hf("deepseek-v2-lite", "h100", 4096)
    # latent (512 + 64) x 2 B = 1,152 B per token per layer, 27 layers: 127,401,984 a sequence.
    # expand_kv: 16 heads x (kv_b_proj 128 + 128, keys 128 + 64) = 7,168 values x 2 B x 4,096
    # tokens = 58,720,256. activations: 3 x 2,048 + MoE 6 x (3 x 1,408 + 2,048) = 43,776 el x 2 B
    # + 102,400 x 8 = 906,752. room 85,045,477,376 - 31,412,968,448 - 0.5 GiB = 53,095,638,016;
    # 53,095,638,016 // 187,028,992 = 283.
    assert (r.weights_bytes, r.kv_cache_bytes, r.size.users_per_replica) == (
        31_412_968_448, 283 * 127_401_984, 283)
    assert (r.activation_bytes, r.max_model_len_that_starts) == (
        283 * (906_752 + 58_720_256), 163_840)
    by_label = {st.label: st for st in r.steps}
    assert [by_label[k].value for k in ("cache per sequence", "transient per sequence",
                                        "activations per sequence")] == [
        127_401_984, 58_720_256, 906_752]
    assert by_label["transient per sequence"].formula == (
        "one layer's latent expanded to 16 heads: kv_b_proj output (128 + 128) + keys (128 + 64) "
        "per head")
    assert by_label["cache per sequence"].formula == (
        "4,096 tokens x 27 full layers, 1,152 B per token per layer")


def test_a_sliding_hybrid_is_bound_by_its_prefill_peak():
    r = hf("gemma-3-1b", "l4", 32768)
    # Gemma-3-1B: 4 full + 22 sliding (window 512), 1,024 B per token per layer. Decoding: cache
    # 1,024 x (4 x 32,768 + 22 x 512) = 145,752,064; transient one full layer 33,554,432;
    # activations 24,192 x 2 + 262,144 x 8 = 2,145,536: 181,452,032 a sequence; room
    # 23,570,219,008 - 1,999,771,904 - 0.5 GiB = 21,033,576,192: 115 by decode.
    # prefill: every layer holds the prompt: 1,024 x 26 x 32,768 = 872,415,232 + max(33,554,432,
    # 872,415,232 / 26) + 2,145,536 = 908,115,200: 23 by prefill, the smaller.
    assert numbers(r) == dict(
        memory_bytes=23_570_219_008, requested_bytes=23_570_219_008,
        weights_bytes=1_999_771_904, activation_bytes=23 * (2_145_536 + 33_554_432),
        activation_bytes_low=23 * 2_145_536, activation_bytes_high=23 * (2_145_536 + 33_554_432),
        non_torch_bytes=512 * MIB, cuda_graph_bytes=0, kv_cache_bytes=23 * 145_752_064,
        kv_cache_bytes_low=23 * 145_752_064, kv_cache_bytes_high=23 * 145_752_064,
        kv_cache_tokens=23 * 32768, kv_cache_tokens_low=23 * 32768,
        kv_cache_tokens_high=23 * 32768, blocks=23, block_size_tokens=32768,
        max_model_len=32768, max_concurrency=Fraction(23), starts=True, reason=None,
        max_model_len_that_starts=32768)
    assert [(st.label, st.value, st.op, st.args, st.formula) for st in r.steps[6:15]] == [
        ("cache per sequence", 145_752_064, "given", (),
         "32,768 tokens x 4 full layers + 512 x 22 sliding, 1,024 B per token per layer"),
        ("transient per sequence", 33_554_432, "given", (),
         "one layer's cache, copied by torch.cat on append"),
        ("activations per sequence", 2_145_536, "given", (), "one decode token + fp32 logits (x2)"),
        ("bytes per sequence", 181_452_032, "sum",
         ("cache per sequence", "transient per sequence", "activations per sequence"), "sum"),
        ("batch (raw)", 115, "div", ("room for the batch", "bytes per sequence"),
         "floor(room / bytes per sequence)"),
        ("prefill bytes per sequence", 908_115_200, "given", (),
         "every cached layer holding the 32,768-token prompt until the next append + transient "
         "+ activations"),
        ("batch (prefill-bound)", 23, "div", ("room for the batch", "prefill bytes per sequence"),
         "floor(room / prefill bytes per sequence)"),
        ("batch (smaller)", 23, "min", ("batch (raw)", "batch (prefill-bound)"),
         "the prefill peak or the decode steady state, whichever binds"),
        ("batch", 23, "max", ("batch (smaller)", 0), "never below 0"),
    ]
    assert r.assumptions[-1] == (
        "prefill peak: sliding layers hold the whole prompt until the next append (0.85 GiB per "
        "sequence against 0.17 GiB decoding)")


def test_an_all_sliding_model_copies_one_window_but_stores_the_prompt_at_prefill():
    r = hf("phi-3-mini-4k", "l4", 4096)
    # Phi-3-mini: 32 sliding layers (window 2,047), 32 heads x (96 + 96) x 2 B = 12,288 B per
    # token per layer. Decoding: cache 12,288 x 32 x 2,047 = 804,913,152; the transient copies
    # one window, 12,288 x 2,047 = 25,153,536; activations 33,792 x 2 + 32,064 x 8 = 324,096:
    # 830,390,784; room 23,570,219,008 - 7,642,159,104 - 0.5 GiB = 15,391,188,992: 18.
    # prefill: 12,288 x 32 x 4,096 = 1,610,612,736 + max(25,153,536, one layer's prompt
    # 50,331,648) + 324,096 = 1,661,268,480: 9.
    assert (r.size.users_per_replica, r.kv_cache_bytes, r.activation_bytes) == (
        9, 9 * 804_913_152, 9 * (324_096 + 25_153_536))
    by_label = {st.label: st.value for st in r.steps}
    assert [by_label[k] for k in ("cache per sequence", "transient per sequence",
                                  "batch (raw)", "prefill bytes per sequence",
                                  "batch (prefill-bound)")] == [
        804_913_152, 25_153_536, 18, 1_661_268_480, 9]
    assert r.steps[6].formula == (
        "4,096 tokens x 0 full layers + 2,047 x 32 sliding, 12,288 B per token per layer")


def test_batch_cost_without_the_prefill_peak_when_static_or_within_the_window():
    phi = load_model("phi-3-mini-4k")
    fp16 = Precision(DType.fp16)
    # StaticCache allocates the window up front: the prefill cache is the decode cache
    static = batch_cost(phi, 4096, fp16, "static")
    assert static.prefill_cache_bytes == static.cache_bytes == 804_913_152
    assert static.prefill_total_bytes == static.total_bytes
    # repeat_kv: 32 / 32 heads = 1x: the transient is one window's layer
    assert static.transient_bytes == 25_153_536
    # a context within the window: window = the context, decode and prefill hold the same
    short = batch_cost(phi, 1024, fp16)
    assert (short.window, short.cache_bytes, short.prefill_cache_bytes) == (
        1024, 12_288 * 32 * 1024, 12_288 * 32 * 1024)
    assert short.prefill_total_bytes == short.total_bytes
    # tp 2 halves the heads: 16 x 192 x 2 B = 6,144 B per token per layer
    assert batch_cost(phi, 1024, fp16, tp=2).per_token_layer == 6_144


def test_a_70b_on_one_h100_runs_out_of_memory():
    r = hf("llama-3.1-70b", "h100", 8192)
    # room 85,045,477,376 - 141,107,412,992 - 0.5 GiB = -56,598,806,528 (-52.71 GiB); one
    # sequence 2,684,354,560 + 33,554,432 + (110,592 x 2 + 1,026,048 = 1,247,232) =
    # 2,719,156,224 (2.53 GiB); floor(room / that) = -21, then 0.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=85_045_477_376,
        weights_bytes=141_107_412_992, activation_bytes=0, activation_bytes_low=0,
        activation_bytes_high=0, non_torch_bytes=512 * MIB, cuda_graph_bytes=0,
        kv_cache_bytes=0, kv_cache_bytes_low=0, kv_cache_bytes_high=0, kv_cache_tokens=0,
        kv_cache_tokens_low=0, kv_cache_tokens_high=0, blocks=0, block_size_tokens=8192,
        max_model_len=8192, max_concurrency=Fraction(0), starts=False,
        reason="transformers would run out of memory: one sequence of 8,192 tokens needs "
               "2.53 GiB and -52.71 GiB is left after the weights",
        max_model_len_that_starts=0)
    assert_weights_overflow(r, 85_045_477_376, 141_107_412_992)
    assert {st.label: st.value for st in r.steps}["batch (raw)"] == -21


def test_measured_terms_a_fraction_and_tp2():
    r = hf("llama-3-8b", "a100-40gb", 8192, tp=2, memory_fraction=Fraction(9, 10),
           measured=Measured(memory_bytes=40 * GIB, weights_bytes=8 * GIB, non_torch_bytes=GIB))
    # usable floor(40 GiB x 0.9) = 38,654,705,664; room - 8 GiB - 1 GiB = 28,991,029,248.
    # TP 2: 4 KV heads x 256 x 2 B = 2,048 B per token per layer: cache 536,870,912, transient
    # 16,777,216; activations (3 x 4,096 + 3 x 7,168) x 2 + 1,026,048 = 1,093,632: 554,741,760
    # a sequence: 52.
    assert (r.memory_bytes, r.requested_bytes, r.weights_bytes, r.non_torch_bytes) == (
        40 * GIB, 38_654_705_664, 8 * GIB, GIB)
    assert (r.size.users_per_replica, r.kv_cache_bytes) == (52, 52 * 536_870_912)
    by_label = {st.label: st for st in r.steps}
    assert (by_label["memory fraction"].value, by_label["weights"].formula,
            by_label["room for the batch"].value) == (Fraction(9, 10), "measured", 28_991_029_248)
    assert (by_label["GPUs per replica"].formula, by_label["users per GPU"].value) == (
        "tp 2 x pp 1", 26)


@pytest.mark.parametrize("version", ["paged", "DynamicCache", "0.4"])
def test_an_unknown_cache_is_refused(version: str):
    with pytest.raises(InputError) as err:
        hf("llama-3-8b", "h100", 8192, version)
    assert str(err.value) == (f"transformers engine version {version!r}: use dynamic "
                              "(DynamicCache) or static (StaticCache)")
