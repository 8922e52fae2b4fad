"""Every flag of size, fleet and explain against a deployment file: the flag sets its field, and
the JSON equals the JSON of the same file with that field edited by hand (or it is refused)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.plan.fields import FLAGS, OUTPUT_FLAGS, PRICE_FLAGS
from tests.conftest import ok_results

BASE: dict[str, Any] = {
    "apiVersion": "kvplan/v1",
    "name": "base",
    "model": "llama-3-8b",
    "hardware": {"gpu": "h100"},
    "engine": {"name": "vllm", "max_model_len": 8192},
    "traffic": {"peak_concurrent_users": 2000, "context_tokens": {"mean": 2000}},
}

# flag(s) -> the edit to the file written out by hand: (dotted field, value); None deletes it
CASES: dict[str, tuple[list[str], list[tuple[str, Any]]]] = {
    "--gpu": (["--gpu", "h200"], [("hardware.gpu", "h200")]),
    "--context": (["--context", "4096"], [("engine.max_model_len", 4096)]),
    "--max-model-len": (["--max-model-len", "4096"], [("engine.max_model_len", 4096)]),
    "--avg-context": (["--avg-context", "1500"], [("traffic.context_tokens.mean", 1500)]),
    "--kv-dtype": (["--kv-dtype", "fp8"], [("engine.kv_cache_dtype", "fp8")]),
    "--weight-dtype": (["--weight-dtype", "fp8"], [("engine.weight_dtype", "fp8")]),
    "--allocation": (["--allocation", "reserved"], [("engine.allocation", "reserved")]),
    "--block-size": (["--block-size", "32"], [("engine.block_size", 32)]),
    # only an int4 cache has groups (alone it is refused: tests/options/test_option_walk.py)
    # 96: two groups a 128-value vector, the bytes of vLLM's int4_per_token_head (BASE is a vLLM
    # record; 32 is refused there: tests/engines/test_kv_int_engines.py)
    "--kv-group-size": (["--kv-group-size", "96", "--kv-dtype", "int4"],
                        [("engine.kv_group_size", 96), ("engine.kv_cache_dtype", "int4")]),
    "--tp": (["--tp", "2"], [("parallel.tensor", 2)]),
    "--pp": (["--pp", "2"], [("parallel.pipeline", 2)]),
    "--nodes": (["--nodes", "2", "--tp", "2"], [("parallel.nodes", 2), ("parallel.tensor", 2)]),
    "--memory-utilization": (["--memory-utilization", "0.8"],
                             [("engine.gpu_memory_utilization", 0.8)]),
    "--reserve-gib": (["--reserve-gib", "4"], [("engine.reserve_gib", 4.0)]),
    "--kv-budget-gib": (["--kv-budget-gib", "40"], [("engine.kv_budget_gib", 40.0)]),
    "--shared-prefix-tokens": (["--shared-prefix-tokens", "512"],
                               [("traffic.shared_prefix_tokens", 512),
                                ("engine.enable_prefix_caching", True)]),
    "--engine": (["--engine", "sglang"], [("engine.name", "sglang")]),
    "--engine-version": (["--engine-version", "0.10.2"], [("engine.version", "0.10.2")]),
    "--max-num-batched-tokens": (["--max-num-batched-tokens", "4096"],
                                 [("engine.max_num_batched_tokens", 4096)]),
    "--max-num-seqs": (["--max-num-seqs", "64"], [("engine.max_num_seqs", 64)]),
    "--peak-users": (["--peak-users", "3000"], [("traffic.peak_concurrent_users", 3000)]),
    "--arrival-rate": (["--arrival-rate", "10", "--mean-duration-s", "300"],
                       [("traffic.peak_concurrent_users", None),
                        ("traffic.arrival_rate_per_s", 10.0), ("traffic.mean_duration_s", 300.0)]),
    "--mean-duration-s": (["--mean-duration-s", "120", "--arrival-rate", "5"],
                          [("traffic.peak_concurrent_users", None),
                           ("traffic.arrival_rate_per_s", 5.0),
                           ("traffic.mean_duration_s", 120.0)]),
    "--peak-to-mean": (["--peak-to-mean", "1.5", "--arrival-rate", "10", "--mean-duration-s",
                        "300"], [("traffic.peak_to_mean", 1.5),
                                 ("traffic.peak_concurrent_users", None),
                                 ("traffic.arrival_rate_per_s", 10.0),
                                 ("traffic.mean_duration_s", 300.0)]),
    "--context-p50": (["--context-p50", "1200"], [("traffic.context_tokens.p50", 1200)]),
    "--context-p95": (["--context-p95", "6000"], [("traffic.context_tokens.p95", 6000)]),
    "--context-p99": (["--context-p99", "7000"], [("traffic.context_tokens.p99", 7000)]),
    "--context-sample": (["--context-sample", "SAMPLE"],
                         [("traffic.context_tokens.sample", "SAMPLE")]),
    "--risk": (["--risk", "0.05", "--context-p95", "6000"],
               [("traffic.risk", 0.05), ("traffic.context_tokens.p95", 6000)]),
    "--min-tokens-per-s-per-user": (["--min-tokens-per-s-per-user", "60"],
                                    [("traffic.min_tokens_per_s_per_user", 60.0)]),
    "--prompt-tokens": (["--prompt-tokens", "500"], [("traffic.prompt_tokens", 500)]),
    "--headroom": (["--headroom", "0.2"], [("requirement.headroom_pct", 20.0)]),  # 0.2 = 20 %
    "--min-users": (["--min-users", "2500"], [("requirement.min_users", 2500)]),
    "--bandwidth-efficiency": (["--bandwidth-efficiency", "0.8"],
                               [("hardware.bandwidth_efficiency", 0.8)]),
    "--flops-efficiency": (["--flops-efficiency", "0.5"], [("hardware.flops_efficiency", 0.5)]),
    "--price-per-hour": (["--price-per-hour", "3"], [("hardware.price_per_hour_usd", 3.0)]),
    "--ep": (["--ep", "2"], [("parallel.expert", 2)]),
    "--enforce-eager": (["--enforce-eager"], [("engine.enforce_eager", True)]),
    "--kv-cache-memory-bytes": (["--kv-cache-memory-bytes", "10737418240"],
                                [("engine.kv_cache_memory_bytes", 10737418240)]),
    "--cpu-offload-gb": (["--cpu-offload-gb", "2"], [("engine.cpu_offload_gb", 2.0)]),
    "--limit-mm-per-prompt": (["--limit-mm-per-prompt", "1"],
                              [("engine.limit_mm_per_prompt", 1)]),
    "--speculative-model": (["--speculative-model", "llama-3.2-1b", "--num-speculative-tokens",
                             "4"], [("engine.speculative_model", "llama-3.2-1b"),
                                    ("engine.num_speculative_tokens", 4)]),
    "--num-speculative-tokens": (["--num-speculative-tokens", "4", "--speculative-model",
                                  "llama-3.2-1b"], [("engine.num_speculative_tokens", 4),
                                                    ("engine.speculative_model", "llama-3.2-1b")]),
    "--speculative-config": (["--speculative-config",
                              '{"model": "llama-3.2-1b", "num_speculative_tokens": 4}'],
                             [("engine.speculative_model", "llama-3.2-1b"),
                              ("engine.num_speculative_tokens", 4)]),
    # other engines' settings and spellings: refused on the vLLM base (REFUSED); applied in
    # tests/record/test_engine_flag_records.py on SGLang and TensorRT-LLM bases
    "--page-size": (["--page-size", "32"], [("engine.block_size", 32)]),
    "--chunked-prefill-size": (["--chunked-prefill-size", "4096"],
                               [("engine.max_num_batched_tokens", 4096)]),
    "--cuda-graph-max-bs": (["--cuda-graph-max-bs", "64"], [("engine.cuda_graph_max_bs", 64)]),
    "--max-running-requests": (["--max-running-requests", "8"], [("engine.max_num_seqs", 8)]),
    "--max-total-tokens": (["--max-total-tokens", "100000"],
                           [("engine.max_total_tokens", 100000)]),
    "--attention-backend": (["--attention-backend", "aiter"],
                            [("engine.attention_backend", "aiter")]),
    "--mm-feature-transport": (["--mm-feature-transport", "cuda_ipc"],
                               [("engine.mm_feature_transport", "cuda_ipc")]),
    "--speculative-algorithm": (["--speculative-algorithm", "NGRAM"],
                                [("engine.speculative_algorithm", "NGRAM")]),
    "--attention-dp": (["--attention-dp", "2", "--tp", "2"],
                       [("parallel.attention_dp", 2), ("parallel.tensor", 2)]),
    "--moe-dense-tp-size": (["--moe-dense-tp-size", "1"], [("engine.moe_dense_tp_size", 1)]),
    "--enable-dp-lm-head": (["--enable-dp-lm-head"], [("engine.enable_dp_lm_head", True)]),
    "--moe-a2a-backend": (["--moe-a2a-backend", "deepep"],
                          [("engine.moe_a2a_backend", "deepep")]),
    "--speculative-num-steps": (["--speculative-num-steps", "3"],
                                [("engine.speculative_num_steps", 3)]),
    "--speculative-eagle-topk": (["--speculative-eagle-topk", "1"],
                                 [("engine.speculative_eagle_topk", 1)]),
    "--speculative-num-draft-tokens": (["--speculative-num-draft-tokens", "4"],
                                       [("engine.speculative_num_draft_tokens", 4)]),
    # the TP transport moves vLLM's term only with tensor parallelism (at TP 1 it is refused)
    "--tp-transport": (["--tp-transport", "host", "--tp", "2"],
                       [("engine.tp_transport", "host"), ("parallel.tensor", 2)]),
    "--disable-custom-all-reduce": (["--disable-custom-all-reduce", "--tp", "2"],
                                    [("engine.disable_custom_all_reduce", True),
                                     ("parallel.tensor", 2)]),
    # the sampler path moves vLLM's pool only in the 0.10 series (elsewhere it is refused)
    "--topk-topp-sampler": (["--topk-topp-sampler", "flashinfer", "--engine-version", "0.10.0"],
                            [("engine.topk_topp_sampler", "flashinfer"),
                             ("engine.version", "0.10.0")]),
    # the offline LLM class's batch (16,384 tokens on the H100): a stated setting, named in the plan
    "--entrypoint": (["--entrypoint", "offline"], [("engine.entrypoint", "offline")]),
    # vLLM 0.34 (the default release): off sizes the pool as 0.33 did, at 0.92 utilization
    # (tests/engines/test_extensible_kv_cache_flag.py); its on spelling is 0.34's default
    # refused on the base (llama-3-8b has no sliding layers: REFUSED)
    "--disable-hybrid-kv-cache-manager": (["--disable-hybrid-kv-cache-manager"],
                                          [("engine.disable_hybrid_kv_cache_manager", True)]),
    # refused on the base (llama-3-8b has no chunked local attention: REFUSED)
    "--chunked-local-hybrid": (["--chunked-local-hybrid"],
                               [("engine.chunked_local_hybrid", True)]),
    "--enable-extensible-kv-cache": (["--no-enable-extensible-kv-cache"],
                                     [("engine.enable_extensible_kv_cache", False)]),
    # stated CUDA-graph capture (task h43capsz; tests/engines/test_vllm_capture_stated.py)
    "--cudagraph-capture-sizes": (["--cudagraph-capture-sizes", "1,2,4"],
                                  [("engine.cudagraph_capture_sizes", "1,2,4")]),
    "--max-cudagraph-capture-size": (["--max-cudagraph-capture-size", "64"],
                                     [("engine.max_cudagraph_capture_size", 64)]),
    "--cudagraph-mode": (["--cudagraph-mode", "PIECEWISE"], [("engine.cudagraph_mode", "PIECEWISE")]),
    "--max-batch-size": (["--max-batch-size", "8"], [("engine.max_num_seqs", 8)]),
    "--max-num-tokens": (["--max-num-tokens", "4096"], [("engine.max_num_batched_tokens", 4096)]),
    "--max-seq-len": (["--max-seq-len", "4096"], [("engine.max_model_len", 4096)]),
    "--tokens-per-block": (["--tokens-per-block", "64"], [("engine.block_size", 64)]),
    "--free-gpu-memory-fraction": (["--free-gpu-memory-fraction", "0.8"],
                                   [("engine.gpu_memory_utilization", 0.8)]),
    "--max-tokens-in-paged-kv-cache": (["--max-tokens-in-paged-kv-cache", "100000"],
                                       [("engine.max_tokens_in_paged_kv_cache", 100000)]),
    "--trtllm-config": (["--trtllm-config", "TRTCONFIG"], [("engine.trtllm_config", "TRTCONFIG")]),
    "--trtllm-backend": (["--trtllm-backend", "tensorrt"], [("engine.trtllm_backend", "tensorrt")]),
    "--trt-activation-bytes": (["--trt-activation-bytes", "1811942912"],
                               [("engine.trt_activation_bytes", 1811942912)]),
    "--prices": (["--prices", "PRICES"], [("hardware.price_per_hour_usd", 2.5)]),
}
# flags whose change shows in fleet's JSON but not in size's (size plans one replica, no load)
FLEET_ONLY_EFFECT = {"--peak-users", "--arrival-rate", "--mean-duration-s", "--peak-to-mean",
                     "--risk", "--min-tokens-per-s-per-user", "--prompt-tokens", "--headroom",
                     "--min-users", "--bandwidth-efficiency", "--flops-efficiency",
                     "--price-per-hour", "--prices", "--context-p50", "--context-p95",
                     "--context-p99", "--context-sample"}
# refused on the base file (engine vllm), with the reason
REFUSED = {
    "--reserve-gib": "engine.name vllm (--reserve-gib): the vllm profile sets this itself",
    # moot on a model without sliding-window layers (gpt-oss: tests/engines/
    # test_vllm_disable_hybrid.py)
    "--chunked-local-hybrid": "llama-3-8b has no chunked local attention",
    "--disable-hybrid-kv-cache-manager": "llama-3-8b has no sliding-window layers beside "
                                         "full-attention ones",
    "--allocation": "engine.name vllm (--allocation): the vllm profile sets this itself",
    "--ep": "expert parallelism applies to mixture-of-experts models; llama-3-8b has no experts",
    "--limit-mm-per-prompt": "limit_mm_per_prompt applies to multimodal models; llama-3-8b has "
                             "no encoder",
    "--page-size": "engine.name vllm (--page-size): --page-size is sglang and trtllm's name for "
                   "engine.block_size; for vllm give --block-size",
    "--chunked-prefill-size": "--chunked-prefill-size is sglang's name for "
                              "engine.max_num_batched_tokens; for vllm give "
                              "--max-num-batched-tokens",
    "--cuda-graph-max-bs": "engine.name vllm (--cuda-graph-max-bs): only sglang reads it, not "
                           "vllm; drop the option",
    "--max-running-requests": "--max-running-requests is sglang's name for engine.max_num_seqs; "
                              "for vllm give --max-num-seqs",
    "--max-total-tokens": "(--max-total-tokens): only sglang reads it, not vllm",
    "--attention-backend": "engine.name vllm (--attention-backend): only sglang reads it, not "
                           "vllm; drop the option",
    "--mm-feature-transport": "engine.name vllm (--mm-feature-transport): only sglang reads it, "
                              "not vllm; drop the option",
    **{f: f"engine.name vllm ({f}): only sglang reads it, not vllm; drop the option"
       for f in ("--speculative-algorithm", "--speculative-num-steps", "--speculative-eagle-topk",
                 "--speculative-num-draft-tokens", "--moe-dense-tp-size", "--enable-dp-lm-head",
                 "--moe-a2a-backend")},
    "--attention-dp": "parallel.attention_dp (--attention-dp): attention_dp 2 is SGLang's "
                      "data-parallel attention (--enable-dp-attention --dp-size); kvplan models "
                      "it for sglang only, not vllm",
    "--max-batch-size": "--max-batch-size is trtllm's name for engine.max_num_seqs",
    "--max-num-tokens": "--max-num-tokens is trtllm's name for engine.max_num_batched_tokens",
    "--max-seq-len": "--max-seq-len is trtllm's name for engine.max_model_len; for vllm give "
                     "--max-model-len",
    "--tokens-per-block": "--tokens-per-block is trtllm's name for engine.block_size",
    "--free-gpu-memory-fraction": "--free-gpu-memory-fraction is trtllm's name for "
                                  "engine.gpu_memory_utilization; for vllm give "
                                  "--memory-utilization",
    "--max-tokens-in-paged-kv-cache": "(--max-tokens-in-paged-kv-cache): only trtllm reads it",
    "--trtllm-config": "(--trtllm-config): only trtllm reads it, not vllm",
    "--trt-activation-bytes": "(--trt-activation-bytes): only trtllm reads it, not vllm",
    "--trtllm-backend": "(--trtllm-backend): only trtllm reads it, not vllm",
}
NO_VISIBLE_EFFECT: set[str] = set()  # none: a flag that cannot move the plan is refused


def command_flags(name: str) -> set[str]:
    cmd = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    return {opt for p in cmd.params for opt in p.opts if opt.startswith("--")}


def _edit(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("flags")
    base = tmp / "base.yaml"
    base.write_text(yaml.safe_dump(BASE))
    sample = tmp / "sample.csv"
    sample.write_text("tokens\n" + "\n".join(str(500 + 37 * i) for i in range(200)) + "\n")
    prices = tmp / "prices.yaml"
    prices.write_text("h100-sxm-80gb: 2.5\nh200: 4\n")
    trtconfig = tmp / "extra.yaml"
    trtconfig.write_text("max_batch_size: 16\nkv_cache_config:\n  tokens_per_block: 64\n")
    return {"base": base, "sample": sample, "prices": prices, "tmp": tmp, "trtconfig": trtconfig}


def _strip_origins(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """explain's record lists where each value came from; flag and file differ there only."""
    return [{**r, "record": [{**f, "from": None} for f in r.get("record", [])]} for r in rows]


def test_every_flag_is_a_field_or_named_as_output():
    """No flag of size, fleet or explain escapes the table (or the tests below)."""
    known = {f.flag for f in FLAGS.values()} | set(PRICE_FLAGS) | set(OUTPUT_FLAGS)
    for name in ("size", "fleet", "explain"):
        flags = command_flags(name) - {"--help"}
        assert flags <= known, (name, flags - known)
    assert {f.flag for f in FLAGS.values()} | set(PRICE_FLAGS) == set(CASES)


@pytest.mark.parametrize("flag", sorted(CASES))
@pytest.mark.parametrize("command", ["fleet", "size", "explain"])
def test_flag_overrides_its_field_as_the_same_edit_would(command, flag, files):
    if flag not in command_flags(command):
        pytest.skip(f"{command} has no {flag}")
    argv, edits = CASES[flag]
    subst = {"SAMPLE": str(files["sample"].resolve()), "PRICES": str(files["prices"]),
             "TRTCONFIG": str(files["trtconfig"].resolve())}
    argv = [subst.get(a, a) for a in argv]
    runner = CliRunner()
    with_flag = runner.invoke(app, [command, str(files["base"]), *argv, "-f", "json"])
    if flag in REFUSED:
        assert with_flag.exit_code == 2, with_flag.output
        assert REFUSED[flag] in " ".join(with_flag.output.split())
        return
    data = copy.deepcopy(BASE)
    for dotted, value in edits:
        _edit(data, dotted, subst.get(value, value) if isinstance(value, str) else value)
    edited = files["tmp"] / f"{command}{flag}.yaml"
    edited.write_text(yaml.safe_dump(data))
    by_edit = runner.invoke(app, [command, str(edited), "-f", "json"])
    got, want = ok_results(with_flag), ok_results(by_edit)
    if command == "explain":
        got, want = _strip_origins(got), _strip_origins(want)
    assert got == want
    if flag not in PRICE_FLAGS:  # each override of the file is named: flag and field
        assert f"{argv[0]} " in with_flag.stderr and edits[0][0] in with_flag.stderr
    untouched = ok_results(runner.invoke(app, [command, str(files["base"]), "-f", "json"]))
    visible = flag not in NO_VISIBLE_EFFECT and not (command == "size" and
                                                      flag in FLEET_ONLY_EFFECT)
    if visible and command != "explain":
        assert got != untouched, f"{flag} changed nothing in {command}'s JSON"


def test_the_issue_example_gpu_override_is_planned_and_noted():
    """`kvplan fleet FILE.yaml --gpu h200` plans on h200 and names the override."""
    runner = CliRunner()
    res = runner.invoke(app, ["fleet", "examples/support-chatbot.yaml", "--gpu", "h200",
                              "-f", "json"])
    rows = ok_results(res)
    assert rows[0]["gpu"] == "h200-141gb"
    assert "--gpu overrides hardware.gpu (was h100-sxm-80gb)" in res.stderr
    # h200: 150,109,880,320 B; the file states kv_budget_gib 60, so the pool is 60 GiB either
    # way: 64,424,509,440 / (2,000 tokens x 131,072 B) = 245 users, 20,000 / 245 -> 82 GPUs
    assert rows[0]["users_per_gpu"] == 245 and rows[0]["gpus_needed"] == 82


def test_a_flag_the_engine_never_reads_is_refused_with_the_reason():
    runner = CliRunner()
    res = runner.invoke(app, ["size", "examples/support-chatbot.yaml", "--engine-version",
                              "0.10.2"])
    assert res.exit_code == 2
    assert "engine.name ideal (--engine-version): read only by an engine profile" in res.output


def test_comma_lists_expand_one_record_into_many():
    runner = CliRunner()
    rows = ok_results(runner.invoke(app, ["size", "examples/support-chatbot.yaml", "--gpu",
                                     "h100,h200", "--kv-dtype", "fp16,fp8", "-f", "json"]))
    assert [(r["gpu"], r["kv_dtype"]) for r in rows] == [
        ("h100-sxm-80gb", "fp16"), ("h100-sxm-80gb", "fp8"), ("h200-141gb", "fp16"),
        ("h200-141gb", "fp8")]
    # the file's 60 GiB pool / (2,000 tokens x 128 KiB) = 245 at fp16, x 2 at fp8 = 491
    assert [r["users_per_gpu"] for r in rows] == [245, 491, 245, 491]
