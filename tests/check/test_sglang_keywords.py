"""SGLang's keywords are ServerArgs FIELD names, not launch_server's flag spellings (task
h61pyleft, read from the sglang 0.5.23 wheel: kvplan.engines.python_api SGLANG_*):
`sglang.Engine(tensor_parallel_size=2)` or `model=` raises TypeError (the flags are aliases of
tp_size and model_path), a field whose option has another name (fp8_gemm_runner_backend is
--fp8-gemm-backend) is taken, and a field no option carries is noted."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check import read_targets
from kvplan.check.argv import TABLES
from kvplan.cli import app
from kvplan.engines.python_api import SGLANG

HEAD = "import sglang as sgl\n"


def _one(tmp_path: Path, text: str):  # noqa: ANN202
    path = tmp_path / "run.py"
    path.write_text(HEAD + text)
    [t] = read_targets(path, {})
    return t


def test_the_tables_agree_with_the_option_table_of_the_same_release() -> None:
    flags = TABLES["sglang"][0]
    for keyword, field in SGLANG.flag_spellings:
        assert "--" + keyword.replace("_", "-") in flags, keyword
        own = dict(SGLANG.keyword_flags).get(field, "--" + field.replace("_", "-"))
        assert not field or own in flags, field
    for field, flag in SGLANG.keyword_flags:
        assert flag in flags and "--" + field.replace("_", "-") not in flags
    assert len(SGLANG.flag_spellings) == 22 and len(SGLANG.flagless) == 17


def test_a_flag_spelling_as_a_keyword_is_refused_with_the_field(tmp_path: Path) -> None:
    t = _one(tmp_path, 'e = sgl.Engine(model="Qwen/Qwen3-8B", tensor_parallel_size=2)\n')
    assert [(p.field, p.message.split(" (")[0], p.message.rsplit("; ", 1)[-1])
            for p in t.problems] == [
        ("model", "not a keyword sglang takes: --model is the command line's spelling of the "
         "field model_path, and the constructor raises TypeError on it", "write model_path="),
        ("tensor_parallel_size", "not a keyword sglang takes: --tensor-parallel-size is the "
         "command line's spelling of the field tp_size, and the constructor raises TypeError on "
         "it", "write tp_size=")]
    inner = _one(tmp_path, "from sglang import ServerArgs\n"
                 'e = sgl.Engine(server_args=ServerArgs(model_path="Qwen/Qwen3-8B", ep=2))\n')
    assert [p.field for p in inner.problems] == ["ep"]
    config = _one(tmp_path, 'e = sgl.Engine(model_path="Qwen/Qwen3-8B", config="c.yaml")\n')
    assert "--config is an option of the command line only, no field" in \
        config.problems[0].message


def test_fields_with_another_option_name_or_none_are_taken(tmp_path: Path) -> None:
    t = _one(tmp_path, 'e = sgl.Engine(model_path="Qwen/Qwen3-8B", tp_size=2,\n'
             '                 fp8_gemm_runner_backend="auto", stat_loggers=None)\n')
    assert t.deployment is not None, t.problems
    assert t.deployment.parallel.tensor == 2
    assert "stat_loggers (line 3): a field of sglang's ServerArgs that no option of the command " \
           "line carries; kvplan's plan does not read it" in t.notes
    assert any("--fp8-gemm-backend" in n for n in t.notes)  # its option, named as not read


def test_cli_refuses_an_alias_keyword(tmp_path: Path) -> None:
    path = tmp_path / "tp.py"
    path.write_text(HEAD + 'e = sgl.Engine(model_path="Qwen/Qwen3-8B", data_parallel_size=2)\n')
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 2
    assert "data_parallel_size: not a keyword sglang takes: --data-parallel-size is the command " \
           "line's spelling of the field dp_size" in res.output
