"""An unknown --kv-dtype or --weight-dtype names every value the option takes, `auto` too.

Found by task h90review: `kvplan size llama-3-8b --kv-dtype fp4` answered "unknown precision
'fp4'; use one of fp32, fp16, bf16, fp8, int8, int4", leaving out `auto`, which docs/size.md
lists for --kv-dtype (the weight dtype; 16 bits for int4 or fp8 weights) and which a kvplan/v1
file takes by default; and --weight-dtype's `auto` (the model's published dtype) likewise."""

from __future__ import annotations

from typer.testing import CliRunner

from kvplan.cli import app


def _refusal(*args: str) -> str:
    res = CliRunner().invoke(app, ["size", "llama-3-8b", *args])
    assert res.exit_code == 2, res.output
    [line] = res.stderr.splitlines()
    return line


def test_kv_dtype_fp4_names_auto():
    assert _refusal("--kv-dtype", "fp4") == (
        "error: command line: engine.kv_cache_dtype (--kv-dtype): unknown precision 'fp4'; use "
        "one of fp32, fp16, bf16, fp8, int8, int4, or auto (the weight dtype; 16 bits for int4 "
        "or fp8 weights)")


def test_weight_dtype_names_auto():
    assert _refusal("--weight-dtype", "fp2") == (
        "error: command line: engine.weight_dtype (--weight-dtype): unknown precision 'fp2'; use "
        "one of fp32, fp16, bf16, fp8, int8, int4, or auto (the model's published dtype)")


def test_auto_is_taken_as_the_message_says():
    import json

    res = CliRunner().invoke(app, ["size", "llama-3-8b", "--kv-dtype", "auto", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    # Llama-3-8B's published bf16: a 16-bit cache, 2 x 32 x 8 x 128 x 2 B a token
    assert (row["kv_dtype"], row["kv_bytes_per_token"]) == ("bf16", 131_072)
