"""`kvplan fleet --context-sample` on public request-length traces as they are published (task
h33qa2). tests/assets/check/qa/SOURCES.md names each file's repository, path and commit; the
expected values are computed from the file's rows by hand (below)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.conftest import ASSETS, invoke

AZURE_CONV = ASSETS / "check" / "qa" / "traces" / "azure-llm-2023-conv-first400.csv"


def test_azure_llm_trace_reads_context_plus_generated_tokens(runner: CliRunner) -> None:
    # Azure/AzurePublicDataset data/AzureLLMInferenceTrace_conv.csv, header
    # TIMESTAMP,ContextTokens,GeneratedTokens; the first 400 requests. It used to be refused
    # ("line 2: no token count"). ContextTokens is the prompt: the 400 totals (context +
    # generated) sum to 475,055 (mean 1,187.6375), the prompts alone to 371,046 (927.6).
    result = invoke(runner, "fleet", "llama-3-8b", "--gpu", "h100", "--peak-users", "200",
                    "--context-sample", str(AZURE_CONV), "-f", "json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["context_distribution"] == "empirical"
    assert row["context_mean_tokens"] == 1187.6
    assert row["avg_context_tokens"] == 1188
    # 1,188 tokens fill 75 blocks of 16 = 1,200 tokens x 131,072 B (Llama-3-8B fp16)
    assert row["kv_bytes_per_sequence"] == 1200 * 131072 == 157286400
    # 58,332,923,494 B of pool / 157,286,400 B = 370.9
    assert row["kv_budget_bytes"] == 58332923494
    assert row["users_per_gpu_mean"] == 370


def test_azure_trace_percentiles_are_the_totals() -> None:
    from kvplan.traffic.lengths import load_sample

    sample = load_sample(AZURE_CONV)
    assert len(sample.tokens) == 400
    assert sum(sample.tokens) == 475055
    # sorted totals: the 200th, 380th and 396th of 400
    assert (sample.percentile(0.5), sample.percentile(0.95), sample.percentile(0.99)) == \
        (1391, 2640, 4137)
    assert sample.tokens[:3] == (374 + 44, 396 + 109, 879 + 55)


def test_burstgpt_headers_are_read_with_their_spaces(tmp_path: Path) -> None:
    # The header of HPMLL/BurstGPT's data files (README.md "Schema", e92f533): Request tokens,
    # Response tokens, Total tokens (= request + response). The rows are ours, not the trace's.
    from kvplan.traffic.lengths import load_sample

    total = tmp_path / "burst.csv"
    total.write_text("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                     "5,ChatGPT,472,18,490,Conversation log\n"
                     "45,GPT-4,1087,230,1317,API log\n")
    assert load_sample(total).tokens == (490, 1317)
    parts = tmp_path / "parts.csv"
    parts.write_text("Timestamp,Request tokens,Response tokens\n5,472,18\n45,1087,230\n")
    assert load_sample(parts).tokens == (490, 1317)


MOONCAKE = ASSETS / "check" / "qa" / "traces" / "mooncake-conversation-first200.jsonl"


def test_mooncake_jsonl_reads_input_plus_output_length(runner: CliRunner) -> None:
    # kvcache-ai/Mooncake FAST25-release/traces/conversation_trace.jsonl, the first 200 lines:
    # {"timestamp", "input_length", "output_length", "hash_ids"}. It used to be refused ("line
    # 1: no token count"). The 200 totals sum to 2,853,558 (mean 14,267.79), p50 9,193, p95
    # 46,187, p99 87,571, the longest 121,213 (under Llama-3.1-8B's 131,072).
    from kvplan.traffic.lengths import load_sample

    sample = load_sample(MOONCAKE)
    assert sample.tokens[:2] == (6758 + 500, 7322 + 490)
    assert (len(sample.tokens), sum(sample.tokens), max(sample.tokens)) == (200, 2853558, 121213)
    assert (sample.percentile(0.5), sample.percentile(0.95), sample.percentile(0.99)) == \
        (9193, 46187, 87571)
    result = invoke(runner, "fleet", "llama-3.1-8b", "--gpu", "h100", "--peak-users", "100",
                    "--context-sample", str(MOONCAKE), "-f", "json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert row["context_mean_tokens"] == 14267.8
    assert row["context_share_above_max"] == 0.0
    # 14,268 tokens fill 892 blocks of 16 = 14,272 tokens x 131,072 B
    assert row["kv_bytes_per_sequence"] == 14272 * 131072 == 1870659584
    assert row["users_per_gpu_mean"] == 31  # 58,332,923,494 / 1,870,659,584 = 31.2
