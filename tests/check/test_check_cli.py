"""`kvplan check` through the CLI: verdict lines, deciding numbers, fixes and exit codes (invalid
inputs and paths: test_check_cli_inputs.py; json, junit, github and CI output:
test_check_cli_formats.py).

Golden figures, derived by hand from the catalog specs (ideal arithmetic, defaults 0.9
utilization and a 2 GiB reserve):
  Llama-3-8B bf16 weights: 8,030,261,248 x 2 = 16,060,522,496 bytes per GPU (TP 1)
  H100 pool: floor(85,045,231,616 x 0.9) - 16,060,522,496 - 2 GiB = 58,332,702,310 bytes
  one 2,000-token conversation in fp16: 2,000 x 131,072 = 262,144,000 bytes -> 222 per H100
  ... in fp8: 131,072,000 bytes -> 445 per H100
  H200 pool: floor(150,109,880,320 x 0.9) - 16,060,522,496 - 2 GiB = 116,890,886,144 -> 445
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kvplan.specs import load_hardware
from tests.check.check_cli_run import KV, run
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS


def test_pass_exits_0_with_the_deciding_numbers(runner: CliRunner) -> None:
    result = run(runner, KV / "pass.yaml")
    assert result.exit_code == 0, result.output
    # 12 x 222 = 2,664 users; ceil(2,400 x 1.1) = 2,640 required
    assert result.output.splitlines()[0] == (
        f"PASS  {KV / 'pass.yaml'}:1  chat-pass: holds 2,664 users >= 2,640 required; "
        "starts: yes (llama-3-8b on 12 replica(s) x 1 h100-sxm-80gb)"
    )
    assert result.output.splitlines()[-1] == ("1 checked in 1 file(s): 1 PASS, 0 FAIL, 0 ERROR")


def test_capacity_fail_suggests_the_exact_gpu_count(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-capacity.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    # 4 x 222 = 888; ceil(2,000 x 1.2) = 2,400; ceil(2,400 / 222) = 11 GPUs -> 2,442 users
    assert lines[0].startswith(f"FAIL  {KV / 'fail-capacity.yaml'}:6  chat-undersized: ")
    assert "holds 888 users < 2,400 required; starts: yes" in lines[0]
    fixes = [line[11:] for line in lines[1:-1]]
    assert "hardware.count: 4 -> 11 (holds 2,442 users on 11 GPU(s))" in fixes
    assert not any("kv_cache_dtype" in f for f in fixes)  # fp8 holds 4 x 445 = 1,780: short


def test_fp8_cache_is_the_smallest_fix_when_it_passes(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-fp8.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "holds 1,776 users < 2,000 required" in lines[0]
    # a config change comes before any hardware change
    assert (
        lines[1] == "      fix: engine.kv_cache_dtype: fp16 -> fp8 (holds 3,560 users on 8 GPU(s))"
    )
    assert "      or:  hardware.count: 8 -> 10 (holds 2,220 users on 10 GPU(s))" in lines
    bigger = [line for line in lines if "or:  hardware.gpu: h100-sxm-80gb -> " in line]
    assert len(bigger) == 1  # the smallest NVIDIA GPU with more memory that passes at 8
    gpu = load_hardware(bigger[0].split(" -> ")[1].split()[0])
    assert gpu.vendor == "nvidia" and gpu.memory_bytes > load_hardware("h100").memory_bytes


def test_engine_that_would_not_start(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-start.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "holds 0 users < 4 required; starts: no" in lines[0]
    assert lines[0].startswith(f"FAIL  {KV / 'fail-start.yaml'}:12 ")  # the max_model_len line
    # TP 2 bf16: 80 layers x 4 heads x 256 values x 2 bytes = 163,840 bytes per token per GPU;
    # 131,072 tokens -> 20 GiB; the pool is 3.58 GiB and holds 23,424 tokens (whole blocks)
    assert lines[1] == (
        "      would not start: one 131,072-token sequence needs 20 GiB of KV cache per GPU, "
        "the pool is 3.58 GiB (longest that fits: 23,424 tokens)"
    )
    assert (
        lines[2] == "      fix: engine.max_model_len: 131072 -> 23424 (holds 5 users on 2 GPU(s))"
    )
    # an H100 NVL (94 GB) pool is still short of 20 GiB; the H200 is the smallest that passes
    assert "or:  hardware.gpu: h100-sxm-80gb -> h200-141gb (holds 95 users on 2 GPU(s))" in lines[3]
    assert "or:  parallel.tensor: 2 -> 4 and hardware.count: 2 -> 4" in lines[4]


def test_max_num_seqs_cap_is_reported_and_raised(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-max-num-seqs.yaml")
    assert result.exit_code == 1, result.output
    # 4 replicas x min(222, 128) = 512; raising the cap to ceil(700 / 4) = 175 holds 700
    assert result.output.splitlines()[1:4] == [
        "      max_num_seqs caps each replica at 128 sequences; its KV pool holds 222",
        "      fix: engine.max_num_seqs: 128 -> 175 (holds 700 users on 4 GPU(s))",
        "      or:  hardware.count: 4 -> 6 (holds 768 users on 6 GPU(s))",
    ]


def test_weights_that_do_not_fit_point_at_tensor_parallelism(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-weights-h200.yaml")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"FAIL  {KV / 'fail-weights-h200.yaml'}:9  llama-405b-tp4: ")
    # 405,853,388,800 params x 2 bytes / 4 GPUs = 188.99 GiB; H200 usable 0.9 x 139.8 GiB
    assert lines[1] == (
        "      would not start: weights need 188.99 GiB per GPU and the reserve 2 GiB, but only "
        "125.82 GiB of h200-141gb's memory is usable at 0.9 utilization: 65.17 GiB short"
    )
    # TP 8: 61 users a replica (8,000-token conversations); 64 need 2 replicas
    assert lines[2] == (
        "      fix: parallel.tensor: 4 -> 8 and hardware.count: 4 -> 16 "
        "(holds 122 users on 16 GPU(s))"
    )
    assert len(lines) == 4


def test_p95_longer_than_max_model_len_fails(runner: CliRunner) -> None:
    result = run(runner, KV / "fail-p95.yaml")
    assert result.exit_code == 1, result.output
    assert "p95 conversation (12,000 tokens) is longer than max_model_len (4,096)" in result.output
    assert "fix: engine.max_model_len: 4096 -> 12000" in result.output


def _apply(data: dict, fix: dict) -> dict:
    """Apply a JSON fix (`to`) to a kvplan/v1 document."""
    to = fix["to"]
    if "gpus" in to:
        data["hardware"]["count"] = to["gpus"]
    if "tp" in to:
        data.setdefault("parallel", {})["tensor"] = to["tp"]
    if "kv_cache_dtype" in to:
        data.setdefault("engine", {})["kv_cache_dtype"] = to["kv_cache_dtype"]
    if "max_model_len" in to:
        data.setdefault("engine", {})["max_model_len"] = to["max_model_len"]
    if "max_num_seqs" in to:
        data["engine"]["max_num_seqs"] = to["max_num_seqs"]
    if "gpu" in to:
        data["hardware"]["gpu"] = to["gpu"]
    return data


FAILING = [
    "fail-capacity.yaml",
    "fail-fp8.yaml",
    "fail-start.yaml",
    "fail-reserved.yaml",
    "fail-p95.yaml",
    "fail-max-num-seqs.yaml",
    "fail-weights-h200.yaml",
]


@pytest.mark.parametrize("name", FAILING)
def test_every_suggested_fix_passes_and_is_minimal(
    runner: CliRunner, tmp_path: Path, name: str
) -> None:
    """Apply each fix to the file and check again: PASS. One GPU fewer, or one token more of
    max_model_len than a shortening fix, must still FAIL."""
    source = yaml.safe_load((KV / name).read_text())
    report = json.loads(run(runner, KV / name, "--format", "json").output)
    fixes = report["results"][0]["fixes"]
    assert fixes, name
    for i, fix in enumerate(fixes):
        fixed = tmp_path / f"{i}.yaml"
        fixed.write_text(yaml.safe_dump(_apply(json.loads(json.dumps(source)), fix)))
        again = run(runner, fixed)
        assert again.exit_code == 0, (fix, again.output)
        if fix["change"] == "more_gpus" and "tp" not in fix["to"]:
            worse = dict(fix, to={**fix["to"], "gpus": fix["to"]["gpus"] - 1})
            fixed.write_text(yaml.safe_dump(_apply(json.loads(json.dumps(source)), worse)))
            assert run(runner, fixed).exit_code == 1
        if (
            fix["change"] == "max_model_len"
            and fix["to"]["max_model_len"] < fix["from"]["max_model_len"]
        ):
            worse = dict(fix, to={"max_model_len": fix["to"]["max_model_len"] + 1})
            fixed.write_text(yaml.safe_dump(_apply(json.loads(json.dumps(source)), worse)))
            assert run(runner, fixed).exit_code == 1


def test_examples_pass(runner: CliRunner) -> None:
    root = Path(__file__).parents[2] / "examples"
    result = run(runner, root / "deployments", root / "k8s", root / "kvplan-v1-annotated.yaml")
    assert result.exit_code == 0, result.output
    assert re.search(r"5 checked in 5 file\(s\): 5 PASS, 0 FAIL, 0 ERROR", result.output)


def test_arrival_rate_uses_littles_law(runner: CliRunner) -> None:
    root = Path(__file__).parents[2] / "examples" / "deployments"
    result = run(runner, root / "batch-qwen25-7b-fp8.yaml")
    # 4 conversations/s x 120 s x peak-to-mean 2 = 960 concurrent
    assert "960 required" in result.output


def test_a_kvplan_file_naming_an_engine_is_checked_with_its_profile(runner: CliRunner) -> None:
    """vLLM 0.6.3 on one H100 holds 55 sequences of 8,192 tokens (its own pool: total x 0.9
    - weights - profiled activations - non-torch memory, which 0.6.3 books as growth over its
    init free memory, 0.07 GiB; 54 while the CUDA context's 0.35 GiB was booked); the plain
    arithmetic would say 54 at 2 GiB reserve, and the fp8 fix differs: 110 with vLLM's pool
    against 108 plainly."""
    path = ASSETS / "check" / "kvplan" / "vllm-profile-fail.yaml"
    result = run(runner, path)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "holds 55 users < 100 required" in lines[0]
    assert "vllm 0.6.3 profile" in lines[0]
    assert lines[1] == "      fix: engine.kv_cache_dtype: bf16 -> fp8 (holds 110 users on 1 GPU(s))"
