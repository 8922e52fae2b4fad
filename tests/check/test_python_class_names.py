"""The engine class under other spellings (task h61pyleft): `getattr(vllm, "LLM")(...)` and a
name bound once to the class and only ever called (`Engine = vllm.LLM; Engine(...)`) are
constructions; a computed attribute (`getattr(vllm, name)(...)`) and an alias also used as a
value (`return cls`) are refused with the reason (kvplan.check.manifests.python_constructions)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.cli import app

CALL = '(model="Qwen/Qwen3-8B", max_model_len=4096)\n'


def _targets(tmp_path: Path, text: str) -> list:
    path = tmp_path / "run.py"
    path.write_text(text)
    return read_targets(path, {})


def test_literal_getattr_and_an_alias_are_read(tmp_path: Path) -> None:
    for text in ('import vllm\nllm = getattr(vllm, "LLM")' + CALL,
                 # with a default (task h62review: 'nothing that runs vLLM' before)
                 'import vllm\nllm = getattr(vllm, "LLM", None)' + CALL,
                 'import vllm\nEngine = vllm.LLM\nllm = Engine' + CALL,
                 'import vllm as v\nEngine = getattr(v, "LLM")\ndef go():\n    return Engine' + CALL,
                 'from vllm import LLM\nEngine = LLM\nllm = Engine' + CALL):
        [t] = _targets(tmp_path, text)
        assert t.deployment is not None, (text, t.problems)
        assert (t.deployment.engine.name, t.deployment.engine.max_model_len,
                t.deployment.engine.entrypoint) == ("vllm", 4096, "offline"), text
    [trt] = _targets(tmp_path, 'import tensorrt_llm\nE = tensorrt_llm.LLM\nE' + CALL)
    assert trt.deployment.engine.name == "trtllm"


def test_computed_getattr_and_an_alias_used_as_a_value_are_refused(tmp_path: Path) -> None:
    [t] = _targets(tmp_path, 'import vllm\nname = "LLM"\nllm = getattr(vllm, name)' + CALL)
    assert [p.message for p in t.problems] == [
        "`getattr(vllm, name)(...)` calls an attribute of vllm whose name is computed when the "
        "script runs: kvplan does not follow which class it starts; call the class by its name "
        "(`LLM(...)`, `vllm.LLM(...)`, `getattr(vllm, \"LLM\")(...)`), or describe the "
        "deployment in a kvplan/v1 file"]
    [cls] = _targets(tmp_path, 'from vllm import LLM\ndef kind():\n    cls = LLM\n    return cls\n'
                     'llm = kind()' + CALL)
    assert "LLM (vllm's engine class) is handed on as a value in `cls = LLM`" in \
        cls.problems[0].message
    twice = _targets(tmp_path, 'from vllm import LLM\nE = LLM\nE = dict\nllm = E' + CALL)
    assert [t.line for t in twice] == [2] and "handed on" in twice[0].problems[0].message
    assert _targets(tmp_path, 'import os\nname = "getcwd"\ngetattr(os, name)()\n') == []
    [attr] = _targets(tmp_path, 'from vllm import LLM\nclass W:\n    engine_cls = LLM\n'
                      '    def go(self):\n        return self.engine_cls' + CALL)
    assert "handed on as a value in `engine_cls = LLM`" in attr.problems[0].message


def test_cli_checks_an_aliased_class(tmp_path: Path) -> None:
    path = tmp_path / "alias.py"
    path.write_text('import vllm\nEngine = vllm.LLM\nllm = Engine' + CALL)
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0 and "PASS  line 3" in res.output
