"""The CLI with engines: size/fleet/explain/calibrate, JSON keys, deployment files, errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.engines import Engine
from kvplan.engines.interface import Step, verify_steps
from tests.conftest import invoke

ASSETS = Path(__file__).parent.parent / "assets"
LOGS = sorted((ASSETS / "logs").glob("*.log"))


def first(text: str) -> dict:
    return json.loads(text)["results"][0]


ENGINE_KEYS = {"engine", "engine_version", "kv_cache_tokens", "max_concurrency", "kv_cache_bytes",
               "activation_bytes", "activation_bytes_low", "activation_bytes_high", "starts",
               "reason"}


def test_size_json_adds_engine_fields_and_keeps_the_rest(runner: CliRunner):
    plain = invoke(runner, "size", "llama-3-8b", "-c", "8192", "-f", "json")
    assert plain.exit_code == 0, plain.output
    plain_rec = first(plain.output)
    assert "engine" not in plain_rec  # unchanged without --engine
    res = invoke(runner, "size", "llama-3-8b", "-c", "8192", "--engine", "vllm",
              "--engine-version", "0.10.2", "-f", "json")
    assert res.exit_code == 0, res.output
    rec = first(res.output)
    assert rec.keys() >= ENGINE_KEYS
    assert set(plain_rec) <= set(rec)
    assert rec["engine"] == "vllm" and rec["engine_version"] == "0.10.2"
    assert rec["starts"] is True and rec["reason"] is None
    assert rec["activation_bytes_low"] <= rec["activation_bytes"] <= rec["activation_bytes_high"]
    assert rec["kv_cache_tokens"] % 16 == 0
    assert rec["kv_budget_bytes"] == rec["kv_cache_bytes"]


def test_size_engine_table_prints_the_engine_lines(runner: CliRunner):
    res = invoke(runner, "size", "llama-3-8b", "-c", "8192", "-e", "vllm", "--engine-version",
              "0.10.2")
    assert res.exit_code == 0, res.output
    assert "GPU KV cache size:" in res.output and "Maximum concurrency for 8,192" in res.output
    assert "activation peak" in res.output


def test_engine_does_not_start_in_json(runner: CliRunner):
    res = invoke(runner, "size", "llama-3.1-70b", "--tp", "2", "-e", "vllm", "--memory-utilization",
              "0.95", "-f", "json")
    assert res.exit_code == 1, res.output  # nothing fits: a verdict of no (docs/errors.md)
    rec = first(res.output)
    assert rec["starts"] is False and "vLLM would not start" in rec["reason"]
    assert 0 < rec["max_model_len_that_starts"] < 131072


@pytest.mark.parametrize("engine", [e.value for e in Engine])
def test_explain_every_engine_adds_up(runner: CliRunner, engine: str):
    res = invoke(runner, "explain", "llama-3-8b", "-c", "8192", "--engine", engine, "-f", "json")
    assert res.exit_code == 0, res.output
    data = first(res.output)
    steps = [Step(s["label"], Fraction(str(s["value"])) if isinstance(s["value"], float)
                  else s["value"], s["unit"], s["formula"], s["op"],
                  tuple(a if isinstance(a, str) else Fraction(str(a)) for a in s["args"]))
             for s in data["steps"]]
    exact = [s for s in steps if s.op != "ratio"]  # ratios are printed as floats
    assert verify_steps(exact) == []
    assert steps[-1].label == "users per GPU"
    table = invoke(runner, "explain", "llama-3-8b", "-c", "8192", "--engine", engine)
    assert table.exit_code == 0, table.output
    assert "users per GPU" in table.output


def test_fleet_with_engine_and_with_a_deployment_file(runner: CliRunner):
    res = invoke(runner, "fleet", "llama-3-8b", "-n", "1000", "-c", "8192", "-e", "sglang",
              "-f", "json")
    assert res.exit_code == 0, res.output
    rec = first(res.output)
    assert rec["engine"] == "sglang" and rec["gpus_needed"] >= 1
    dep = invoke(runner, "fleet", str(ASSETS / "deployments" / "chatbot-vllm.yaml"), "-f", "json")
    assert dep.exit_code == 0, dep.output
    rec = first(dep.output)
    assert rec["engine"] == "vllm" and rec["engine_version"] == "0.10.2"
    assert rec["gpus_needed"] == -(-20000 // rec["users_per_replica"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "ollama"], "engine.name (--engine): Input should be 'ideal', 'vllm', "
         "'sglang', 'trtllm' or 'transformers' (got 'ollama')"),
        (["--engine-version", "0.10.2"],
         "engine.name ideal (--engine-version): read only by an engine profile"),
        (["-c", "4096", "--max-model-len", "4096", "-e", "vllm"], "not both"),
        (["-e", "vllm", "--engine-version", "latest"], "cannot read engine version"),
        (["-e", "transformers", "--engine-version", "4.46"], "dynamic"),
    ],
)
def test_engine_option_errors_are_one_line(runner: CliRunner, args: list[str], message: str):
    res = invoke(runner, "size", "llama-3-8b", *args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output


def test_max_model_len_sets_the_context(runner: CliRunner):
    res = invoke(runner, "size", "llama-3-8b", "--max-model-len", "4096", "-e", "vllm", "-f", "json")
    assert res.exit_code == 0, res.output
    assert first(res.output)["context_tokens"] == 4096


def test_calibrate_all_logs(runner: CliRunner):
    assert len(LOGS) >= 20
    res = invoke(runner, "calibrate", *map(str, LOGS), "-f", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)  # calibrate keeps its own shape (not size/fleet/explain)
    assert {r["engine"] for r in rows} == {"vllm", "sglang", "trtllm"}
    table = invoke(runner, "calibrate", *map(str, LOGS))
    assert table.exit_code == 0, table.output
    assert "KV memory from the logged breakdown" in table.output
    # (QwQ-32B, asserted here before, is resolved by a spec directive since issue 13)
    assert "model not in catalog: ibm-granite/granite-3.3-2b-instruct" in table.output


def test_calibrate_reports_unparseable_lines_and_goes_on(runner: CliRunner, tmp_path: Path):
    log = tmp_path / "odd.log"
    log.write_text(
        "INFO GPU KV cache size: 416,688 tokens\n"
        "INFO something odd happened with 12.5 GiB of memory\n"
        "garbage \x00 line\n",
        encoding="utf-8",
    )
    res = invoke(runner, "calibrate", str(log))
    assert res.exit_code == 0, res.output
    assert "unparsed line 2" in res.output
    missing = invoke(runner, "calibrate", str(tmp_path / "nope.log"))
    assert missing.exit_code == 2 and "no such log file" in missing.output


def test_deployment_engine_fraction_only_when_stated():
    from kvplan.deploy.schema import Engine as Block
    from kvplan.engines.deployment import deployment_engine_settings

    assert deployment_engine_settings(Block(name="ideal")) is None
    unstated = deployment_engine_settings(Block(name="sglang"))
    assert unstated is not None and unstated.memory_fraction is None  # SGLang's own default
    stated = deployment_engine_settings(Block(name="vllm", gpu_memory_utilization=0.95))
    assert stated is not None and stated.memory_fraction == Fraction(95, 100)


def test_deployment_with_a_bad_engine_version_names_the_field(runner: CliRunner, tmp_path: Path):
    text = (ASSETS / "deployments" / "chatbot-vllm.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace('version: "0.10.2"', "version: newest"), encoding="utf-8")
    res = invoke(runner, "fleet", str(bad))
    assert res.exit_code == 2, res.output
    assert "engine.version" in res.output and "cannot read engine version" in res.output


def test_calibrate_bad_directive_names_file_and_line(runner: CliRunner, tmp_path: Path):
    log = tmp_path / "bad.log"
    log.write_text("# source: test\n# kvplan: spec\nGPU KV cache size: 1,024 tokens\n",
                   encoding="utf-8")
    res = invoke(runner, "calibrate", str(log))
    assert res.exit_code == 2, res.output
    assert f"{log}:2: kvplan directive 'spec' is not key=value" in res.output
