"""The CLI end to end through typer's CliRunner: values, exports, and one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from kvplan.units import GIB
from tests.conftest import ASSETS, invoke, results


def test_size_json_has_the_promised_keys(runner):
    result = invoke(runner, "size", "llama-3-8b", "--gpu", "h100", "--context", "8192",
                    "--format", "json")
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    for key in ("model", "gpu", "kv_dtype", "allocation", "tp", "context_tokens",
                "kv_bytes_per_token", "kv_bytes_per_sequence", "weights_bytes", "kv_budget_bytes",
                "users_per_gpu", "users_per_replica"):
        assert key in data, key
    assert data["kv_bytes_per_token"] == 131_072
    assert data["kv_bytes_per_sequence"] == GIB
    assert data["weights_bytes"] == 16_060_522_496
    assert data["users_per_gpu"] == data["kv_budget_bytes"] // GIB


def test_seed_chatbot_through_the_cli(runner):
    result = invoke(runner, "fleet", "llama-3-8b", "--gpu", "h100", "--context", "8192",
                    "--avg-context", "2000", "--kv-budget-gib", "60", "--peak-users", "20000",
                    "--allocation", "reserved,paged", "--kv-dtype", "fp16,fp8", "-f", "json")
    assert result.exit_code == 0, result.output
    rows = {(r["allocation"], r["kv_dtype"]): r for r in results(result.stdout)}
    assert rows["reserved", "fp16"]["users_per_gpu"] == 60
    assert rows["reserved", "fp16"]["gpus_needed"] == 334
    assert rows["paged", "fp16"]["users_per_gpu"] == 245
    assert rows["paged", "fp16"]["gpus_needed"] == 82
    assert rows["paged", "fp8"]["users_per_gpu"] == 491
    assert rows["paged", "fp8"]["gpus_needed"] == 41


def test_fleet_from_the_example_deployment(runner):
    result = invoke(runner, "fleet", "examples/support-chatbot.yaml", "-f", "json")
    assert result.exit_code == 0, result.output
    data = results(result.stdout)
    assert (data["users_per_gpu"], data["replicas"], data["gpus_needed"]) == (245, 82, 82)


def test_comma_lists_give_one_row_per_combination(runner):
    result = invoke(runner, "size", "llama-3-8b", "--gpu", "h100,h200", "--context", "2048,8192",
                    "--kv-dtype", "fp16,fp8", "--tp", "1,2", "--allocation", "paged,reserved",
                    "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 2 * 2 * 2 * 2 * 2
    assert {r["gpu"] for r in rows} == {"h100-sxm-80gb", "h200-141gb"}
    tp2 = [r for r in rows if r["tp"] == "2" and r["kv_dtype"] == "fp16"]
    assert all(r["kv_bytes_per_token"] == "65536" for r in tp2)


@pytest.mark.parametrize(("option", "text", "tokens"), [
    ("--context", "8k", 8_000), ("--context", "8K", 8_192), ("--context", "8_192", 8_192),
    ("--max-model-len", "4k", 4_000), ("--max-model-len", "4K", 4_096),
])
def test_lengths_take_vllms_spellings(runner, option, text, tokens):
    """vLLM's --max-model-len reads 8k as 8,000 and 8K as 8,192 (human_readable_int): so do
    kvplan's length options, as `kvplan check` already did in manifests."""
    result = invoke(runner, "size", "llama-3-8b", option, text, "-f", "json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["context_tokens"] == tokens
    assert row["kv_bytes_per_sequence"] == tokens * 131_072


def test_csv_output_file_is_written_atomically(runner, tmp_path):
    out = tmp_path / "sweep.csv"
    result = invoke(runner, "size", "llama-3-8b", "--context", "1024,2048", "-f", "csv",
                    "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines[0].startswith("model,gpu,kv_dtype,weight_dtype,allocation,tp,pp,context_tokens")
    assert len(lines) == 3
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_failed_run_leaves_no_output_file(runner, tmp_path):
    out = tmp_path / "sweep.csv"
    result = invoke(runner, "size", "no-such-model", "-f", "csv", "-o", str(out))
    assert result.exit_code == 2
    assert not out.exists()


def test_weights_that_do_not_fit_are_explained(runner):
    result = invoke(runner, "size", "llama-3.1-70b", "--gpu", "h100", "--context", "8192")
    assert result.exit_code == 1, result.output  # nothing fits: a verdict of no
    assert "Does not fit: weights need" in result.stdout
    assert "try --tp 2" in result.stdout
    assert "try --weight-dtype fp8" in result.stdout


def test_models_and_gpus_catalogs(runner):
    result = invoke(runner, "models", "-f", "json")
    assert result.exit_code == 0, result.output
    models = {m["name"]: m for m in json.loads(result.stdout)}
    assert models["llama-3-8b"]["kv_bytes_per_token_fp16"] == 131_072
    assert models["deepseek-v3"]["attention"] == "MLA"
    assert models["mistral-7b-v0.1"]["attention"] == "GQA SWA"
    assert all(m["source"] for m in models.values())
    result = invoke(runner, "gpus", "-f", "json")
    assert result.exit_code == 0, result.output
    gpus = {g["name"]: g for g in json.loads(result.stdout)}
    assert gpus["h200-141gb"]["memory_bytes"] == 150_109_880_320


def test_version_and_module_entry_point(runner):
    import subprocess
    import sys

    assert invoke(runner, "--version").stdout.startswith("kvplan ")
    proc = subprocess.run([sys.executable, "-m", "kvplan", "--version"], capture_output=True,
                          text=True, check=True)
    assert proc.stdout.startswith("kvplan ")


BAD = [
    (["size", "llama-3-8c"], "unknown model 'llama-3-8c' (did you mean: llama-3-8b"),
    (["size", "llama-3-8b", "--gpu", "h10"], "unknown GPU 'h10' (did you mean:"),
    (["size", "llama-3-8b", "--context", "-5"], "--context: must be positive, got -5"),
    (["size", "llama-3-8b", "--context", "0"], "--context: must be positive, got 0"),
    (["size", "llama-3-8b", "--context", "8x"], "--context: '8x' is not a whole number (vLLM's spellings"),
    (["size", "llama-3-8b", "--max-model-len", "1.5k"], "'1.5k' is not a whole number of tokens"),
    (["size", "llama-3-8b", "--memory-utilization", "1.5"], "must be in (0, 1], got 1.5"),
    (["size", "llama-3-8b", "--memory-utilization", "0"], "must be in (0, 1], got 0"),
    (["size", "llama-3-8b", "--kv-dtype", "fp7"], "unknown precision 'fp7'"),
    (["size", "llama-3-8b", "--allocation", "lazy"],
     "engine.allocation (--allocation): Input should be 'paged' or 'reserved' (got 'lazy')"),
    (["size", "llama-3-8b", "--kv-budget-gib", "-1"], "must be positive, got -1"),
    (["size", "llama-3-8b", "--context", "9000"], "exceeds llama-3-8b's max_context_tokens"),
    (["size", "llama-3-8b", "--context", "2048", "--avg-context", "4096"],
     "traffic.context_tokens.mean (--avg-context): 4,096 tokens exceeds the longest sequence "
     "the engine accepts (max_model_len 2,048)"),
    (["fleet", "llama-3-8b"], "traffic (set with --peak-users N, or --arrival-rate with "
     "--mean-duration-s): give peak_concurrent_users, or arrival_rate_per_s with mean_duration_s"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2(runner, args, message):
    result = invoke(runner, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("asset", "message"),
    [
        ("specs/unknown-field.yaml", "attention.num_kv_head: unknown field; remove it or check"),
        ("specs/malformed.yaml", "line 5: malformed YAML: did not find expected"),
        ("specs/negative.yaml", "num_layers: Input should be greater than 0"),
        ("specs/python-tag.yaml", "tags such as !!python/... are refused"),
        ("specs/missing-source.yaml", "source: required field is missing"),
    ],
)
def test_bad_spec_files_name_file_and_field(runner, asset, message):
    path = ASSETS / asset
    result = invoke(runner, "size", str(path))
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"{path}: " in text
    assert message in text, text
    assert "Traceback" not in result.output


def test_debug_shows_the_traceback(runner):
    result = invoke(runner, "--debug", "size", "nope")
    assert result.exit_code != 0
    assert result.exception is not None


def test_a_spec_file_path_works_like_a_name(runner, tmp_path):
    from pathlib import Path

    data = yaml.safe_load(Path("model_specs/llama-3-8b.yaml").read_text())
    data["name"] = "my-model"
    spec = tmp_path / "mine.yaml"
    spec.write_text(yaml.safe_dump(data))
    result = invoke(runner, "size", str(spec), "--context", "8192", "-f", "json")
    assert result.exit_code == 0, result.output
    assert results(result.stdout)["kv_bytes_per_sequence"] == GIB


def test_a_deployment_file_with_a_flag_plans_the_override_and_says_so(runner, tmp_path):
    """`fleet FILE --engine vllm` plans as the file edited to `engine: {name: vllm}` would."""
    result = invoke(runner, "fleet", "examples/support-chatbot.yaml", "--engine", "vllm",
                    "-f", "json")
    assert result.exit_code == 0, result.output
    assert "--engine overrides engine.name (was ideal)" in result.stderr
    data = yaml.safe_load(Path("examples/support-chatbot.yaml").read_text())
    data["engine"]["name"] = "vllm"
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(data))
    same = invoke(runner, "fleet", str(edited), "-f", "json")
    assert same.exit_code == 0, same.output
    assert results(result.stdout) == results(same.stdout)
    assert results(result.stdout)["engine"] == "vllm"


def test_paged_rounding_that_outweighs_reserving_is_shown_as_a_saving(runner):
    """Qwen3-Next under vLLM 0.10.2 at TP 2 pages in 544-token blocks (tests/engines/
    test_vllm_hybrid.py): one 262,144-token sequence takes 482 blocks = 262,208 tokens, 64 more
    than reserving it exactly, 64 x 12,288 B = 786,432 B = 768 KiB."""
    result = invoke(runner, "size", "qwen3-next-80b-a3b", "--gpu", "h200", "--tp", "2",
                    "--engine", "vllm", "--engine-version", "0.10.2")
    assert result.exit_code == 0, result.output
    assert "reserved would save    768 KiB each (block rounding)" in result.output
    assert "reserved would add" not in result.output
    data = json.loads(invoke(runner, "size", "qwen3-next-80b-a3b", "--gpu", "h200", "--tp", "2",
                             "--engine", "vllm", "--engine-version", "0.10.2", "-f", "json").output)
    assert data["results"][0]["reserved_waste_bytes_per_sequence"] == -786_432


def test_window_rounded_to_a_block_shows_reserving_as_a_saving(runner):
    """phi-3-mini-4k (sliding window 2,047, model_specs) at 4,096 tokens: reserving holds the
    window exactly, 2,047 tokens; paging holds ceil(2,047 / 16) x 16 = 2,048; one token of
    32 layers x 32 KV heads x 96 x 2 x 2 B = 393,216 B more when paged (docs/maths.md)."""
    out = invoke(runner, "size", "phi-3-mini-4k", "--gpu", "h100", "--context", "4096",
                 "-f", "json")
    assert out.exit_code == 0, out.output
    row = json.loads(out.output)["results"][0]
    assert row["kv_bytes_per_token"] == 32 * 32 * 96 * 2 * 2 == 393_216
    assert row["kv_bytes_per_sequence"] == 2_048 * 393_216
    assert row["reserved_waste_bytes_per_sequence"] == -393_216
    table = invoke(runner, "size", "phi-3-mini-4k", "--gpu", "h100", "--context", "4096")
    assert "reserved would save  384 KiB each (block rounding)" in table.output
