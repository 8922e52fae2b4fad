"""vLLM started from Python, gaps closed in task h81vllmpy: fields set on an EngineArgs /
AsyncEngineArgs after its construction and before `from_engine_args`, an unread `server_args=`
said once, and `LLM(...)` given more than the model positionally.

The figures a followed attribute should give are those of the same field given as the
constructor's keyword, which kvplan read before this task (an independent path to the plan)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app
from tests.conftest import ASSETS

ASYNC = "from vllm import AsyncEngineArgs, AsyncLLMEngine\n"
CORPUS = ASSETS / "check" / "vllm_python"


def _check(path: Path) -> str:
    return CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"]).output


def _pool(output: str) -> tuple[int, int, int]:
    """(sequences, tokens each, tokens in the pool) of the one PASS line."""
    m = re.search(r"holds ([\d,]+) sequences of ([\d,]+) tokens per replica \(([\d,]+) tokens",
                  output)
    assert m is not None, output
    seqs, each, pool = (int(g.replace(",", "")) for g in m.groups())
    return seqs, each, pool


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _problems(t) -> str:  # noqa: ANN001
    return " | ".join(f"{p.field} line {p.line}: {p.message}" for p in t.problems)


def test_a_field_set_before_from_engine_args_is_planned(tmp_path: Path) -> None:
    """The brief's case: planned at Qwen3-8B's own 40,960 tokens before; now at 8,192, as the
    same field given as AsyncEngineArgs' keyword plans it."""
    script = _write(tmp_path, "a.py", ASYNC + 'ea = AsyncEngineArgs(model="Qwen/Qwen3-8B")\n'
                    "ea.max_model_len = 8192\n"
                    "engine = AsyncLLMEngine.from_engine_args(ea)\n")
    keyword = _write(tmp_path, "k.py", ASYNC + "engine = AsyncLLMEngine.from_engine_args("
                     'AsyncEngineArgs(model="Qwen/Qwen3-8B", max_model_len=8192))\n')
    alone = _write(tmp_path, "n.py", ASYNC + "engine = AsyncLLMEngine.from_engine_args("
                   'AsyncEngineArgs(model="Qwen/Qwen3-8B"))\n')
    said = _check(script)
    assert "PASS  line 4" in said, said
    assert _pool(said) == _pool(_check(keyword))
    assert _pool(said)[1] == 8192 and _pool(_check(alone))[1] == 40960
    assert "ea.max_model_len (line 3): set after AsyncEngineArgs(...) and before the launch " \
        "(line 4): read as its keyword" in said


def test_the_last_assignment_replaces_the_keyword(tmp_path: Path) -> None:
    script = _write(tmp_path, "e.py", "from vllm import EngineArgs, LLMEngine\n"
                    "def main():\n"
                    "    args = EngineArgs(model='Qwen/Qwen3-8B', gpu_memory_utilization=0.5)\n"
                    "    args.gpu_memory_utilization = 0.7\n"
                    "    setattr(args, 'gpu_memory_utilization', 0.8)\n"
                    "    return LLMEngine.from_engine_args(engine_args=args)\n")
    keyword = _write(tmp_path, "k.py", "from vllm import EngineArgs, LLMEngine\n"
                     "LLMEngine.from_engine_args(EngineArgs(model='Qwen/Qwen3-8B', "
                     "gpu_memory_utilization=0.8))\n")
    said = _check(script)
    assert _pool(said) == _pool(_check(keyword))
    assert "args.gpu_memory_utilization (line 5) replaces the gpu_memory_utilization= of the " \
        "EngineArgs(...) on line 3" in said
    assert "handed to" not in said  # from_engine_args itself is the launch


def test_what_is_not_followed_is_named(tmp_path: Path) -> None:
    [t] = read_targets(_write(tmp_path, "main.py", ASYNC + (
        "def main(n, cfg):\n"
        "    ea = AsyncEngineArgs(model='Qwen/Qwen3-8B')\n"
        "    if n:\n"
        "        ea.max_model_len = 4096\n"
        "    ea.gpu_memory_utilization = cfg.util()\n"
        "    ea.my_note = 'x'\n"
        "    ea.seed = cfg.seed\n"
        "    configure(ea)\n"
        "    engine = AsyncLLMEngine.from_engine_args(ea)\n"
        "    ea.max_num_seqs = 3\n")), {})
    problems = _problems(t)
    assert "max_model_len line 5: ea.max_model_len = ... (line 5) is not followed: inside an " \
        "if (line 4) the launch is not in" in problems
    assert "gpu_memory_utilization line 6: ea.gpu_memory_utilization (line 6): cfg.util(): a " \
        "value computed when the script runs" in problems
    assert {p.field for p in t.problems} == {"max_model_len", "gpu_memory_utilization"}, problems
    notes = " | ".join(t.notes)
    assert "ea.my_note (line 7): not a field of AsyncEngineArgs: vLLM's EngineArgs is a " \
        "dataclass" in notes
    assert "vllm/engine/arg_utils.py:284-285" in notes
    assert "seed (line 8) not read" in notes  # no pool option: a note
    assert "ea is handed to configure(...) (line 9) before " \
        "AsyncLLMEngine.from_engine_args(...) (line 10)" in notes
    assert "ea.max_num_seqs (line 11) is set after AsyncLLMEngine.from_engine_args(...) " \
        "(line 10)" in notes

def test_an_unread_server_args_keyword_says_its_name_once(tmp_path: Path) -> None:
    for text, rest in (
        ("import sglang\ndef run(server_args):\n"
         "    engine = sglang.Engine(server_args=server_args)\n",
         "a parameter of function run"),
        ("import sglang\nsa = make()\nengine = sglang.Engine(server_args=sa)\n",
         "make(): a value computed when the script runs"),
    ):
        said = _check(_write(tmp_path, "s.py", text))
        assert f"ERROR line 3: server_args: {rest}" in said, said
        assert said.count("server_args:") == 1, said

def test_llm_given_more_than_the_model_positionally_is_a_type_error(tmp_path: Path) -> None:
    """vllm 0.11.0 entrypoints/llm.py:163-166: `def __init__(self, model: str, *, ...)`."""
    said = _check(_write(tmp_path, "pos.py", "from vllm import LLM\n"
                         "llm = LLM('Qwen/Qwen3-8B', 'Qwen/Qwen3-8B')\n"))
    assert "ERROR line 2: LLM(...) (line 2) is given 'Qwen/Qwen3-8B' as a positional argument" \
        in said, said
    assert "vllm/entrypoints/llm.py:163-166" in said and "TypeError" in said
    assert "passed over" not in said  # what it said before
    one = _check(_write(tmp_path, "one.py", "from vllm import LLM\nllm = LLM('Qwen/Qwen3-8B')\n"))
    assert "PASS  line 2" in one and "positional" not in one


def test_engine_args_bound_in_a_class_body(tmp_path: Path) -> None:
    """The held-out leapfrog-class-engine-args.py's shape: the args object bound in a class body
    (run once, when the class is defined) and the module's constant read from there; before,
    `engine_args: not bound in this file`."""
    script = _write(tmp_path, "cls.py", ASYNC + 'MODEL = "Qwen/Qwen3-8B"\n'
                    "class Server:\n"
                    "    engine_args = AsyncEngineArgs(model=MODEL)\n"
                    "    engine_args.max_model_len = 8192\n"
                    "    engine = AsyncLLMEngine.from_engine_args(engine_args)\n"
                    "    def other(self):\n"
                    "        engine_args = 3\n"
                    "        return engine_args\n")
    keyword = _write(tmp_path, "k.py", ASYNC + "engine = AsyncLLMEngine.from_engine_args("
                     'AsyncEngineArgs(model="Qwen/Qwen3-8B", max_model_len=8192))\n')
    said = _check(script)
    assert "PASS  line 6" in said, said
    assert _pool(said) == _pool(_check(keyword))
    assert "engine_args.max_model_len (line 5): set after AsyncEngineArgs(...)" in said


def test_the_public_files() -> None:
    """tests/assets/check/vllm_python: EXPECTED.md's verdicts and the fields each names, read
    from the files (the held-out ones as written before kvplan ran on them): (the launch's line,
    verdict, [(problem line, field)])."""
    got = {}
    for path in sorted(CORPUS.rglob("*.py")):
        got[path.name] = [(t.line, "PASS" if t.deployment and not t.problems
                           and not t.refusals else "ERROR" if t.problems else "FAIL",
                           sorted({(p.line, p.field) for p in t.problems}))
                          for t in sorted(read_targets(path, {}), key=lambda t: t.line)]
    assert got == {
        "leapfrog-class-engine-args.py": [(161, "ERROR", [(154, "model")])],
        "llmq-vllm-worker.py": [(123, "ERROR", [
            (106, "model"), (107, "gpu_memory_utilization"), (108, "tensor_parallel_size"),
            (114, "data_parallel_size"), (117, "max_num_seqs"), (120, "max_model_len")])],
        "llmengine-prefix-swap.py": [(157, "ERROR", [(150, "swap_space"),
                                                     (151, "preemption_mode")])],
        "telechat-async-engine.py": [(256, "ERROR", [
            (248, "model"), (249, "max_model_len"), (251, "gpu_memory_utilization"),
            (252, "tensor_parallel_size"), (254, "dtype")])],
        "math-eval-llm-positional.py": [
            (29, "ERROR", [(29, ""), (29, "model"), (29, "tensor_parallel_size")]),
            (174, "ERROR", [(174, ""), (174, "model"), (174, "tensor_parallel_size")])],
    }
    [t] = read_targets(CORPUS / "heldout" / "leapfrog-class-engine-args.py", {})
    assert "engine_args.max_model_len (line 158): set after AsyncEngineArgs(...) and before the " \
        "launch (line 161): read as its keyword" in " | ".join(t.notes)
    [t] = read_targets(CORPUS / "llmengine-prefix-swap.py", {})
    notes = " | ".join(t.notes)
    assert "engine_args.gpu_memory_utilization (line 153): set after EngineArgs(...)" in notes
    assert "engine_args.enable_prefix_caching (line 154): set after EngineArgs(...)" in notes
