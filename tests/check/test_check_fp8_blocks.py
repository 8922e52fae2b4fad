"""The block-fp8 TP rule (task h91fp8block, kvplan.engines.fp8_blocks) through `kvplan check`,
`size` and `fleet --search`: outcome 93 (sgl-project/sglang#5858, Qwen3-235B-A22B-FP8 at TP 8)
FAILs with SGLang's own message; outcome 92's fix no longer offers that TP; expert parallelism
as wide as TP (vLLM --enable-expert-parallel at one data-parallel rank, SGLang --enable-ep-moe,
server_args.py:202-203 in 0.4.6.post1) keeps every expert whole, so the server starts."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app
from tests.check.test_check_outcomes import OUTCOMES, one, pool_tokens

ASSETS_CHECK = Path(__file__).parents[1] / "assets" / "check"

MOE_192 = ("\"The output_size of gate's and up's weight = 192 is not divisible by weight "
           "quantization block_n = 128.\"")  # 1,536 / 8 = 192, 192 % 128 = 64
S93 = "93-sglang-qwen3-235b-a22b-fp8-tp8-48gb-block-fp8-failed"
S92 = "92-sglang-qwen3-235b-a22b-fp8-tp4-48gb-not-enough-memory"


def _script(tmp: Path, line: str, gpu: str = "l20") -> Path:
    (tmp / "s.sh").write_text(line + "\n")
    (tmp / "s.kvplan.yaml").write_text(f"gpu: {gpu}\n")
    return tmp / "s.sh"


def test_outcome_93_fails_with_the_engines_message_and_arithmetic() -> None:
    got = one(OUTCOMES / f"{S93}.sh")
    assert got.verdict == "FAIL"
    [why] = got.reasons
    assert why.startswith(f"SGLang would not start: {MOE_192}")
    assert "srt/layers/quantization/fp8.py" in why
    assert "tensor parallel size 8 splits a block: each expert's gate/up (1,536 / 8) 192 % " \
           "block_n 128 = 64" in why
    assert any(n.startswith("not checked: the weights and the KV pool") for n in got.notes)


def test_outcome_92s_fix_does_not_offer_the_refused_tp() -> None:
    got = one(OUTCOMES / f"{S92}.sh")
    assert got.verdict == "FAIL"
    # before the rule: the GPU l20 -> h100-pcie-80gb, or tp 4 -> 8 on 8 GPUs (SGLang refuses it)
    assert [(f.change, f.new) for f in got.fixes] == [("bigger_gpu", {"gpu": "h100-pcie-80gb"})]


def test_sglang_enable_ep_moe_keeps_the_experts_whole(tmp_path: Path) -> None:
    cmd = ("docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m "
           "sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 8")
    plain = one(_script(tmp_path, cmd))
    assert plain.verdict == "FAIL" and plain.engine_version == "0.4.6.post1"
    assert plain.reasons[0].startswith(f"SGLang 0.4.6.post1 would not start: {MOE_192}")
    ep = one(_script(tmp_path, cmd + " --enable-ep-moe"))
    assert ep.verdict == "PASS"
    assert pool_tokens(ep) == 166_581  # as TP 8 planned before the rule: the same bytes
    assert any(n.startswith("--enable-ep-moe: expert parallel size 8") for n in ep.notes)


def test_vllm_enable_expert_parallel_keeps_the_experts_whole(tmp_path: Path) -> None:
    cmd = "vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 8"
    plain = one(_script(tmp_path, cmd, "h100"))
    assert plain.verdict == "FAIL"
    assert plain.reasons[0].startswith(f"vLLM would not start: {MOE_192}")
    ep = one(_script(tmp_path, cmd + " --enable-expert-parallel", "h100"))
    assert ep.verdict == "PASS"


def test_size_notes_the_refusal_and_plans_as_if_it_started() -> None:
    res = CliRunner().invoke(app, ["size", "qwen3-235b-a22b-fp8", "--gpu", "h100", "--tp", "8",
                                   "--engine", "sglang", "--engine-version", "0.4.6.post1"])
    assert res.exit_code == 0, res.output
    assert f"SGLang 0.4.6.post1 would not start: {MOE_192}" in res.output
    assert "planned as if it started (`kvplan check` FAILs such a deployment)" in res.output
    ok = CliRunner().invoke(app, ["size", "qwen3-235b-a22b-fp8", "--gpu", "h100", "--tp", "4",
                                  "--engine", "sglang"])
    assert ok.exit_code == 0 and "would not start" not in ok.output
    # --ep 8 at --tp 8 is not moot for a block-fp8 checkpoint: it keeps the experts whole
    ep = CliRunner().invoke(app, ["size", "qwen3-235b-a22b-fp8", "--gpu", "h100", "--tp", "8",
                                  "--ep", "8", "--engine", "sglang"])
    assert ep.exit_code == 0 and "would not start" not in ep.output, ep.output
    moot = CliRunner().invoke(app, ["size", "qwen3-235b-a22b", "--gpu", "h200", "--tp", "8",
                                    "--ep", "8", "--engine", "sglang"])
    assert moot.exit_code == 2 and "the memory plan is the same" in moot.output


def test_fleet_search_rejects_the_refused_tp(tmp_path: Path) -> None:
    spec = tmp_path / "q.yaml"
    spec.write_text("apiVersion: kvplan/v1\nname: q\nmodel: qwen3-235b-a22b-fp8\n"
                    "hardware:\n  gpu: h200\nengine:\n  name: sglang\n  version: 0.4.6.post1\n"
                    "  max_model_len: 32768\ntraffic:\n  peak_concurrent_users: 100\n"
                    "  context_tokens:\n    mean: 4000\n")
    res = CliRunner().invoke(app, ["fleet", str(spec), "--search", "--search-gpus", "h200",
                                   "--tp", "4,8", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output[res.output.index("{"):])
    assert {r["tp"] for r in data["results"]} == {4}
    rejected = [r for r in data["rejected"] if r["tp"] == 8]
    assert len(rejected) == 2  # fp16 and fp8 caches
    assert all(r["reason"].startswith(f"SGLang 0.4.6.post1 would not start: {MOE_192}")
               for r in rejected)


def _ome_kimi(runtime: Path) -> list:
    from kvplan.check import check_paths

    model = ASSETS_CHECK / "ome-kimi" / "basemodel-kimi-k2-instruct.yaml"
    return [o for o in check_paths([str(runtime), str(model)]).outcomes if o.verdict != "SKIP"]


def test_data_parallel_attention_checks_the_engines_own_shards(tmp_path: Path) -> None:
    """sgl-project/ome's Kimi-K2 PD runtime (prefill TP 32 over 4 pods, decode TP 96 over 12,
    each --dp-size = TP with --enable-dp-attention, --moe-dense-tp-size 1, --enable-deepep-moe):
    attention runs at tp / dp = 1 GPU, the dense MLP whole (--moe-dense-tp-size 1), the shared
    experts whole and every expert whole on one GPU (DeepEP: ep = tp), so no shard splits a
    block (kvplan.engines.sglang_dp; task h100sgldp). The rule at the plain TP-32 shards (18,432
    / 32 = 576, 576 % 128 = 64) was a false FAIL when it landed, then a note; TP 96 was never
    refused because 64 heads % 96 stopped the rule before it looked. Without the two flags the
    prefill is SGLang's refusal: its dense MLP at 576 and experts at 2,048 / 32 = 64."""
    runtime = ASSETS_CHECK / "corpus" / "ome" / "srt-kimi-k2-pd-rt.yaml"
    engine, decoder = _ome_kimi(runtime)
    assert [(o.name, o.verdict, o.model) for o in (engine, decoder)] == [
        ("engine", "WARN", "kimi-k2"), ("decoder", "WARN", "kimi-k2")]
    assert not any("block-fp8" in n for o in (engine, decoder) for n in o.notes)
    text = runtime.read_text()
    for flag in ("          - --moe-dense-tp-size\n          - \"1\"\n",
                 "          - --enable-deepep-moe\n"):
        assert text.count(flag) >= 3  # the prefill leader and worker, the decode engine
        text = text.replace(flag, "")
    stripped = tmp_path / "srt-kimi-k2-pd-rt.yaml"
    stripped.write_text(text)
    engine, decoder = _ome_kimi(stripped)
    assert engine.verdict == decoder.verdict == "FAIL"
    assert engine.reasons[0].startswith("SGLang would not start: \"Weight output_partition_size "
                                        "= 576 is not divisible by weight quantization block_n "
                                        "= 128.\"")
    # the decode engine at TP 96: the dense MLP (18,432 / 96 = 192) splits first
    assert decoder.reasons[0].startswith("SGLang would not start: \"Weight output_partition_size "
                                         "= 192 is not divisible")


def test_sglang_dp_attention_and_deepep_read_from_a_command_line(tmp_path: Path) -> None:
    """Outcome 93's model and TP on SGLang 0.5.5 with --enable-dp-attention --dp-size 8,
    --moe-a2a-backend deepep and --enable-dp-lm-head (kvplan.engines.sglang_dp): DeepEP keeps each
    expert whole (ep = tp), attention at one GPU builds qkv_proj as [8,192, 512, 512], so it
    starts; each of the 8 ranks has its own pool, so the replica holds 8 x (pool // 40,960)."""
    cmd = ("docker run --gpus all lmsysorg/sglang:v0.5.5 python3 -m sglang.launch_server "
           "--model-path Qwen/Qwen3-235B-A22B-FP8 --tp 8")
    plain = one(_script(tmp_path, cmd, "h200"))
    assert plain.verdict == "FAIL" and plain.reasons[0].startswith(
        f"SGLang 0.5.5 would not start: {MOE_192}")
    dp = one(_script(tmp_path, cmd + " --enable-dp-attention --dp-size 8 --moe-a2a-backend "
                     "deepep --enable-dp-lm-head", "h200"))
    assert dp.verdict == "PASS", dp.reasons
    tokens = pool_tokens(dp)
    assert tokens is not None and f"holds {8 * (tokens // 40_960)} sequences of 40,960" in \
        (dp.summary or "")
