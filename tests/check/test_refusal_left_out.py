"""A refusal no longer hides what the plan would say (task h72mix).

Before: an option the engine refuses was a FAIL and the plan was never run, so an ERROR the plan
raises (here hardware.gpu 'h900', not in the catalog) was met only on the next run. Now the plan
runs with the refused options left out (the engine would not start with them anyway) and its
ERROR is said, marked so, with the refusals "refused too" in text, JSON, junit and github output;
a refused shape (tensor parallelism) plans nothing more and says what was not checked.

The refusals are kvplan.engines.refusals' (vLLM's "limit_mm_per_prompt is only supported for
multimodal models": llama-3-8b has no encoder) and kvplan.check.startup.shape_refusals'
(llama-3-8b's 32 attention heads, config.json num_attention_heads, do not divide by 3).
"""

from __future__ import annotations

import json
from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import render_github, render_json, render_junit, render_text

LEFT = "(found with the refused option left out: the engine would not start with it anyway)"
MM = "vLLM refuses --limit-mm-per-prompt for a text-only model: llama-3-8b has no encoder"


def _kvplan_file(tmp_path: Path, gpu: str, *, tp: int = 1, mm: bool = True,
                 count: bool = True) -> str:
    text = ("apiVersion: kvplan/v1\nname: mm-on-text\nmodel: llama-3-8b\nhardware:\n"
            f"  gpu: {gpu}\n" + (f"  count: {tp}\n" if count else "") +
            f"parallel:\n  tensor: {tp}\nengine:\n  name: vllm\n  max_model_len: 8192\n"
            + ("  limit_mm_per_prompt: 1\n" if mm else "") +
            "traffic:\n  peak_concurrent_users: 20\n")
    path = tmp_path / "dep.yaml"
    path.write_text(text)
    return str(path)


def test_an_unknown_gpu_is_said_beside_the_refusal(tmp_path: Path) -> None:
    report = check_paths([_kvplan_file(tmp_path, "h900")])
    (o,) = report.outcomes
    assert o.verdict == "ERROR" and report.exit_code == 2
    assert [(p.field, p.line) for p in o.problems] == [("hardware.gpu", 5)]
    assert o.problems[0].message.startswith("unknown GPU 'h900'")
    assert o.problems[0].message.endswith(LEFT)
    assert [(p.field, p.line) for p in o.refused] == [("engine.limit_mm_per_prompt", 12)]
    text = render_text(report)
    assert "ERROR line 5: hardware.gpu: unknown GPU 'h900'" in text
    assert f"      refused too, line 12: engine.limit_mm_per_prompt: {MM}" in text
    rec = json.loads(render_json(report))["results"][0]
    assert rec["verdict"] == "ERROR"
    assert rec["errors"][0]["field"] == "hardware.gpu" and rec["errors"][0]["message"].endswith(LEFT)
    assert [(r["field"], r["line"]) for r in rec["refused"]] == [("engine.limit_mm_per_prompt", 12)]
    assert rec["reasons"][0].startswith(MM)
    junit = render_junit(report)
    assert "unknown GPU" in junit and "limit-mm-per-prompt for a text-only" in junit
    github = render_github(report)
    assert github.count("::error ") == 2 and "unknown GPU" in github and "text-only" in github


def test_a_known_gpu_keeps_the_fail(tmp_path: Path) -> None:
    report = check_paths([_kvplan_file(tmp_path, "h100")])
    (o,) = report.outcomes
    assert o.verdict == "FAIL" and report.exit_code == 1 and o.problems == []
    assert o.reasons[0].startswith(MM)


def test_a_missing_gpu_count_is_said_beside_the_refusal(tmp_path: Path) -> None:
    (o,) = check_paths([_kvplan_file(tmp_path, "h100", count=False)]).outcomes
    assert o.verdict == "ERROR"
    assert [p.field for p in o.problems] == ["hardware.count"]
    assert o.problems[0].message.startswith("required by `kvplan check`")
    assert o.problems[0].message.endswith(LEFT)


def test_a_refused_shape_says_what_was_not_checked(tmp_path: Path) -> None:
    (o,) = check_paths([_kvplan_file(tmp_path, "h100", tp=3, mm=False)]).outcomes
    assert o.verdict == "FAIL"
    assert any("3" in r and "32" in r for r in o.reasons), o.reasons
    assert ("not checked: the weights and the KV pool; the engine refuses the deployment's own "
            "shape (its parallelism, nodes or context length), which cannot be left out to plan "
            "the rest") in o.notes


def test_a_refused_shape_still_resolves_the_gpu(tmp_path: Path) -> None:
    (o,) = check_paths([_kvplan_file(tmp_path, "h900", tp=3, mm=False)]).outcomes
    assert o.verdict == "ERROR"
    assert [p.field for p in o.problems] == ["hardware.gpu"]
    assert [p.field for p in o.refused] == ["parallel.tensor", "parallel.tensor"]
    assert o.problems[0].message.endswith(LEFT)


def test_a_script_refusal_says_the_plan_notes(tmp_path: Path) -> None:
    """A misspelt flag: the plan ran (no ERROR), and the run says no GPU was named."""
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\nCUDA_VISIBLE_DEVICES=0 vllm serve "
                      "meta-llama/Meta-Llama-3-8B-Instruct --gpu-memory-utilisation 0.9\n")
    (o,) = check_paths([str(script)]).outcomes
    assert o.verdict == "FAIL"
    assert o.reasons[0].startswith("the engine refuses it: vLLM has no option "
                                   "--gpu-memory-utilisation")
    assert ("with the refused option left out: no GPU named, so where it would start was not "
            "checked (name one with --gpu, or `gpu:` in a side file serve.kvplan.yaml)") in o.notes


def test_a_refused_node_count_is_not_left_out(tmp_path: Path) -> None:
    """--nnodes 3 under --tp 16 (SGLang's (tp_size * pp_size) % nnodes assertion, as in
    test_check_outcomes_r3): without --nnodes the plan would ask for the node count the file
    states, so nothing is planned without it and the FAIL stays, saying what was not checked."""
    script = tmp_path / "three.sh"
    script.write_text("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 "
                      "--tp 16 --nnodes 3 --node-rank 1 --context-length 8192\n")
    (o,) = check_paths([str(script)], default_gpu="h100").outcomes
    assert o.verdict == "FAIL" and o.problems == []
    assert o.reasons[0].startswith("the engine refuses it: --nnodes 3 does not divide")
    assert any(n.startswith("not checked: the weights and the KV pool") for n in o.notes)
