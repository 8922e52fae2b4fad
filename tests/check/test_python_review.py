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


def test_a_star_import_binds_the_packages_exported_classes(tmp_path: Path) -> None:
    # vllm 0.34.0 vllm/__init__.py __all__ holds LLM; sglang 0.5.23 sglang/__init__.py Engine
    [t] = _targets(tmp_path, 'from vllm import *\nllm = LLM(model="Qwen/Qwen3-8B", '
                   "gpu_memory_utilization=0.8)\n")
    assert (t.deployment.engine.name, t.deployment.engine.gpu_memory_utilization) == ("vllm", 0.8)
    [t] = _targets(tmp_path, 'from sglang import *\nllm = Engine(model_path="Qwen/Qwen3-8B", '
                   "mem_fraction_static=0.7)\n")
    assert (t.deployment.engine.name, t.deployment.engine.gpu_memory_utilization) == \
        ("sglang", 0.7)


def test_an_engine_class_handed_on_as_a_value_is_refused(tmp_path: Path) -> None:
    got = _targets(tmp_path, "import functools\n" + HEAD +
                   'make = functools.partial(LLM, model="Qwen/Qwen3-8B")\nllm = make()\n'
                   "def f(x: LLM) -> LLM:\n    return x if isinstance(x, LLM) else x\n")
    assert [(t.line, t.deployment) for t in got] == [(3, None)]
    assert "LLM (vllm's engine class) is handed on as a value in `functools.partial(LLM" in \
        _problems(got[0])


def test_a_construction_in_a_loop_or_comprehension_says_so(tmp_path: Path) -> None:
    [t] = _targets(tmp_path, HEAD + 'llms = [LLM(model="Qwen/Qwen3-8B") for _ in range(2)]\n')
    assert any("LLM(...) (line 2) is inside a comprehension (line 2): each pass starts another "
               "engine" in n for n in t.notes)
    [t] = _targets(tmp_path, HEAD + 'while True:\n    llm = LLM(model="Qwen/Qwen3-8B")\n')
    assert any("is inside a loop (line 2)" in n for n in t.notes)
    [t] = _targets(tmp_path, HEAD + 'if __name__ == "__main__":\n'
                   '    llm = LLM(model="Qwen/Qwen3-8B", max_model_len=2048)\n')
    assert (t.line, t.deployment.engine.max_model_len) == (3, 2048)
    assert not any("loop" in n for n in t.notes)


def test_tensorrt_engine_llm_is_the_tensorrt_backend(tmp_path: Path) -> None:
    # trtllm-serve --backend tensorrt is engine.trtllm_backend (option_fields.py); the PyTorch
    # LLM (tensorrt_llm.LLM) is the release's default backend
    [trt] = _targets(tmp_path, "from tensorrt_llm._tensorrt_engine import LLM\n"
                     'llm = LLM(model="Qwen/Qwen3-8B")\n')
    [torch] = _targets(tmp_path, 'from tensorrt_llm import LLM\nllm = LLM(model="Qwen/Qwen3-8B")\n')
    assert (trt.deployment.engine.trtllm_backend, torch.deployment.engine.trtllm_backend) == \
        ("tensorrt", None)
    assert any("is the LLM of tensorrt_llm._tensorrt_engine: planned as `--backend tensorrt`" in n
               for n in trt.notes)


def _notebook(tmp_path: Path, cells: object) -> list:
    return _targets(tmp_path, json.dumps({"cells": cells, "nbformat": 4}), "run.ipynb")


def test_notebook_cells_that_are_not_nbformats_are_refused(tmp_path: Path) -> None:
    code = HEAD + 'llm = LLM(model="Qwen/Qwen3-8B")\n'
    for cells, why in [
            ([{"cell_type": "code", "source": code}, {"cell_type": "code", "source": {"a": 1}}],
             "code cell 2's source is neither a string nor a list of strings"),
            ([{"cell_type": "code", "source": [code, 5]}],
             "code cell 1's source is neither a string nor a list of strings"),
            (["import os", {"cell_type": "code", "source": code}],
             "cell 1 is a str, not a cell")]:
        [t] = _notebook(tmp_path, cells)
        assert (t.line, t.deployment) == (1, None)
        assert f"not a notebook kvplan reads: {why}" in _problems(t)
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    [t] = read_targets(tmp_path / "deep.ipynb", {})
    assert "its JSON is nested too deeply" in _problems(t)


def test_a_script_past_the_bounds_is_one_error(tmp_path: Path) -> None:
    from kvplan.check.manifests.python_script import MAX_CODE_BYTES, MAX_CONSTRUCTIONS

    assert (MAX_CODE_BYTES, MAX_CONSTRUCTIONS) == (512 * 1024, 64)  # docs/limits.md
    big = HEAD + 'llm = LLM(model="Qwen/Qwen3-8B")\n' + ("#" * 80 + "\n") * (MAX_CODE_BYTES // 81 + 1)
    [t] = _targets(tmp_path, big)
    assert f"{len(big.encode()):,} bytes of Python, over the 524,288 kvplan parses" in \
        _problems(t)
    [t] = _targets(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B")\n' * 65)
    assert "65 engine constructions, over the 64 kvplan reads in one script" in _problems(t)
    # the last literal CUDA_VISIBLE_DEVICES before the construction in line order (the walk was
    # breadth-first: a function's line-4 assignment won over the module's line-6 one)
    path = tmp_path / "run.py"
    path.write_text('import os\n' + HEAD + 'def f():\n    os.environ["CUDA_VISIBLE_DEVICES"] = "0"\n'
                    '    return 1\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n'
                    'llm = LLM(model="Qwen/Qwen3-8B")\n')
    got = CliRunner().invoke(app, ["check", "--gpu", "h100-80gb", str(path)])
    assert got.exit_code == 0, got.output
    assert "note: CUDA_VISIBLE_DEVICES=0,1: 2 GPU(s)" in got.output


def test_a_folder_refuses_the_engine_scripts_it_cannot_read(tmp_path: Path) -> None:
    # before: a syntax error or a broken notebook that imports vLLM was skipped without a word
    # (exit 0), and from a shell `kvplan check FOLDER` with a file of 900 nested additions was an
    # internal error (exit 3: the folder walk's look for an engine ran out of stack)
    (tmp_path / "good.py").write_text(HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", '
                                      "max_model_len=8192)\n")
    (tmp_path / "broken.py").write_text(HEAD + "llm = LLM(model=\n")
    (tmp_path / "deep.py").write_text("import vllm\nx = " + "+".join(["1"] * 3000) + "\n")
    (tmp_path / "bad.ipynb").write_text(json.dumps({"cells": ["from vllm import LLM"]}))
    (tmp_path / "other.py").write_text("import os\nprint(os.getcwd())\n")
    (tmp_path / "run.sh").write_text("vllm serve Qwen/Qwen3-8B\n")
    got = CliRunner().invoke(app, ["check", "--gpu", "h100-80gb", "-f", "json", str(tmp_path)])
    assert got.exit_code == 2, got.output
    report = json.loads(got.output)
    results = {Path(r["file"]).name: r for r in report["results"]}
    # run.sh starts vLLM: a walk reads shell scripts too since task h70walk (it was skipped)
    assert sorted(results) == ["bad.ipynb", "broken.py", "deep.py", "good.py", "run.sh"]
    assert [results[n]["verdict"] for n in sorted(results)] == ["ERROR", "ERROR", "ERROR", "PASS",
                                                                "PASS"]
    # other.py runs no engine: passed over, and said (task h70walk: it was dropped unsaid)
    assert [(Path(s["file"]).name, s["kind"], s["why"]) for s in
            report["summary"]["skipped_scripts"]] == [("other.py", "Python", "starts no engine")]
    assert "not Python that parses" in json.dumps(results["broken.py"])
    assert "nested too deep" in json.dumps(results["deep.py"])
    assert "cell 1 is a str, not a cell" in json.dumps(results["bad.ipynb"])


def test_a_value_of_the_wrong_type_is_refused_in_python_terms(tmp_path: Path) -> None:
    # before: a list, a dict or inf for max_model_len were a FAIL (exit 1) in `vllm serve`'s
    # argparse words, kv_cache_dtype=True "needs a value"
    path = tmp_path / "run.py"
    for said, why in [("max_model_len=[1, 2]", "a list where --max-model-len takes one number"),
                      ('max_model_len={"a": 1}', "a dict where --max-model-len takes one number"),
                      ('max_model_len=float("inf")', "not a finite number, which --max-model-len"),
                      ("kv_cache_dtype=True", "a bool where --kv-cache-dtype takes a value")]:
        path.write_text(HEAD + f'llm = LLM(model="Qwen/Qwen3-8B", {said})\n')
        got = CliRunner().invoke(app, ["check", "--gpu", "h100-80gb", str(path)])
        assert got.exit_code == 2, got.output
        assert f"ERROR line 2: {said.split('=')[0]}: " in got.output and why in got.output
        assert "needs a value" not in got.output
