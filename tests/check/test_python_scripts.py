"""`kvplan check` on Python scripts that start an engine in-process (task h60pyllm):
kvplan.check.manifests.python_script, python_values, python_words. Each value form the reader
reads, each it refuses (an ERROR when the keyword moves the pool, a note when not), the engine
decided by the import, and the record fields the keywords set."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import check_paths, read_targets
from kvplan.check.discover import discover
from kvplan.cli import app

HEAD = "from vllm import LLM\n"


def _targets(tmp_path: Path, text: str, name: str = "run.py") -> list:
    path = tmp_path / name
    path.write_text(text)
    return read_targets(path, {})


def _one(tmp_path: Path, text: str):  # noqa: ANN202
    [t] = _targets(tmp_path, text)
    return t


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def test_literals_map_onto_the_options_record_fields(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", gpu_memory_utilization=0.85,\n'
             '          max_model_len=4096, tensor_parallel_size=1, enable_prefix_caching=False,\n'
             '          kv_cache_dtype="fp8", max_num_seqs=64)\n')
    e = t.deployment.engine
    assert (t.deployment.model, e.name, e.entrypoint) == ("qwen3-8b", "vllm", "offline")
    assert (e.gpu_memory_utilization, e.max_model_len, e.max_num_seqs) == (0.85, 4096, 64)
    assert (e.enable_prefix_caching, e.kv_cache_dtype) == (False, "fp8")
    assert t.line == 2


def test_the_model_positional_and_a_name_bound_once(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + 'MODEL = "Qwen/Qwen3-8B"\nLEN = 2048\n'
             "def main():\n    n = -1\n    return LLM(MODEL, max_model_len=LEN, seed=n)\n")
    assert (t.deployment.model, t.deployment.engine.max_model_len) == ("qwen3-8b", 2048)


def test_env_default_is_used_and_said(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + "import os\n"
             'llm = LLM(model=os.environ.get("MODEL", "Qwen/Qwen3-8B"),\n'
             '          gpu_memory_utilization=os.getenv("GMU", 0.7))\n')
    assert t.deployment.engine.gpu_memory_utilization == 0.7
    assert any("its default 'Qwen/Qwen3-8B' is used" in n and "MODEL is not set" in n
               for n in t.notes)


def test_int_and_float_of_a_stated_value_are_python_s(tmp_path: Path) -> None:
    """int(os.environ.get("TP_SIZE", "2")) (tests/assets/check/python/
    sglang-chunk-prefill-serverargs.py writes it): Python's own int(), float() and str()."""
    t = _one(tmp_path, HEAD + "import os\n"
             'llm = LLM(model="Qwen/Qwen3-8B", tensor_parallel_size=int(os.environ.get("TP", "2")),\n'
             '          gpu_memory_utilization=float("0.75"), max_model_len=int(4096.9))\n')
    d = t.deployment
    assert (d.parallel.tensor, d.engine.gpu_memory_utilization, d.engine.max_model_len) == (
        2, 0.75, 4096)
    assert any("its default '2' is used" in n for n in t.notes)
    [bad] = _targets(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", max_model_len=int("8k"))\n',
                     "bad.py")
    assert _problems(bad).startswith(
        "max_model_len line 2: int('8k'): raises ValueError when the script runs (invalid literal "
        "for int() with base 10: '8k')")
    [own] = _targets(tmp_path, HEAD + "def int(x):\n    return 2 * x\n"
                     'llm = LLM(model="Qwen/Qwen3-8B", max_model_len=int(4096))\n', "own.py")
    assert "int(4096): a value computed when the script runs" in _problems(own)


def test_a_dict_spread_is_read(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + 'KW = {"max_model_len": 1024}\n'
             'llm = LLM(model="Qwen/Qwen3-8B", **KW, **{"max_num_seqs": 8})\n')
    assert (t.deployment.engine.max_model_len, t.deployment.engine.max_num_seqs) == (1024, 8)


def test_unread_pool_values_are_refused_with_the_keyword_and_line(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + "import argparse, os\nTP = 1\nTP = 2\n"
             "args = argparse.ArgumentParser().parse_args()\n"
             'llm = LLM(model="Qwen/Qwen3-8B",\n'
             "          tensor_parallel_size=TP,\n"
             "          gpu_memory_utilization=args.gmu,\n"
             '          max_model_len=int(os.environ.get("LEN", "4096")) * 2,\n'
             '          max_num_seqs=os.getenv("SEQS"))\n')
    said = _problems(t)
    assert t.deployment is None
    assert "tensor_parallel_size line 7: TP: bound 2 times in the module (lines 3, 4)" in said
    assert "gpu_memory_utilization line 8: args.gmu: an option of the command line" in said
    assert "max_model_len line 9: int(os.environ.get('LEN', '4096')) * 2: a value computed" in said
    assert "max_num_seqs line 10: os.getenv('SEQS'): read from the environment variable SEQS" \
        in said


def test_unread_values_that_move_nothing_are_noted(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + "def run(seed):\n"
             '    return LLM(model="Qwen/Qwen3-8B", seed=seed, trust_remote_code=True)\n')
    assert t.deployment is not None and not t.problems
    assert any(n.startswith("seed (line 3) not read (seed: a parameter of function run")
               for n in t.notes)


def test_keywords_of_unknown_content_are_refused(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + "def make(**kw):\n"
             '    return LLM(model="Qwen/Qwen3-8B", **kw)\n')
    assert "** line 3: **kw: keywords of unknown content" in _problems(t)


def test_a_keyword_the_engine_does_not_take_is_refused(tmp_path: Path) -> None:
    t = _one(tmp_path, HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", enable_steer_vector=True)\n')
    assert "enable_steer_vector line 2: not a keyword vllm takes" in _problems(t)
    assert "TypeError" in _problems(t)
    t = _one(tmp_path, "import sglang as sgl\n"
             'e = sgl.Engine(model_path="Qwen/Qwen3-8B", mem_fraction=0.8)\n')
    assert "mem_fraction line 2: not a keyword sglang takes" in _problems(t)


def test_engine_args_and_usage_contexts(tmp_path: Path) -> None:
    ts = _targets(tmp_path, "from vllm import EngineArgs, LLMEngine\n"
                  "from vllm.engine.async_llm_engine import AsyncLLMEngine\n"
                  "from vllm.usage.usage_lib import UsageContext\n"
                  'a = LLMEngine.from_engine_args(EngineArgs(model="Qwen/Qwen3-8B"))\n'
                  'args = EngineArgs(model="Qwen/Qwen3-8B", max_num_seqs=16)\n'
                  "b = AsyncLLMEngine.from_engine_args(args,\n"
                  "    usage_context=UsageContext.OPENAI_API_SERVER)\n"
                  "c = LLMEngine.from_engine_args(args, usage_context=UsageContext.LLM_CLASS)\n")
    got = [(t.line, t.deployment.engine.entrypoint, t.deployment.engine.max_num_batched_tokens,
            t.deployment.engine.max_num_seqs) for t in ts]
    # ENGINE_CONTEXT: SchedulerConfig's 2,048 tokens and 128 sequences (vllm 0.29.0
    # config/scheduler.py:42, :44); the others state the entrypoint only
    assert got == [(4, None, 2048, 128), (6, None, None, 16), (8, "offline", None, 16)]


def test_the_import_decides_the_engine(tmp_path: Path) -> None:
    trt = _one(tmp_path, "import os\nfrom tensorrt_llm import LLM, BuildConfig\n"
               "from tensorrt_llm.llmapi import KvCacheConfig\n"
               'os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n'
               'llm = LLM(model="TinyLlama/TinyLlama-1.1B-Chat-v1.0", tensor_parallel_size=2,\n'
               "    kv_cache_config=KvCacheConfig(free_gpu_memory_fraction=0.8, max_tokens=8192),\n"
               "    build_config=BuildConfig(max_batch_size=64, max_seq_len=2048))\n")
    d = trt.deployment
    assert (d.engine.name, d.parallel.tensor, d.engine.gpu_memory_utilization) == ("trtllm", 2, 0.8)
    assert (d.engine.max_tokens_in_paged_kv_cache, d.engine.max_num_seqs,
            d.engine.max_model_len) == (8192, 64, 2048)
    assert d.engine.entrypoint is None
    assert any("CUDA_VISIBLE_DEVICES=0,1: 2 GPU(s)" in n for n in trt.notes)
    assert _targets(tmp_path, 'from mylib import LLM\nllm = LLM(model="Qwen/Qwen3-8B")\n') == []


def test_trtllm_config_values_the_file_does_not_state(tmp_path: Path) -> None:
    t = _one(tmp_path, "from tensorrt_llm import LLM\nfrom tensorrt_llm.llmapi import KvCacheConfig\n"
             "kv = KvCacheConfig(max_tokens=32768 * 32)\n"
             'llm = LLM(model="TinyLlama/TinyLlama-1.1B-Chat-v1.0", kv_cache_config=kv)\n')
    assert "kv_cache_config.max_tokens line 3: 32768 * 32: a value computed" in _problems(t)


def test_trtllm_keywords_kvplan_does_not_read_are_a_note_not_a_refusal(tmp_path: Path) -> None:
    """LLM(model=..., executor_type="ray") (round 2's trtllm-ray-placement.py, line 56): no key
    the options reader reads, so no options file is handed to it (which refuses a YAML that
    states none); the keyword is named as not read and the engine is planned."""
    t = _one(tmp_path, "from tensorrt_llm import LLM\n"
             'llm = LLM(model="TinyLlama/TinyLlama-1.1B-Chat-v1.0", executor_type="ray")\n')
    assert t.problems == [] and t.deployment.model == "tinyllama-1.1b"
    assert "the LLM(...) keywords of line 2: keys not read by kvplan: executor_type: not read" \
        in t.notes
    read = _one(tmp_path, "from tensorrt_llm import LLM\n"
                'llm = LLM(model="TinyLlama/TinyLlama-1.1B-Chat-v1.0", executor_type="ray",\n'
                "          max_batch_size=8)\n")
    assert read.problems == [] and read.deployment.engine.max_num_seqs == 8


def test_sglang_engine_and_server_args(tmp_path: Path) -> None:
    ts = _targets(tmp_path, "import sglang\nfrom sglang.srt.server_args import ServerArgs\n"
                  'a = sglang.Engine(model_path="Qwen/Qwen3-8B", mem_fraction_static=0.8,\n'
                  '                  context_length=8192, page_size=16, disable_radix_cache=True)\n'
                  "b = sglang.Engine(server_args=ServerArgs(model_path=\"Qwen/Qwen3-8B\",\n"
                  "                  tp_size=2))\n")
    a, b = (t.deployment for t in ts)
    assert (a.engine.name, a.engine.gpu_memory_utilization, a.engine.max_model_len,
            a.engine.block_size, a.engine.enable_prefix_caching) == ("sglang", 0.8, 8192, 16, False)
    assert (b.parallel.tensor, b.engine.entrypoint) == (2, None)


def test_a_folder_reads_only_python_that_starts_an_engine(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("import vllm_helpers\nprint('no engine here')\n")
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "run.py").write_text(HEAD + 'llm = LLM(model="Qwen/Qwen3-8B")\n')
    files, missing = discover([str(tmp_path)])
    assert [p.name for p, _ in files] == ["run.py"] and not missing
    report = check_paths([str(tmp_path)])
    assert [(Path(o.file).name, o.verdict) for o in report.outcomes] == [("run.py", "WARN")]


def test_cli_checks_a_python_script(tmp_path: Path) -> None:
    path = tmp_path / "offline.py"
    path.write_text(HEAD + 'llm = LLM(model="Qwen/Qwen3-8B", max_model_len=8192)\n'
                    'bad = LLM(model="Qwen/Qwen3-8B", max_model_len=len("x"))\n')
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100", "-f", "json"])
    rows = json.loads(res.output)["results"]
    assert res.exit_code == 2  # an ERROR
    assert [(r["line"], r["verdict"]) for r in rows] == [(2, "PASS"), (3, "ERROR")]
    assert "max_model_len" in json.dumps(rows[1])


def test_a_notebook_is_its_code_cells_joined(tmp_path: Path) -> None:
    book = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": ["# LLM(model='x') in prose is not code\n"]},
        {"cell_type": "code", "source": ["!pip install vllm\n", "%time x = 1\n"]},
        {"cell_type": "code", "source": "%%bash\nnvidia-smi\n"},
        {"cell_type": "code", "source": ["from vllm import LLM\n",
                                         "llm = LLM(model='Qwen/Qwen3-8B', max_model_len=4096)\n",
                                         "await asyncio.sleep(0)\n"]}]}
    path = tmp_path / "demo.ipynb"
    path.write_text(json.dumps(book))
    [t] = read_targets(path, {})
    # every line of every code cell is counted, the %%bash cell's two too (task h70walk: the
    # Python and the shell lines share one count; it was line 4, the Python cells' lines only)
    assert (t.line, t.deployment.engine.max_model_len) == (6, 4096)
    assert t.notes[:4] == [
        "a notebook: line 6 of its code cells joined in order is code cell 3, its line 2",
        "code cell 1, its line 1: `!pip install vllm` left out (IPython syntax, not Python)",
        "code cell 1, its line 2: `%time x = 1` left out (IPython syntax, not Python)",
        "code cell 2 left out: its cell magic %%bash makes it no Python"]
    files, _ = discover([str(tmp_path)])
    assert [p.name for p, _ in files] == ["demo.ipynb"]
    (tmp_path / "broken.ipynb").write_text("{not json")
    [bad] = read_targets(tmp_path / "broken.ipynb", {})
    assert bad.problems[0].message.startswith("not a notebook: its JSON does not parse")


def test_python_that_does_not_parse_is_an_error_when_it_names_an_engine(tmp_path: Path) -> None:
    [t] = _targets(tmp_path, HEAD + "llm = LLM(model=\n")
    assert (t.line, t.problems[0].message.split(";")[0]) == (
        2, "not Python that parses ('(' was never closed)")
    assert _targets(tmp_path, "def (:\n", "other.py") == []


def test_refusals_of_the_conversion_speak_of_keywords(tmp_path: Path) -> None:
    [t] = _targets(tmp_path, HEAD + 'llm = LLM(model="/srv/models/Qwen3-8B")\n')
    [p] = t.problems
    assert (p.field, p.line) == ("model", 2)
    assert 'name the model with served_model_name="<hf id>"' in p.message


def test_an_expression_too_deep_for_the_stack_is_one_error_not_a_crash(tmp_path: Path) -> None:
    """Hostile scripts: 100,000 unary minuses exhaust the parser's memory (MemoryError), 100,000
    additions its recursion, and 900 additions parse but are too deep for ast.unparse: each is
    the same one ERROR on its file, exit 2, and the next file is still checked."""
    model = '"meta-llama/Meta-Llama-3-8B-Instruct"'
    deep = {
        "minus.py": "import vllm\nx = " + "-" * 100_000 + "1\nllm = vllm.LLM(model=" + model + ")\n",
        "parsed.py": HEAD + "x = " + "+".join(["1"] * 900) + f"\nLLM(model={model}, max_model_len=x)\n",
        "long.py": HEAD + "x = " + "+".join(["1"] * 100_000) + f"\nLLM(model={model}, max_model_len=x)\n",
    }
    for name, text in deep.items():
        [t] = _targets(tmp_path, text, name)
        assert _problems(t) == (
            " line 1: not Python that kvplan can read: an expression is nested too deep (Python's "
            "parser, or kvplan's walk of its tree, ran out of stack); describe the deployment in a "
            "kvplan/v1 file"), name
    (tmp_path / "ok.py").write_text(HEAD + f"LLM(model={model})\n")
    result = CliRunner().invoke(app, ["check", str(tmp_path / "parsed.py"), str(tmp_path / "ok.py"),
                                      "--gpu", "h100"])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1] == "2 checked in 2 file(s): 1 PASS, 0 FAIL, 1 ERROR"


def test_the_script_s_own_invalid_escapes_are_not_kvplan_s_output(tmp_path: Path) -> None:
    """`"\\%"` is an invalid escape: Python's parser warns (DeprecationWarning on 3.11, a
    SyntaxWarning printed to stderr from 3.12; round 2's vllm-prover-v2-tp2.py has one). The
    reader parses with those warnings off, so the check's output is the check's alone."""
    import warnings

    text = HEAD + 'PROMPT = "100\\% sure"\nllm = LLM(model="Qwen/Qwen3-8B")\n'
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t = _one(tmp_path, text)
    assert t.deployment.model == "qwen3-8b"
    assert [str(w.message) for w in seen] == []


def test_a_pass_says_the_engine_s_batch_cap_beside_what_the_pool_holds(tmp_path: Path) -> None:
    """The pool's sequences are not the concurrency a user gets when the engine's batch cap
    (vLLM max_num_seqs, TensorRT-LLM max_batch_size) is smaller: both are said; without a cap
    below the pool, the line is as before."""
    model = 'model="TinyLlama/TinyLlama-1.1B-Chat-v1.0"'
    for name, text in {
            "vllm.py": HEAD + f"LLM({model}, max_num_seqs=8)\n",
            "trt.py": f"from tensorrt_llm import LLM\nLLM({model}, max_batch_size=8)\n",
            "free.py": HEAD + f"LLM({model})\n"}.items():
        (tmp_path / name).write_text(text)
    report = check_paths([str(tmp_path / n) for n in ("vllm.py", "trt.py", "free.py")],
                         default_gpu="a100-80gb")
    capped = [o.summary for o in report.outcomes]
    assert [("at most 8 run at once (engine.max_num_seqs)" in s) for s in capped] == [
        True, True, False]
    assert all(s.startswith("starts; holds ") and s.endswith("capacity against traffic not checked")
               for s in capped)
