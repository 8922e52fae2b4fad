"""Model Runner V2's profiling sampler, bytes a logit by release (task h36samp, read in the vLLM
wheels 0.22.0-0.34.0): the fp32 copy of the logits is unconditional through 0.25
(`gpu/sample/sampler.py:157` in 0.24.0/0.25.0/0.25.1), gone from 0.26 for the dummy batch, whose
rows need no processing (0.26.0 works in place, `sampler.py:152-207`; 0.27.0 on return the logits
untouched, `sampler.py:155-156` in 0.27.1, `:192-193` in 0.28.0, `:218-219` in 0.29.0, `:235-236`
in 0.31.0), and 0.33 adds the warm-up pass (14 B, kvplan.engines.activation)."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.activation import (
    LEAN_SAMPLER_BYTES_PER_LOGIT,
    UNTOUCHED_SAMPLER_BYTES_PER_LOGIT,
)
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model

# Llama-3.1-8B (vocab 128,256; dense, so Model Runner V2 runs it from 0.23: vllm_series) on an
# L40S (< 70 GiB: 256 sequences) with 256 batched tokens: 256 sampler rows, 32,833,536 logits.
# forward 256 x (3 x 4,096 + 3 x 14,336) x 2 B = 256 x 55,296 x 2 = 28,311,552 B, under every
# sampler figure below; low int(0.85 x) = 24,064,819, high int(1.35 x) = 38,220,595.
LOGITS = 256 * 128_256  # 32,833,536
QUARTER_GIB = 268_435_456  # activation.COMPILE_SLACK, added to the high end


def _activation(version: str, tp: int = 1) -> tuple[int, int, int]:
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("l40s"),
                      context_tokens=8192, tp=tp)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version=version,
                                       max_num_batched_tokens=256))
    return r.activation_bytes, r.activation_bytes_low, r.activation_bytes_high


def test_the_constants_are_the_bytes_read_in_source() -> None:
    # 0.22-0.25: bf16 logits 2 B + their fp32 copy 4 B = 6 (4 low, 12 high); 0.26-0.32: the bf16
    # logits alone, 2 B (low 2), high the fp32 copy the same code makes for a row that needs
    # processing, 2 + 4 = 6
    assert LEAN_SAMPLER_BYTES_PER_LOGIT == (4, 6, 12)
    assert UNTOUCHED_SAMPLER_BYTES_PER_LOGIT == (2, 2, 6)
    assert [flavour(v).untouched_logits for v in (
        "0.24.0", "0.25.1", "0.26.0", "0.27.1", "0.32.0", "0.26.0-v0")] == [
        False, False, True, True, True, False]


def test_025_copies_the_logits_to_fp32() -> None:
    # 0.24.0 and 0.25.0: 32,833,536 x 6 B = 197,001,216 (best); low max(24,064,819, x 4 B =
    # 131,334,144) = 131,334,144; high max(38,220,595, x 12 B = 394,002,432) + 0.25 GiB
    # = 662,437,888
    for version in ("0.24.0", "0.25.0", "0.25.1"):
        assert _activation(version) == (197_001_216, 131_334_144, 662_437_888), version


def test_026_to_032_leave_the_bf16_logits_untouched() -> None:
    # 32,833,536 x 2 B = 65,667,072 (best and low, above the forward's 28,311,552 / 24,064,819);
    # high max(38,220,595, x 6 B = 197,001,216) + 0.25 GiB = 465,436,672
    for version in ("0.26.0", "0.27.1", "0.28.0", "0.29.0", "0.31.0"):
        assert _activation(version) == (65_667_072, 65_667_072, 465_436_672), version


def test_029_shards_the_untouched_logits_over_tp() -> None:
    # TP 2: 0.28 samples all 256 rows, 0.29 ceil(256 / 2) = 128 (batch-sharded sampling). The
    # forward at TP 2: 256 x (3 x 4,096 + 3 x 7,168) x 2 B = 256 x 33,792 x 2 = 17,301,504 B;
    # 0.28: 256 x 128,256 x 2 B = 65,667,072; 0.29: 128 x 128,256 x 2 B = 32,833,536
    assert _activation("0.28.0", tp=2)[0] == 65_667_072
    assert _activation("0.29.0", tp=2)[0] == 32_833_536


def test_033_warm_up_pass_still_sets_the_peak() -> None:
    # 0.33: the warm-up pass, 14 B (6-18): 459,669,504; low max(24,064,819, x 6 B =
    # 197,001,216); high x 18 B = 591,003,648 + 0.25 GiB = 859,439,104
    assert _activation("0.33.0") == (459_669_504, 197_001_216, 859_439_104)
