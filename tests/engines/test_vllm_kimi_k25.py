"""Kimi-K2.5 (model_type kimi_k25) under vLLM, read from vLLM's own model file (task kimivllm).

vLLM ships vllm/model_executor/models/kimi_k25.py from 0.15.0 (the 0.14.1 wheel has kimi_vl.py
and kimi_linear.py only). It builds the text stack as DeepSeek-V2's over the config's
text_config: `DeepseekV2Model` in 0.15.0 (kimi_k25.py:343-350), `init_vllm_registered_model(
hf_config=config.text_config, architectures=["DeepseekV2ForCausalLM"])` from 0.16.0 (:385-390;
0.34.0 :376-380). deepseek_v2.py gives the MLA attention one get_rope over qk_rope_head_dim with
rope_type deepseek_yarn (0.15.0 :483-495, 0.34.0 :542-554), whose cache has
original_max_position_embeddings x factor rows (deepseek_scaling_rope.py).

Independent arithmetic from the checkpoint's config (tests/assets/hf_configs/kimi-k2.5.json,
text_config): rope_scaling yarn, factor 64, original_max_position_embeddings 4,096,
qk_rope_head_dim 64, served in bf16: 4,096 x 64 = 262,144 rows x 64 x 2 B = 33,554,432 B, one
cache a GPU whatever the TP size (get_rope's _ROPE_DICT), built while loading, so it leaves the
KV pool byte for byte under 0.34.0's extensible cache (its warm-up margin reads the activation
peak, not the weights).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.deploy.schema import Deployment
from kvplan.engines import Engine, EngineSettings, run_engine, vllm_rotary
from kvplan.engines.encoder_cache import MOONVIT_ROPE_BYTES, encoder_cache_note
from kvplan.engines.refusals import engine_refusals
from kvplan.engines.vllm_model_releases import release_refusal
from kvplan.engines.vllm_rotary import rotary_cache_bytes, rotary_cache_how, rotary_cache_note
from kvplan.specs import load_hardware, load_model

CONFIG = Path(__file__).parents[1] / "assets" / "hf_configs" / "kimi-k2.5.json"
RAW = json.loads(CONFIG.read_text())
TEXT = RAW["text_config"]
VISION = RAW["vision_config"]
ROWS = TEXT["rope_scaling"]["original_max_position_embeddings"] * int(
    TEXT["rope_scaling"]["factor"])
CACHE = ROWS * TEXT["qk_rope_head_dim"] * 2  # bf16
READ = ("0.15.0", "0.16.0", "0.19.1", "0.25.0", "0.30.0", "0.34.0")  # wheels read

KIMI = load_model("kimi-k2.5")
H200 = load_hardware("h200")


def test_the_config_gives_33_mib() -> None:
    assert (ROWS, TEXT["qk_rope_head_dim"], CACHE) == (262_144, 64, 33_554_432)


@pytest.mark.parametrize("version", READ)
def test_one_deepseek_yarn_cache_a_gpu_from_0_15(version: str) -> None:
    assert rotary_cache_bytes(KIMI, version) == CACHE
    assert rotary_cache_note(KIMI, version) is None
    assert "DeepSeek YaRN 4,096 x 64 = 262,144 positions x 64 x 2 B" in rotary_cache_how(
        KIMI, version)


def test_none_before_the_first_release_with_the_file() -> None:
    assert rotary_cache_bytes(KIMI, "0.14.1") == 0
    assert rotary_cache_note(KIMI, "0.14.1") == (
        "vLLM's rotary cos/sin cache (a buffer built while loading, 1-64 MiB for most models) is "
        "not booked: kimi_k25 has no vLLM model file before 0.15.0")


def _plan(version: str, tp: int = 8) -> tuple[int, int]:
    req = SizeRequest(model=KIMI, gpu=H200, tp=tp,
                      context_tokens=32_768, nodes=tp // 8)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version=version,
                                       memory_fraction=Fraction(9, 10)))
    return r.weights_bytes, r.kv_cache_bytes


@pytest.mark.parametrize(("version", "tp"), [("0.15.0", 8), ("0.19.1", 8), ("0.34.0", 8),
                                             ("0.34.0", 16)])
def test_weights_and_pool_move_by_the_cache_on_every_rank(
        version: str, tp: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kimi-K2.5 on H200 at TP 8 (and 16: the cache is not divided by TP), 32,768 tokens,
    utilization 0.9: the weights a GPU rise and the KV pool falls by exactly 33,554,432 B
    against the same plan without the cache (kimi_k25 taken out of the MLA table)."""
    weights, pool = _plan(version, tp)
    monkeypatch.setattr(vllm_rotary, "MLA_TYPES",
                        vllm_rotary.MLA_TYPES - {"kimi_k25"})
    weights0, pool0 = _plan(version, tp)
    assert weights - weights0 == CACHE
    assert pool0 - pool == CACHE


def test_cli_explain_books_it_at_tp8_on_h200() -> None:
    """`kvplan explain kimi-k2.5 --engine vllm --tp 8 --gpu h200 -c 32768` (0.34.0): weights
    76,009,517,820 B before the cache -> 76,043,072,252 B, KV cache memory 65,072,438,735 ->
    65,038,884,303 B; 64-token blocks of 61 x 64 x 1,152 B = 4,497,408 B: 14,468 -> 14,461
    blocks, 925,952 -> 925,504 tokens; no 'model file not read' note left. Task mmenc then books
    the vision tower's whole parts (tests/engines/test_vllm_kimi_tower.py, TOWER_EXTRA): weights
    + 104,761,888 B = 76,147,834,140 B, KV cache memory 64,934,122,415 B, 14,438 blocks, 924,032
    tokens."""
    result = CliRunner().invoke(app, ["explain", "kimi-k2.5", "--engine", "vllm", "--tp", "8",
                                      "--gpu", "h200", "-c", "32768"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert 76_009_517_820 + CACHE == 76_043_072_252
    tower = 104_761_888  # 59,863,936 whole params x 2 B x 7/8 (test_vllm_kimi_tower.py)
    assert 76_043_072_252 + tower == 76_147_834_140
    assert "(76,147,834,140 B)" in result.output
    assert 65_038_884_303 - tower == 64_934_122_415
    assert "(64,934,122,415 B)" in result.output
    assert 64_934_122_415 // 4_497_408 == 14_438
    assert "GPU KV cache size: 924,032 tokens" in result.output
    assert "model file not read" not in result.output


REFUSAL = ("vLLM 0.14.1 has no kimi_k25 model: model_executor/models/kimi_k25.py (architecture "
           "KimiK25ForConditionalGeneration) first ships in 0.15.0, and vLLM stops at start-up on "
           "an architecture its registry lacks; serve vLLM 0.15.0 or newer (--engine-version)")


def test_releases_before_0_15_are_refused_in_one_line() -> None:
    assert release_refusal("kimi_k25", "0.14.1") == REFUSAL
    assert release_refusal("kimi_k25", "0.15.0") is None
    assert release_refusal("kimi_k25", None) is None  # the default, 0.34.0
    assert release_refusal("deepseek_v3", "0.14.1") is None  # not tracked
    result = CliRunner().invoke(app, ["size", "kimi-k2.5", "--engine", "vllm", "--engine-version",
                                      "0.14.1", "--tp", "8", "--gpu", "h200", "-c", "32768"],
                                env={"COLUMNS": "400"})
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert REFUSAL in " ".join(result.output.split())


def test_check_fails_the_engine_version() -> None:
    def dep(version: str) -> Deployment:
        return Deployment.model_validate({
            "apiVersion": "kvplan/v1", "name": "t", "model": "kimi-k2.5",
            "hardware": {"gpu": "h200"}, "parallel": {"tensor": 8},
            "engine": {"name": "vllm", "version": version},
            "traffic": {"peak_concurrent_users": 1}})

    assert engine_refusals(KIMI, dep("0.14.1")) == [("engine.version", REFUSAL)]
    assert engine_refusals(KIMI, dep("0.15.0")) == []


def test_encoder_note_names_the_dummy_the_2d_rope_and_the_modality() -> None:
    """MoonViT's Rope2DPosEmbRepeated(head, 512, 512): 512 x 512 x head / 2 complex64 (8 B), head
    = vt_hidden_size / vt_num_attention_heads = 1,152 / 16 = 72 from the config: 75,497,472 B."""
    head = VISION["vt_hidden_size"] // VISION["vt_num_attention_heads"]
    assert MOONVIT_ROPE_BYTES == 512 * 512 * (head // 2) * 8 == 75_497_472
    note = encoder_cache_note(KIMI)
    assert note is not None
    assert "the larger of a 3,000 x 3,000 image and a video chunk" in note
    assert "2D rope buffer, 75,497,472 B a GPU" in note
    assert "--limit-mm-per-prompt '{\"vision_chunk\": 0}' or --language-model-only" in note
