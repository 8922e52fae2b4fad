"""vLLM's --disable-hybrid-kv-cache-manager (task h91fp8block, kvplan.engines.vllm_groups.unified):
every sliding-window layer cached as full attention beside full-attention ones, one KV-cache group
of every layer (vLLM 0.19.1 v1/core/kv_cache_utils.py:1160-1210 unify_hybrid_kv_cache_specs,
called from get_kv_cache_groups at :1235-1236; the flag from 0.9.1, arg_utils.py:856). The
figures are worked by hand from the pool the profile plans (the flag does not move the pool's
bytes, only how many tokens they hold) and the shapes of the configs (model_specs/*.yaml)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.engines import Engine, EngineResult, EngineSettings, vllm
from kvplan.engines.common import LayerShape
from kvplan.engines.vllm_flag_versions import missing_flags
from kvplan.engines.vllm_groups import unified, unify_refusal
from kvplan.specs import load_hardware, load_model


def _run(model: str, gpu: str, ctx: int, flag: bool | None) -> EngineResult:
    req = SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=ctx)
    return vllm.profile(req, EngineSettings(engine=Engine.vllm, version="0.19.1",
                                            disable_hybrid_kv_cache_manager=flag))


def test_gpt_oss_120b_one_group_of_36_layers() -> None:
    # gpt-oss-120b: 36 layers, 18 sliding (window 128) and 18 full; 8 KV heads x 64 x 2 (K, V)
    # x 2 B = 2,048 B a token a layer. Hybrid: groups of 18, a block id 16 x 18 x 2,048 =
    # 589,824 B; unified: one group of 36, 16 x 36 x 2,048 = 1,179,648 B
    hybrid = _run("gpt-oss-120b", "h200", 131_072, None)
    flat = _run("gpt-oss-120b", "h200", 131_072, True)
    pool = flat.kv_cache_bytes
    assert pool == hybrid.kv_cache_bytes == 61_378_958_720  # the pool itself does not move
    assert hybrid.blocks == pool // (16 * 18 * 2048) == 104_063
    assert flat.blocks == pool // (16 * 36 * 2048) == 52_031
    # a 131,072-token request takes 131,072 / 16 = 8,192 blocks of the one group
    assert flat.max_concurrency == __import__("fractions").Fraction(52_031, 8_192)
    assert f"{float(flat.max_concurrency):.2f}" == "6.35"  # hybrid: 11.94
    assert (hybrid.size.users_per_replica, flat.size.users_per_replica) == (11, 6)
    # vLLM 0.19.1's "GPU KV cache size" line: blocks // groups x 16 either way
    assert flat.kv_cache_tokens == hybrid.kv_cache_tokens == 52_031 * 16 == 832_496


def test_gemma_2_27b_at_its_8192_context() -> None:
    # 46 layers, 23 sliding (window 4,096) and 23 full; 16 KV heads x 128 x 2 x 2 B = 8,192 B
    # a token a layer; unified: 16 x 46 x 8,192 = 6,029,312 B a block
    flat = _run("gemma-2-27b", "h100", 8192, True)
    hybrid = _run("gemma-2-27b", "h100", 8192, None)
    assert flat.kv_cache_bytes == hybrid.kv_cache_bytes == 17_816_871_526
    assert flat.blocks == 17_816_871_526 // 6_029_312 == 2955
    # 8,192 / 16 = 512 blocks a request: 2,955 / 512 = 5.77, 5 sequences; the hybrid manager's
    # sliding group holds min(4,095 + 8,192 batched, 8,192) = 8,192 tokens + 1 block anyway,
    # so at this context the flag costs nothing (5,910 / (512 + 513) = 5.77 too)
    assert f"{float(flat.max_concurrency):.4f}" == "5.7715"
    assert f"{float(hybrid.max_concurrency):.4f}" == "5.7659"
    assert flat.size.users_per_replica == hybrid.size.users_per_replica == 5


def test_gemma_3_27b_no_longer_starts_at_128k_on_an_h100() -> None:
    # 62 layers, 52 sliding (window 1,024) and 10 full; unified: 16 x 62 x 8,192 = 8,126,464 B
    # a block; 16,916,629,894 // 8,126,464 = 2,081 blocks = 33,296 tokens, short of one
    # 131,072-token request (8,192 blocks): vLLM would not start; the hybrid manager holds 1
    flat = _run("gemma-3-27b", "h100", 131_072, True)
    hybrid = _run("gemma-3-27b", "h100", 131_072, None)
    assert flat.kv_cache_bytes == 16_916_629_894
    assert flat.blocks == 16_916_629_894 // 8_126_464 == 2081
    assert not flat.starts and flat.kv_cache_tokens == 2081 * 16 == 33_296
    assert hybrid.starts and hybrid.size.users_per_replica == 1


def test_a_stage_of_one_kind_and_v0_are_left_as_they_are() -> None:
    mixed = LayerShape(18, 18, 0, 2048, 128)
    assert unified(mixed, True, True) == LayerShape(36, 0, 0, 2048, None)
    assert unified(mixed, None, True) == mixed and unified(mixed, False, True) == mixed
    assert unified(mixed, True, False) == mixed  # V0: no hybrid manager to turn off
    only_sliding = LayerShape(0, 32, 0, 2048, 4096)  # is_kv_cache_spec_uniform: returns first
    assert unified(only_sliding, True, True) == only_sliding


def test_linear_attention_models_and_old_releases_are_refused() -> None:
    why = unify_refusal(load_model("qwen3-next-80b-a3b"))
    assert why is not None and "failed to convert the KV cache specs to one unified type" in why
    assert unify_refusal(load_model("gpt-oss-120b")) is None
    from kvplan.deploy.schema import Engine as Block

    old = Block.model_validate({"name": "vllm", "version": "0.9.0",
                                "disable_hybrid_kv_cache_manager": True})
    [(field, why)] = missing_flags(old)
    assert field == "engine.disable_hybrid_kv_cache_manager" and "first in 0.9.1" in why
    assert missing_flags(old.model_copy(update={"version": "0.9.1"})) == []


def test_settable_on_the_command_line_and_in_a_file(tmp_path) -> None:  # noqa: ANN001
    def users(*args: str) -> int:
        res = CliRunner().invoke(app, [*args, "--format", "json"])
        assert res.exit_code == 0, res.output
        return int(json.loads(res.output[res.output.index("{"):])["results"][0]["users_per_gpu"])
    base = ["size", "gpt-oss-120b", "--gpu", "h200", "--engine", "vllm",
            "--engine-version", "0.19.1"]
    assert users(*base) == 11
    assert users(*base, "--disable-hybrid-kv-cache-manager") == 6
    assert users(*base, "--no-disable-hybrid-kv-cache-manager") == 11
    spec = tmp_path / "d.yaml"
    spec.write_text("apiVersion: kvplan/v1\nname: d\nmodel: gpt-oss-120b\nhardware:\n  gpu: h200\n"
                    "engine:\n  name: vllm\n  version: 0.19.1\n"
                    "  disable_hybrid_kv_cache_manager: true\ntraffic:\n"
                    "  peak_concurrent_users: 1\n")
    assert users("size", str(spec)) == 6
    moot = CliRunner().invoke(app, ["size", "qwen3-8b", "--gpu", "h100", "--engine", "vllm",
                                    "--disable-hybrid-kv-cache-manager"])
    assert moot.exit_code == 2
    assert "has no sliding-window layers beside full-attention ones" in moot.output
