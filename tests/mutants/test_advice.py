"""What `advise` offers when nothing fits, against its rules: an fp8 retry only for weights or
a cache wider than 8 bits, and only a GPU with more memory.

The sizer is a parameter (the plain arithmetic or an engine profile). An engine can price two
8-bit formats differently (kvplan/engines/common.py: int8 checkpoints keep extra scale bits,
fp8 none), so these tests use a sizer that holds users only under the retried setting: the
rule, not the arithmetic, decides which tips appear.
"""

from __future__ import annotations

from dataclasses import replace

from kvplan.capacity import SizeRequest, SizeResult, advise, size
from kvplan.specs import load_hardware, load_model
from kvplan.units import MIB, DType

LLAMA = load_model("llama-3-8b")
H100 = load_hardware("h100")
# a 50 MiB pool holds no 8,192-token sequence, even at TP 8 or 16 (one KV head a rank: 128 MiB
# in fp16, 64 MiB in 8 bits)
NONE_FIT = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=50 * MIB)


def holds_one_when(pred):  # noqa: ANN001, ANN201
    def sizer(r: SizeRequest) -> SizeResult:
        res = size(r)
        return replace(res, users_per_replica=1, fits=True) if pred(r) else res
    return sizer


def test_no_fp8_weights_tip_for_8_bit_weights():
    req = replace(NONE_FIT, weight_dtype=DType.int8, tp=8)  # TP 8: no wider TP is tried first
    sizer = holds_one_when(lambda r: r.effective_weight_dtype is DType.fp8 and r.tp == 8)
    assert not sizer(req).fits
    tips = advise(sizer(req), [], sizer).suggestions
    assert not any(t.startswith("--weight-dtype") for t in tips), tips
    # bf16 weights (16 bits) do get it
    tips = advise(sizer(replace(req, weight_dtype=None)), [], sizer).suggestions
    assert "--weight-dtype fp8: 1 users per replica of 8 GPU(s)" in tips


def test_no_fp8_cache_tip_for_an_8_bit_cache():
    req = replace(NONE_FIT, kv_dtype=DType.int8, tp=8)
    sizer = holds_one_when(lambda r: r.kv_dtype is DType.fp8 and r.tp == 8)
    assert not sizer(req).fits
    tips = advise(sizer(req), [], sizer).suggestions
    assert not any(t.startswith("--kv-dtype") for t in tips), tips
    tips = advise(sizer(replace(req, kv_dtype=DType.fp16)), [], sizer).suggestions
    assert "--kv-dtype fp8: 1 users per replica of 8 GPU(s)" in tips


def test_only_a_gpu_with_more_memory_is_offered():
    twin = H100.model_copy(update={"name": "h100-twin"})  # the same memory, another name
    bigger = H100.model_copy(update={"name": "h100-bigger", "memory_bytes": H100.memory_bytes + 1})
    req = replace(NONE_FIT, tp=8)
    sizer = holds_one_when(lambda r: r.gpu.name in ("h100-twin", "h100-bigger") and r.tp == 8)
    assert not sizer(req).fits
    tips = advise(sizer(req), [twin], sizer).suggestions
    assert not any(t.startswith("--gpu") for t in tips), tips
    tips = advise(sizer(req), [twin, bigger], sizer).suggestions
    assert "--gpu h100-bigger: 1 users per replica of 8 GPU(s)" in tips
