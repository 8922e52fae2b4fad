"""Kimi-K2.5's vision tower under vLLM: the parts held whole on every TP rank (task mmenc).

Read in kimi_k25_vit.py (0.15.0-0.34.0 wheels, kvplan.engines.vision_replicated): vLLM shards
only each block's wqkv, wo, fc0 and fc1 weights (wqkv's and fc0's biases with them); the patch
Conv2d, the position table, the LayerNorms, the row-parallel biases (RowParallelLinear keeps
`torch.empty(self.output_size)`, layers/linear.py:1386 in 0.15.0) and the projector's
ReplicatedLinears are whole on every rank. The counts below are taken from the checkpoint's
config (tests/assets/hf_configs/kimi-k2.5.json vision_config and text_config.hidden_size), layer
by layer, apart from the module under test.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine, vision_replicated
from kvplan.engines.vision_replicated import tower_extra_bytes, whole_params
from kvplan.specs import load_hardware, load_model

RAW = json.loads((Path(__file__).parents[1] / "assets" / "hf_configs" / "kimi-k2.5.json")
                 .read_text())
V, TEXT_HIDDEN = RAW["vision_config"], RAW["text_config"]["hidden_size"]
D, INTER, L = V["vt_hidden_size"], V["vt_intermediate_size"], V["vt_num_hidden_layers"]
P, MM = V["patch_size"], V["mm_hidden_size"]
KH, KW = V["merge_kernel_size"]

# Whole on every rank.
CONV = 3 * P * P * D + D  # 678,528
POS = V["init_pos_emb_height"] * V["init_pos_emb_width"] * D  # 4,718,592
NORMS = L * 2 * (D + D) + (D + D)  # norm0/norm1 a block and the final LayerNorm: 126,720
ROW_BIASES = L * (D + D)  # wo and fc1 biases: 62,208
PROJ = (MM + MM) + (MM * KH * KW) ** 2 + MM * KH * KW + MM * KH * KW * TEXT_HIDDEN + TEXT_HIDDEN
WHOLE = CONV + POS + NORMS + ROW_BIASES + PROJ
# Sharded by TP: wqkv (weight, bias), wo weight, fc0 (weight, bias), fc1 weight.
SHARDED = L * ((D * 3 * D + 3 * D) + D * D + (D * INTER + INTER) + INTER * D)

KIMI = load_model("kimi-k2.5")
H200 = load_hardware("h200")


def test_counts_from_the_config() -> None:
    assert PROJ == 54_277_888  # pre_norm 2,304 + 4,608 x 4,608 + 4,608 + 4,608 x 7,168 + 7,168
    assert WHOLE == 59_863_936
    assert SHARDED == 411_279_984
    assert WHOLE + SHARDED == KIMI.params_encoder == 471_143_920


@pytest.mark.parametrize("version", ["0.15.0", "0.19.1", "0.27.1", "0.34.0"])
def test_whole_params_on_releases_read(version: str) -> None:
    req = SizeRequest(model=KIMI, gpu=H200, tp=8, context_tokens=32_768)
    assert whole_params(req, version) == WHOLE


@pytest.mark.parametrize(("tp", "pp"), [(8, 1), (16, 1), (8, 2), (2, 1)])
def test_extra_bytes_a_gpu(tp: int, pp: int) -> None:
    """bf16 (both checkpoints leave the tower unquantized): a GPU holds SHARDED x 2 / tp + WHOLE
    x 2 (the tower is on every pipeline stage); kvplan had booked params_encoder x 2 / (tp x pp).
    TP 8: 102,819,996 + 119,727,872 - 117,785,980 = 104,761,888 B."""
    req = SizeRequest(model=KIMI, gpu=H200, tp=tp, pp=pp, context_tokens=32_768)
    held = SHARDED * 2 // tp + WHOLE * 2
    booked = (SHARDED + WHOLE) * 2 // (tp * pp)
    assert tower_extra_bytes(req, "0.34.0") == held - booked
    if (tp, pp) == (8, 1):
        assert held - booked == 104_761_888


def test_none_at_tp1_before_0_15_or_on_another_tower() -> None:
    one = SizeRequest(model=KIMI, gpu=H200, tp=1, context_tokens=32_768)
    assert tower_extra_bytes(one, "0.34.0") == 0
    eight = SizeRequest(model=KIMI, gpu=H200, tp=8, context_tokens=32_768)
    assert tower_extra_bytes(eight, "0.14.1") == 0
    other = SizeRequest(model=KIMI.model_copy(update={"params_encoder": 400_000_000}), gpu=H200,
                        tp=8, context_tokens=32_768)
    assert tower_extra_bytes(other, "0.34.0") == 0


def test_plan_weights_and_pool_move_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kimi-K2.5 on H200, TP 8, 32,768 tokens, 0.34.0: weights rise and the KV pool falls by
    exactly the extra bytes, against the same plan with the table emptied."""
    req = SizeRequest(model=KIMI, gpu=H200, tp=8, context_tokens=32_768)
    s = EngineSettings(engine=Engine.vllm, version="0.34.0", memory_fraction=Fraction(9, 10))
    r = run_engine(req, s)
    monkeypatch.setattr(vision_replicated, "WHOLE", {})
    r0 = run_engine(req, s)
    assert r.weights_bytes - r0.weights_bytes == 104_761_888
    assert r0.kv_cache_bytes - r.kv_cache_bytes == 104_761_888


def test_every_pipeline_stage_holds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """TP 8 x PP 2 on H100 (vLLM 0.18.0, outcome 78's layout): the tower is built on both
    stages, so the limiting stage's weights rise by the tower's bytes whole, not by a layer
    share of them: 411,279,984 x 2 // 8 + 59,863,936 x 2 - 471,143,920 x 2 // 16 = 163,654,878 B."""
    req = SizeRequest(model=KIMI, gpu=load_hardware("h100"), tp=8, pp=2,
                      context_tokens=262_144, nodes=2)
    s = EngineSettings(engine=Engine.vllm, version="0.18.0")
    r = run_engine(req, s)
    monkeypatch.setattr(vision_replicated, "WHOLE", {})
    r0 = run_engine(req, s)
    assert SHARDED * 2 // 8 + WHOLE * 2 - (SHARDED + WHOLE) * 2 // 16 == 163_654_878
    assert r.weights_bytes - r0.weights_bytes == 163_654_878
    assert r0.kv_cache_bytes - r.kv_cache_bytes == 163_654_878
