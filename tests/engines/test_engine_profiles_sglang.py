"""Engine profiles: SGLang's own rules (its fraction by release and backend, MLA ranks' whole
projections, start-up use by interconnect) checked on logged figures; split from
test_engine_profiles.py."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from kvplan.engines import Engine, EngineSettings, Measured, run_engine, sglang
from kvplan.engines.common import router_params
from kvplan.errors import InputError
from kvplan.specs import load_hardware
from kvplan.units import GIB
from tests.engines.profile_requests import gib, req


def test_sglang_docs_log_to_the_token():
    # tests/assets/logs/15: avail 78.81 GB before, 63.72 after, mem_fraction_static 0.88
    # -> max_total_num_tokens=444500
    m = Measured(free_before_load_bytes=gib(78.81), free_after_load_bytes=gib(63.72))
    r = run_engine(req("llama-3.1-8b", ctx=131072),
                   EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(88, 100),
                                  measured=m))
    assert abs(r.kv_cache_tokens - 444_500) <= 30


def test_sglang_default_fraction_generations():
    assert sglang.default_fraction(1, "0.4.1") == Fraction(88, 100)
    assert sglang.default_fraction(4, "0.4.3") == Fraction(85, 100)
    # NOTES Q6a: H100 (81,559 MiB) TP1 -> 0.874 (0.4.7-0.4.10) and 0.835 (0.5)
    assert sglang.default_fraction(1, "0.4.9", 81559) == Fraction(874, 1000)
    assert sglang.default_fraction(1, "0.5.3", 81559) == Fraction(835, 1000)
    assert sglang.default_fraction(8, "0.5.3", 143771) == Fraction(897, 1000)
    # 0.5.0-0.5.2 still reserve by the GPU's size (0.5.0rc0 / 0.5.1 wheels; PR #10975 in 0.5.3):
    # (81,559 - 10 x 1,024) / 81,559 = 0.8744; (143,771 - 16 x 1,024) / 143,771 = 0.8860
    assert sglang.default_fraction(1, "0.5.1", 81559) == Fraction(874, 1000)
    assert sglang.default_fraction(8, "0.5.0", 143771) == Fraction(886, 1000)


def test_sglang_aiter_derates_the_fraction_above_8k_context():
    # tests/assets/logs/140 (SGLang 0.5.17, aiter backend, MI355X, --mem-fraction-static 0.6,
    # Qwen3-0.6B at its 40,960-token context): sglang PR #6564 multiplies the fraction by 0.85
    # above 8,192 tokens, so 286.05 - 287.26 x (1 - 0.51) = 145.29 GiB of 114,688 B tokens
    # = 1,360,2xx tokens (logged 1,360,288); at 0.6 it would be 171.15 GiB.
    m = Measured(free_before_load_bytes=gib(287.26), free_after_load_bytes=gib(286.05))
    mi355x = load_hardware("mi355x")
    s = EngineSettings(engine=Engine.sglang, version="0.5.17", memory_fraction=Fraction(6, 10),
                       attention_backend="aiter", measured=m)
    r = run_engine(req("qwen3-0.6b", ctx=40960, gpu=mi355x), s)
    assert abs(r.kv_cache_tokens - 1_360_288) <= 30
    assert any("0.51 (0.6 x 0.85)" in a for a in r.assumptions)
    # not derated: 8,192 tokens of context, another backend, or a release before 0.4.7
    for settings_, ctx in ((s, 8192), (replace(s, attention_backend="triton"), 40960),
                           (replace(s, version="0.4.6"), 40960)):
        r = run_engine(req("qwen3-0.6b", ctx=ctx, gpu=mi355x), settings_)
        assert abs(r.kv_cache_tokens - 1_602_317) <= 30  # 171.15 GiB / 114,688 B
    with pytest.raises(InputError, match="attention_backend applies only to sglang"):
        run_engine(req(), EngineSettings(engine=Engine.vllm, attention_backend="aiter"))


def test_sglang_mla_ranks_hold_the_down_projections_and_router_whole():
    # sglang models/deepseek_v2.py: q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear, the MoE
    # router (MoEGate) a bf16 nn.Parameter, so every TP rank holds them whole. DeepSeek-R1 (fp8):
    # 7,168 x (1,536 + 512 + 64) x 61 layers = 923,467,776 B of projections, less the 1/16 the
    # even split booked (57,716,736) -> 865,751,040 B at TP 16. Below 16 bits the modelled
    # weights already hold the router (256 x 7,168 x 58 MoE layers x 2 B = 212,860,928 B) whole
    # on every rank (common.ROUTER_BYTES, task h31fp8w), so the term no longer adds it; until
    # then it did: (923,467,776 + 106,430,464) x 1 B / 16 = 64,368,640 -> 1,071,960,064 B, and
    # the total is the same: 212,860,928 - 106,430,464 / 16 = 206,209,024 B moved.
    r1 = req("deepseek-r1", ctx=163840, tp=16, gpu=load_hardware("h20"), nodes=2)
    assert sglang.replicated_bytes(r1) == 865_751_040 == 1_071_960_064 - 206_209_024
    assert router_params(r1.model) * 2 == 212_860_928
    # Kimi-K2.5 (int4 experts, bf16 elsewhere) at TP 8: (923,467,776 + 165,150,720) x 2 B x 7/8
    k25 = req("kimi-k2.5", ctx=262144, tp=8, gpu=load_hardware("mi355x"))
    assert sglang.replicated_bytes(k25) == 1_905_082_368
    assert sglang.replicated_bytes(replace(r1, tp=1, nodes=None)) == 0
    assert sglang.replicated_bytes(req("llama-3.1-70b", tp=8)) == 0  # no MLA
    # it enters the modelled weights, not measured ones
    s = EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(93, 100))
    with_term = run_engine(r1, s).weights_bytes
    measured = run_engine(r1, replace(s, measured=Measured(weights_bytes=40 * GIB))).weights_bytes
    assert measured == 40 * GIB and with_term > 40 * GIB


def test_sglang_start_up_use_with_tensor_parallelism_by_interconnect():
    # fitted on log 03 (FITTED.tsv): 2,072 MiB on NVLink modules (H100 SXM label), 900 MiB on PCIe
    # cards, 400 MiB on one GPU
    s = EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(9, 10))
    steps = {st.label: st.value for st in run_engine(req("llama-3.1-70b", tp=4), s).steps}
    assert steps["start-up use"] == 2072 * 1024 * 1024
    pcie = run_engine(req("qwen2.5-32b", tp=4, gpu=load_hardware("rtx-3090")), s)
    assert {st.label: st.value for st in pcie.steps}["start-up use"] == 900 * 1024 * 1024
    one = run_engine(req("llama-3-8b"), s)
    assert {st.label: st.value for st in one.steps}["start-up use"] == 400 * 1024 * 1024
