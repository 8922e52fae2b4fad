"""A manifest's --dtype is the compute dtype vLLM and SGLang take from six words (vLLM's ModelDType,
vllm/config/model.py:100 in 0.29.0; SGLang's --dtype choices, srt/arg_groups/fields/model.py:173
in 0.5.23): another word is refused as the engine refuses it, and a script's torch dtype is read
as the word of the same precision (kvplan.check.compute_dtype, kvplan.check.manifests.python_values)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

SERVE = "#!/bin/sh\nvllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"


def _check(path: Path) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, " ".join(res.output.split())


# float32: the weights at 4 B (29.92 GiB) and the cache too, vLLM's cache_dtype auto being the model
# dtype; and (task actwidth) the activations at 4 B: the sampler's 1,024 rows x vocab 128,256 x
# 16 B (14 B before: Model Runner V2's fp32 copy beside model-dtype logits at 4 B, not 2) =
# 2,101,346,304 B of peak, +262,668,288, and the warm-up margin 3/4 of it, +197,001,216:
# 48,115,513,728 - 459,669,504 = 47,655,844,224 B of pool // (16 x 262,144 B a block:
# 2 x 32 x 8 x 128 x 4) = 11,362 blocks = 181,792 tokens (183,536 until task actwidth;
# 367,088 until the lead's fix: the cache had been kept at 2 B)
@pytest.mark.parametrize(("word", "tokens"), [("half", "489,616"), ("bfloat16", "489,616"),
                                              ("float32", "181,792")])
def test_the_six_words_plan(tmp_path: Path, word: str, tokens: str) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(f"{SERVE} --dtype {word}\n")
    code, out = _check(path)
    assert code == 0, out
    assert f"({tokens} tokens in the pool)" in out


@pytest.mark.parametrize("word", ["fp8", "int4", "BF16"])
def test_another_word_is_refused(tmp_path: Path, word: str) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(f"{SERVE} --dtype {word}\n")
    code, out = _check(path)
    assert code == 2
    assert (f"ERROR line 2: --dtype: '{word}' is not a compute dtype vLLM takes (auto, half, "
            "float16, bfloat16, float, float32: vLLM's ModelDType, vllm/config/model.py:100 in "
            "0.29.0), and it refuses it") in out


def test_sglang_engine_keyword(tmp_path: Path) -> None:
    path = tmp_path / "run.py"
    path.write_text('import sglang as sgl\nsgl.Engine(model_path="meta-llama/Meta-Llama-3-8B-'
                    'Instruct", context_length=8192, dtype="fp8")\n')
    code, out = _check(path)
    assert code == 2
    assert "'fp8' is not a compute dtype SGLang takes" in out


def test_a_scripts_torch_dtype(tmp_path: Path) -> None:
    # float32 through the offline LLM class (max_num_batched_tokens 16,384 there), task actwidth:
    # activation peak max(forward 16,384 x 55,296 el x 4 B, sampler 1,024 x 128,256 x 16 B) =
    # 3,623,878,656 B (1,838,678,016 before: the forward at 2 B lost to the sampler at 14 B), warm-up
    # margin 3/4 of it = 2,717,908,992 B: pool 44,991,306,112 B // 4,194,304 B a block = 10,726
    # blocks = 171,616 tokens (183,536 until task actwidth)
    for attr, tokens in (("bfloat16", "489,616"), ("float32", "171,616")):
        path = tmp_path / "run.py"
        path.write_text("import torch\nfrom vllm import LLM\nLLM(model=\"meta-llama/Meta-Llama-3-"
                        f"8B-Instruct\", max_model_len=8192, dtype=torch.{attr})\n")
        code, out = _check(path)
        assert code == 0, out
        assert f"({tokens} tokens in the pool)" in out


def test_the_refusal_names_the_manifests_line(tmp_path: Path) -> None:
    # a Deployment's --dtype on line 14: the ERROR said 'line 1' (the workload's first line),
    # where kvplan's other option ERRORs name the argument's line
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n"
                    "  replicas: 1\n  selector: {matchLabels: {app: v}}\n  template:\n"
                    "    metadata: {labels: {app: v}}\n    spec:\n      containers:\n"
                    "        - name: v\n          image: vllm/vllm-openai:v0.8.5\n"
                    "          args: [\"--model\", \"meta-llama/Meta-Llama-3-8B-Instruct\",\n"
                    "                 \"--dtype\", \"int4\"]\n"
                    "          resources: {limits: {nvidia.com/gpu: 1}}\n")
    code, out = _check(path)
    assert code == 2
    assert "ERROR line 14: --dtype: 'int4' is not a compute dtype vLLM takes" in out


# outcome 80 (vllm#12892): DeepSeek-R1, an fp8 checkpoint, served with --dtype bfloat16 at TP 8
OUTCOME_80 = (Path(__file__).parents[1] / "assets" / "check" / "outcomes"
              / "80-vllm-deepseek-r1-tp8-8xh200-2048-started.sh")


def test_size_and_explain_plan_a_quantized_checkpoint_as_check_does() -> None:
    """explain and size read a manifest's --dtype as check does (task h80outcomes saw explain plan
    DeepSeek-R1's weights in bf16, 157.93 GiB a GPU and a negative pool, where check planned fp8).
    The pool is check's: 801,152 tokens, 56,302,649,867 B a GPU, weights in fp8."""
    import json

    check = CliRunner().invoke(app, ["check", str(OUTCOME_80), "--format", "json"])
    assert check.exit_code == 0, check.output
    planned = json.loads(check.stdout)["results"][0]
    assert planned["kv_pool_bytes_per_gpu"] == 56_302_649_867
    size = CliRunner().invoke(app, ["size", str(OUTCOME_80), "--format", "json"])
    assert size.exit_code == 0, size.output
    row = json.loads(size.stdout)["results"][0]
    assert (row["weight_dtype"], row["kv_cache_tokens"], row["kv_budget_bytes"]) == \
        ("fp8", 801_152, planned["kv_pool_bytes_per_gpu"])
    explain = CliRunner().invoke(app, ["explain", str(OUTCOME_80)])
    assert explain.exit_code == 0, explain.output
    flat = " ".join(explain.output.split())
    assert "planned in fp8" in flat and "56,302,649,867 B" in flat


def test_explain_refuses_a_compute_dtype_the_engine_refuses(tmp_path: Path) -> None:
    """A --dtype outside the engine's six words is check's ERROR; explain says it, exit 2."""
    path = tmp_path / "serve.sh"
    path.write_text(f"{SERVE} --dtype fp8\n")
    res = CliRunner().invoke(app, ["explain", str(path), "--gpu", "h100"])
    assert res.exit_code == 2, res.output
    assert "'fp8' is not a compute dtype vLLM takes" in " ".join(res.output.split())
