"""The error contract (exit codes 0/1/2/3), atomic writes, and the parallelism engines accept."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
import typer
from pydantic import ValidationError
from typer.testing import CliRunner

from kvplan.capacity.parallel import check_parallelism, tp_problem, valid_tps
from kvplan.cli import common, values
from kvplan.errors import InputError
from kvplan.inputs import InputFileError, atomic_write
from kvplan.specs import all_models, load_model
from kvplan.specs.schema import ModelSpec
from tests.conftest import invoke


def _app_raising(exc: BaseException) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @common.cli_errors
    def boom() -> None:
        raise exc

    return app


def test_an_unexpected_exception_is_exit_3_with_the_bug_line(runner: CliRunner) -> None:
    res = runner.invoke(_app_raising(ZeroDivisionError("division by zero")), [])
    assert res.exit_code == 3
    assert res.output.strip() == ("internal error: ZeroDivisionError: division by zero; this is a "
                                  "bug in kvplan; please report it with --debug output")


def test_input_errors_are_exit_2_and_debug_shows_the_exception(runner: CliRunner) -> None:
    res = runner.invoke(_app_raising(InputError("x.yaml: num_layers: too big")), [])
    assert (res.exit_code, res.output.strip()) == (2, "error: x.yaml: num_layers: too big")
    common.STATE["debug"] = True
    try:
        res = runner.invoke(_app_raising(ZeroDivisionError("d")), [])
    finally:
        common.STATE["debug"] = False
    assert isinstance(res.exception, ZeroDivisionError)


def test_main_takes_debug_after_the_subcommand_and_catches_escapes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kvplan import cli

    seen: list[list[str]] = []

    def fake_app(args: list[str], prog_name: str) -> None:
        seen.append(args)
        raise KeyError("escaped")

    monkeypatch.setattr(cli, "app", fake_app)
    monkeypatch.setattr(sys, "argv", ["kvplan", "size", "x", "--debug", "--", "--debug"])
    with pytest.raises(KeyError):  # --debug: the exception and its traceback come through
        cli.main()
    assert seen[-1] == ["--debug", "size", "x", "--", "--debug"]
    common.STATE["debug"] = False
    monkeypatch.setattr(sys, "argv", ["kvplan", "size", "x"])
    with pytest.raises(SystemExit) as code:
        cli.main()
    assert code.value.code == 3
    assert capsys.readouterr().err.startswith("internal error: KeyError: 'escaped'; this is a bug")


def test_nothing_fits_is_exit_1_unless_allowed() -> None:
    common.exit_for_fit(True)
    common.exit_for_fit(False, allow_no_fit=True)
    with pytest.raises(typer.Exit) as err:
        common.exit_for_fit(False)
    assert err.value.exit_code == 1


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_float_validators_refuse_non_finite(value: float) -> None:
    for check in (values.finite, values.positive, values.non_negative, values.utilization):
        with pytest.raises(typer.BadParameter):
            check(value)


# ---------------------------------------------------------------- atomic writes


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_failed_text_write_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "plan.json"
    out.write_text("old", encoding="utf-8")

    def full_disk(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(InputFileError, match="cannot write: No space left on device"):
        common.emit("new", out)
    assert out.read_text(encoding="utf-8") == "old"
    assert _leftovers(tmp_path) == []


def test_a_failed_plot_leaves_the_old_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvplan.render import plots

    out = tmp_path / "chart.png"
    out.write_bytes(b"\x89PNG old")
    fig = plt.figure()

    def savefig(path: Path, **kw: object) -> None:
        Path(path).write_bytes(b"\x89PNG trunc")  # half written, then the disk fills
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    fig.savefig = savefig  # type: ignore[method-assign]
    with pytest.raises(InputFileError, match="the old file is unchanged"):
        plots._save(fig, out)
    assert out.read_bytes() == b"\x89PNG old"
    assert _leftovers(tmp_path) == []


def test_an_exception_in_the_writer_removes_the_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    out.write_text("a,b\n", encoding="utf-8")

    def broken(tmp: Path) -> None:
        tmp.write_text("partial", encoding="utf-8")
        raise RuntimeError("renderer failed")

    with pytest.raises(RuntimeError):
        atomic_write(out, broken)
    assert out.read_text(encoding="utf-8") == "a,b\n" and _leftovers(tmp_path) == []


def test_a_real_output_replaces_the_file(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "models.csv"
    out.write_text("stale", encoding="utf-8")
    res = invoke(runner, "models", "--format", "csv", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_text(encoding="utf-8").splitlines()[0].startswith("name,")
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------- parallelism


def _vllm_accepts(heads: int, kv: int, tp: int) -> bool:
    """vLLM's own asserts, written out again as the oracle (vllm/config: attention heads % tp,
    then total_num_kv_heads % tp == 0 if kv >= tp else tp % total_num_kv_heads == 0)."""
    if heads % tp:
        return False
    return kv % tp == 0 if kv >= tp else tp % kv == 0


def test_valid_tps_match_vllms_rule_for_every_catalog_model() -> None:
    models, errors = all_models()
    assert not errors
    for m in models:
        if m.attention.mla is not None:
            continue
        heads, kv = m.num_attention_heads, m.attention.num_kv_heads
        want = [tp for tp in range(1, heads + 1) if _vllm_accepts(heads, kv, tp)]
        assert valid_tps(m) == want, m.name


def test_the_audits_parallelism_cases() -> None:
    phi4, llama = load_model("phi-4"), load_model("llama-3-8b")
    assert valid_tps(phi4) == [1, 2, 5, 10, 20, 40]  # 40 heads, 10 KV heads
    assert tp_problem(phi4, 4) == "tensor parallelism 4 does not divide phi-4's 10 KV heads"
    assert tp_problem(llama, 3) is not None and tp_problem(llama, 8) is None
    check_parallelism(llama, 16, nodes=2)  # two nodes of 8: accepted when stated
    with pytest.raises(InputError, match="needs more than 1 node"):
        check_parallelism(llama, 16, nodes=1)
    mixtral = load_model("mixtral-8x7b")  # 8 experts
    check_parallelism(mixtral, 2, ep=4)
    with pytest.raises(InputError, match="expert parallelism 3 does not divide"):
        check_parallelism(mixtral, 2, ep=3)
    with pytest.raises(InputError, match="has no experts"):
        check_parallelism(llama, 2, ep=2)


def test_counts_are_strict_and_bounded() -> None:
    data = load_model("llama-3-8b").model_dump()
    for field, value in (("num_layers", True), ("num_layers", 32.0), ("num_layers", 10_001),
                         ("vocab_size", 2**28 + 1), ("num_attention_heads", 0)):
        with pytest.raises(ValidationError):
            ModelSpec.model_validate({**data, field: value})
    assert ModelSpec.model_validate({**data, "num_layers": 10_000}).num_layers == 10_000
    att = dict(data["attention"], num_kv_heads=12)  # 32 heads: 12 does not divide them
    with pytest.raises(ValidationError, match="must divide num_attention_heads"):
        ModelSpec.model_validate({**data, "attention": att})


def test_a_non_finite_float_reaching_a_command_is_a_usage_error(runner: CliRunner) -> None:
    app = typer.Typer()

    @app.command()
    @common.cli_errors
    def cmd(peak_to_mean: float = 1.0) -> None:  # no callback of its own
        typer.echo("ran")

    res = runner.invoke(app, ["--peak-to-mean", "nan"])
    assert res.exit_code == 2 and "ran" not in res.output
    assert res.output == "error: --peak-to-mean: must be a finite number, got nan\n"
