"""`LLM(dtype=torch.float64)`: torch's dtype attributes are read (task h71left; task h70review found
torch.float64 refused as "an attribute the file does not assign"), and float64 refused for the
engine's own reason (kvplan.engines.python_api.PythonApi.float64_refused). Sources, read in the
wheels: vLLM 0.29.0 takes a torch.dtype as given (vllm/config/model.py:2339) where its
`--dtype` choices (ModelDType, :100) hold no float64, and no CUDA attention backend takes
float64 (v1/attention/backends/flash_attn.py:82, flashinfer.py:409: float16, bfloat16;
triton_attn.py:289, flex_attention.py:91: and float32), so the engine stops with "No valid
attention backend found" (platforms/cuda.py:457). SGLang 0.5.23's --dtype choices hold no
float64 (srt/arg_groups/fields/model.py:173); Engine(dtype=torch.float64) passes the object to
configs/model_config.py:2326 as given, which kvplan does not plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import read_targets

HEAD = {"vllm": "import torch\nfrom vllm import LLM\nllm = LLM(",
        "sglang": "import torch\nimport sglang as sgl\nllm = sgl.Engine("}
MODEL = {"vllm": 'model="meta-llama/Meta-Llama-3-8B-Instruct", ',
         "sglang": 'model_path="meta-llama/Meta-Llama-3-8B-Instruct", '}


def _one(tmp_path: Path, engine: str, dtype: str):
    path = tmp_path / "run.py"
    path.write_text(f"{HEAD[engine]}{MODEL[engine]}dtype={dtype})\n")
    [t] = read_targets(path, {})
    return t


@pytest.mark.parametrize(("engine", "dtype", "word"), [
    ("vllm", "torch.float32", "float32"), ("vllm", "torch.float", "float"),
    ("vllm", "torch.float16", "float16"), ("vllm", "torch.half", "half"),
    ("vllm", "torch.bfloat16", "bfloat16"), ("sglang", "torch.half", "half"),
    ("sglang", "torch.float", "float"), ("sglang", "torch.bfloat16", "bfloat16")])
def test_torch_dtypes_are_the_dtype_words(tmp_path: Path, engine: str, dtype: str,
                                          word: str) -> None:
    t = _one(tmp_path, engine, dtype)
    assert t.deployment is not None, t.problems
    assert t.deployment.engine.weight_dtype == word


@pytest.mark.parametrize("dtype", ["torch.float64", "torch.double"])
def test_float64_is_refused_for_vllm_s_reason(tmp_path: Path, dtype: str) -> None:
    t = _one(tmp_path, "vllm", dtype)
    assert t.deployment is None
    [p] = t.problems
    assert p.field == "dtype" and p.line == 3
    assert "an attribute the file does not assign" not in p.message
    assert p.message.startswith(f"dtype={dtype} (line 3): float64, which vLLM takes as given "
                                "(a torch.dtype, vllm/config/model.py:2339 in 0.29.0")
    assert "No valid attention backend found" in p.message
    assert "flash_attn.py:82" in p.message and "platforms/cuda.py:457" in p.message
    assert p.message.endswith("write torch.bfloat16, torch.float16 or torch.float32")


@pytest.mark.parametrize("dtype", ["torch.float64", "torch.double"])
def test_float64_is_refused_for_sglang(tmp_path: Path, dtype: str) -> None:
    t = _one(tmp_path, "sglang", dtype)
    assert t.deployment is None
    [p] = t.problems
    assert p.field == "dtype"
    assert "float64, which SGLang's --dtype choices do not hold" in p.message
    assert "srt/arg_groups/fields/model.py:173 in 0.5.23" in p.message
    assert p.message.endswith("write torch.bfloat16, torch.float16 or torch.float32")


def test_a_name_bound_to_a_torch_dtype_is_read(tmp_path: Path) -> None:
    path = tmp_path / "run.py"
    path.write_text('import torch\nfrom vllm import LLM\nDT = torch.bfloat16\n'
                    'llm = LLM(model="meta-llama/Meta-Llama-3-8B-Instruct", dtype=DT)\n')
    [t] = read_targets(path, {})
    assert t.deployment is not None and t.deployment.engine.weight_dtype == "bfloat16"
    # a torch attribute that is no dtype stays unread, as before
    path.write_text('import torch\nfrom vllm import LLM\n'
                    'llm = LLM(model="meta-llama/Meta-Llama-3-8B-Instruct", dtype=torch.foo)\n')
    [t] = read_targets(path, {})
    assert "torch.foo: an attribute the file does not assign" in t.problems[0].message
