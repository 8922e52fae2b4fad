"""vLLM started from Python, judged by the release the notebook pins (task h82vllmrel).

The releases' own facts come from their wheels on PyPI (read by benchmarks/extract_vllm_python.py
into kvplan/engines/vllm_python_releases.json; the lines below were read by hand in the same
wheels): EngineArgs' fields (`swap_space` in 0.11.0, vllm/engine/arg_utils.py:285; gone from
0.34.0; `kv_cache_memory_bytes` absent from 0.8.5, :204, present in 0.10.2), AsyncEngineArgs'
own `disable_log_requests` (0.9.0 :1553-1555), and LLM.__init__'s positional parameters
(0.9.0 entrypoints/llm.py:168-197 takes them all, @deprecate_args :161-167; 0.9.1 :155-159 is
`model: str, *, task ...`). The figures a positional argument read as a keyword should give are
those of the same keyword written out (an independent path to the plan)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app

QWEN = "Qwen/Qwen3-8B"


def _book(tmp_path: Path, pin: str | None, code: str, name: str = "nb.ipynb") -> Path:
    cells = ([f"!pip install vllm=={pin}"] if pin else []) + [code]
    path = tmp_path / name
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": c} for c in cells]}))
    return path


def _one(tmp_path: Path, pin: str | None, code: str):  # noqa: ANN202
    [t] = read_targets(_book(tmp_path, pin, code), {})
    return t


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def _pool(path: Path) -> tuple[int, int, int]:
    out = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"]).output
    m = re.search(r"holds ([\d,]+) sequences of ([\d,]+) tokens per replica \(([\d,]+) tokens",
                  out)
    assert m is not None, out
    seqs, each, pool = (int(g.replace(",", "")) for g in m.groups())
    return seqs, each, pool


LLM_SWAP = f"from vllm import LLM\nllm = LLM(model='{QWEN}', max_model_len=8192, swap_space=4)\n"


def test_a_field_the_pinned_release_has_is_taken(tmp_path: Path) -> None:
    """swap_space is an EngineArgs field of 0.11.0 (arg_utils.py:285) that 0.34.0 dropped: on a
    notebook pinned to 0.11.0 it is taken (noted, not planned), where the newest table refused
    it; the pool is that of the same notebook without it."""
    t = _one(tmp_path, "0.11.0", LLM_SWAP)
    assert not t.problems, _problems(t)
    assert t.deployment.engine.version == "0.11.0"
    assert any(n.startswith("swap_space (line 3): a field of vLLM 0.11.0's EngineArgs (vllm "
                            "0.11.0 vllm/engine/arg_utils.py:285 EngineArgs, in "
                            "vllm-0.11.0-cp38-abi3-manylinux1_x86_64.whl), which vLLM 0.34.0")
               for n in t.notes), t.notes
    without = "from vllm import LLM\nllm = LLM(model='Qwen/Qwen3-8B', max_model_len=8192)\n"
    assert _pool(_book(tmp_path, "0.11.0", LLM_SWAP, "a.ipynb")) == \
        _pool(_book(tmp_path, "0.11.0", without, "b.ipynb"))


def test_no_pin_keeps_the_default_release_s_table(tmp_path: Path) -> None:
    t = _one(tmp_path, None, LLM_SWAP)
    assert [(p.field, p.line) for p in t.problems] == [("swap_space", 2)]
    assert "not a keyword vllm takes: vLLM's LLM passes it to EngineArgs(**kwargs)" in \
        t.problems[0].message


def test_a_field_the_pinned_release_lacks_is_refused_naming_it(tmp_path: Path) -> None:
    t = _one(tmp_path, "0.8.5", f"from vllm import LLM\nllm = LLM(model='{QWEN}', "
             "kv_cache_memory_bytes=8000000000)\n")
    assert [(p.field, p.line) for p in t.problems] == [("kv_cache_memory_bytes", 3)]
    assert t.problems[0].message == (
        "not a keyword vLLM 0.8.5 takes: vLLM's LLM passes it to EngineArgs(**kwargs), a "
        "dataclass whose fields in that release (vllm 0.8.5 vllm/engine/arg_utils.py:204 "
        "EngineArgs, in vllm-0.8.5-cp38-abi3-manylinux1_x86_64.whl) hold no "
        "kv_cache_memory_bytes, so it raises TypeError (unexpected keyword argument); it came "
        "in vLLM 0.10.2: drop it or pin vllm 0.10.2 or newer")
    # the same keyword on 0.10.2, which has the field, is read
    ok = _one(tmp_path, "0.10.2", f"from vllm import LLM\nllm = LLM(model='{QWEN}', "
              "kv_cache_memory_bytes=8000000000)\n")
    assert not ok.problems, _problems(ok)
    assert ok.deployment.engine.kv_cache_memory_bytes == 8_000_000_000


def test_async_engine_args_own_field_is_its_class_s(tmp_path: Path) -> None:
    """0.9.0: disable_log_requests is AsyncEngineArgs' own field (arg_utils.py:1553-1555), no
    EngineArgs field: EngineArgs(..., disable_log_requests=True) raises TypeError there."""
    async_ = _one(tmp_path, "0.9.0", "from vllm import AsyncEngineArgs, AsyncLLMEngine\n"
                  f"AsyncLLMEngine.from_engine_args(AsyncEngineArgs(model='{QWEN}', "
                  "disable_log_requests=True))\n")
    assert not async_.problems, _problems(async_)
    plain = _one(tmp_path, "0.9.0", "from vllm import EngineArgs, LLMEngine\n"
                 f"LLMEngine.from_engine_args(EngineArgs(model='{QWEN}', "
                 "disable_log_requests=True))\n")
    assert [p.field for p in plain.problems] == ["disable_log_requests"]
    assert plain.problems[0].message.startswith(
        "not a keyword vLLM 0.9.0 takes: vLLM's EngineArgs(...) is a dataclass whose fields in "
        "that release (vllm 0.9.0 vllm/engine/arg_utils.py:258 EngineArgs")
    assert plain.problems[0].message.endswith(
        "it is a field of AsyncEngineArgs, EngineArgs' subclass (vllm 0.9.0 "
        "vllm/engine/arg_utils.py:1553 AsyncEngineArgs(EngineArgs), :258 EngineArgs, in "
        "vllm-0.9.0-cp38-abi3-manylinux1_x86_64.whl), which AsyncLLMEngine.from_engine_args "
        "takes")


def test_between_two_releases_read_is_noted(tmp_path: Path) -> None:
    """0.8.0 was not read: a keyword neither 0.7.3 nor 0.8.5 has is noted, not refused; one
    both have is read."""
    t = _one(tmp_path, "0.8.0", f"from vllm import LLM\nllm = LLM(model='{QWEN}', "
             "max_model_len=8192, kv_cache_memory_bytes=8000000000)\n")
    assert not t.problems, _problems(t)
    assert "kv_cache_memory_bytes (line 3): vLLM 0.8.0 was not read: neither vLLM 0.7.3 nor " \
        "0.8.5, the releases read around it, has a field kv_cache_memory_bytes: not checked, " \
        "and not read" in t.notes
    assert t.deployment.engine.max_model_len == 8192


def test_the_wording_names_the_class_the_script_called(tmp_path: Path) -> None:
    for code, said in (
        (f"from vllm import LLM\nLLM(model='{QWEN}', bogus=1)\n",
         "vLLM's LLM passes it to EngineArgs(**kwargs)"),
        ("from vllm import EngineArgs, LLMEngine\n"
         f"LLMEngine.from_engine_args(EngineArgs(model='{QWEN}', bogus=1))\n",
         "vLLM's EngineArgs(...) is a dataclass (vllm 0.34.0 vllm/engine/arg_utils.py:487-488"),
        ("from vllm import AsyncEngineArgs, AsyncLLMEngine\n"
         f"ea = AsyncEngineArgs(model='{QWEN}', bogus=1)\n"
         "AsyncLLMEngine.from_engine_args(ea)\n",
         "vLLM's AsyncEngineArgs(...) is a dataclass"),
    ):
        t = _one(tmp_path, None, code)
        [p] = t.problems
        assert p.field == "bogus"
        assert p.message.startswith(f"not a keyword vllm takes: {said}"), p.message
        assert "LLM passes" not in p.message or "LLM(" in code.split("\n")[1]


def test_an_attribute_is_a_field_by_the_pinned_release(tmp_path: Path) -> None:
    code = ("from vllm import EngineArgs, LLMEngine\n"
            f"ea = EngineArgs(model='{QWEN}', max_model_len=8192)\n"
            "ea.swap_space = 2\nea.foo = 3\nLLMEngine.from_engine_args(ea)\n")
    t = _one(tmp_path, "0.11.0", code)
    assert not t.problems, _problems(t)
    assert "ea.swap_space (line 4): set after EngineArgs(...) and before the launch (line 6): " \
        "read as its keyword" in t.notes
    assert any(n.startswith("ea.foo (line 5): not a field of EngineArgs in vLLM 0.11.0 (vllm "
                            "0.11.0 vllm/engine/arg_utils.py:285") for n in t.notes), t.notes
    unpinned = _one(tmp_path, None, code)
    assert any(n.startswith("ea.swap_space (line 3): not a field of EngineArgs: ")
               for n in unpinned.notes), unpinned.notes


POSITIONAL = (f"from vllm import LLM\nllm = LLM('{QWEN}', '{QWEN}', 'auto', False, False, '', 2, "
              "max_model_len=8192)\n")
KEYWORDS = (f"from vllm import LLM\nllm = LLM(model='{QWEN}', tokenizer='{QWEN}', "
            "tokenizer_mode='auto', skip_tokenizer_init=False, trust_remote_code=False, "
            "allowed_local_media_path='', tensor_parallel_size=2, max_model_len=8192)\n")


def test_positionals_are_read_in_the_order_of_a_release_that_takes_them(tmp_path: Path) -> None:
    """0.9.0 (the last release with them): argument 7 is tensor_parallel_size, planned on 2
    GPUs as the keywords written out are."""
    t = _one(tmp_path, "0.9.0", POSITIONAL)
    assert not t.problems, _problems(t)
    assert t.deployment.parallel.tensor == 2
    [note] = [n for n in t.notes if "positional argument" in n]
    assert note.startswith(f"line 3: positional argument 2, '{QWEN}', read as tokenizer=; "
                           "positional argument 3, 'auto', read as tokenizer_mode=; ")
    assert "positional argument 7, 2, read as tensor_parallel_size=: vLLM 0.9.0 takes" in note
    assert note.endswith("(vllm 0.9.0 vllm/entrypoints/llm.py:168)")
    assert _pool(_book(tmp_path, "0.9.0", POSITIONAL, "p.ipynb")) == \
        _pool(_book(tmp_path, "0.9.0", KEYWORDS, "k.ipynb"))


def test_positionals_are_refused_from_0_9_1(tmp_path: Path) -> None:
    t = _one(tmp_path, "0.9.1", f"from vllm import LLM\nllm = LLM('{QWEN}', '{QWEN}')\n")
    [p] = t.problems
    assert p.line == 3
    assert "the script pins vllm 0.9.1, at or after 0.9.1, the first release without them " \
        "(vllm 0.9.1 vllm/entrypoints/llm.py:155-159: `model: str, *, ...`)" in p.message
    unpinned = _one(tmp_path, None, f"from vllm import LLM\nllm = LLM('{QWEN}', '{QWEN}')\n")
    [q] = unpinned.problems
    assert "takes only the model positionally" in q.message and "pins" not in q.message


def test_positionals_on_a_release_whose_order_was_not_read_are_named(tmp_path: Path) -> None:
    t = _one(tmp_path, "0.5.3", f"from vllm import LLM\nllm = LLM('{QWEN}', '{QWEN}', "
             "max_model_len=8192)\n")
    assert not t.problems, _problems(t)
    assert f"line 3: positional argument 2, '{QWEN}', passed over: vLLM 0.5.3 takes the " \
        "parameters of LLM.__init__ after the model positionally, deprecated (a " \
        "DeprecationWarning; vLLM PR #9424) until 0.9.1 made them keyword only (PR #18802), in " \
        "an order kvplan read for vLLM 0.6.6.post1, 0.7.3, 0.8.5, 0.9.0 only, which does not " \
        "say what argument 2 is in 0.5.3: not read; give it by keyword" in t.notes


def test_the_release_data_says_where_positionals_end() -> None:
    from kvplan.engines import vllm_python as read

    assert read.positional_params("0.9.0")[:2] == ("tokenizer", "tokenizer_mode")
    assert read.positional_params("0.9.1") == ()
    assert read.positional_line("0.9.1") == 159 and read.positional_line("0.9.0") == 0
    assert [r for r in read.releases() if read.positional_gone(r)] == \
        ["0.9.1", "0.10.1", "0.10.2", "0.11.0", "0.34.0"]
