"""`kvplan check` on Python scripts, hostile and unusual inputs (task h60pyreview): a bool given
for a number, constructions the reader used to drop without a word (a star import,
functools.partial, a loop), notebooks whose cells are not nbformat's, and the split of
python_script.py (behaviour unchanged)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app

HEAD = "from vllm import LLM\n"


def _targets(tmp_path: Path, text: str, name: str = "run.py") -> list:
    path = tmp_path / name
    path.write_text(text)
    return read_targets(path, {})


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def test_a_bool_for_a_vllm_number_is_read_as_pydantic_reads_it(tmp_path: Path) -> None:
    # vllm 0.34.0 config/utils.py `config`: pydantic dataclasses, lax mode: True is 1, False 0
    [t] = _targets(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", '
                   "gpu_memory_utilization=True, max_model_len=True)\n")
    assert not t.problems, _problems(t)
    assert (t.deployment.engine.gpu_memory_utilization, t.deployment.engine.max_model_len) == \
        (1.0, 1)
    assert any("max_model_len=True (line 2): a bool where --max-model-len takes a number" in n
               and "pydantic" in n and "planned with 1" in n for n in t.notes)
    [t] = _targets(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", max_model_len=False)\n')
    assert "max_model_len line 2: Input should be greater than 0" in _problems(t)


def test_a_bool_for_an_sglang_number_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "run.py"
    path.write_text('import sglang as sgl\nllm = sgl.Engine(model_path="Qwen/Qwen3-8B", '
                    "mem_fraction_static=True)\n")
    got = CliRunner().invoke(app, ["check", "--gpu", "h100-80gb", str(path)])
    assert got.exit_code == 2, got.output
    assert ("ERROR line 2: mem_fraction_static: mem_fraction_static=True (line 2): a bool where "
            "--mem-fraction-static takes a number") in got.output
    assert "needs a value" not in got.output
