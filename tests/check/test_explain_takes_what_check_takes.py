"""`kvplan explain` (and `size`, `fleet`) of a Python script or a notebook: read through check's
readers (kvplan.check.manifests.python_script), as a shell script already was (task h71left; task
h70review found `explain x.py` said "model: x.py: no such file or folder" for a file `kvplan check`
judged). The files are real public inputs stored for check (tests/assets/check/python/SOURCES.md,
tests/assets/check/notebooks/SOURCES.md, round2/SOURCES.md); the pools are the ones check
prints for the same file and GPU, and the ones `explain` gives for the equivalent flags."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS, invoke

PY = ASSETS / "check" / "python"
BOOKS = ASSETS / "check" / "notebooks"


def flat(text: str) -> str:
    return " ".join(text.split())


def test_explain_reads_a_python_script_as_check_does(runner: CliRunner) -> None:
    """vLLM's chat example (index id 28902093): `LLM(model="meta-llama/Meta-Llama-3-8B-Instruct")`,
    every other argument vLLM's default. `kvplan check --gpu h100` gives 489,616 tokens in the
    pool; `kvplan explain llama-3-8b --engine vllm -g h100 -c 8192` gives the same pool."""
    result = invoke(runner, "explain", str(PY / "vllm-chat-llama3-8b.py"), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    assert "GPU KV cache size: 489,616 tokens" in result.output
    flags = invoke(runner, "explain", "llama-3-8b", "--engine", "vllm", "-g", "h100",
                   "-c", "8192")
    assert "GPU KV cache size: 489,616 tokens" in flags.output


def test_explain_reads_a_notebook_as_check_does(runner: CliRunner) -> None:
    """round2 sglang-offline-engine-api.ipynb: `sgl.Engine(model_path="Qwen/Qwen2.5-0.5B-...")`
    in code cell 1, every other argument SGLang's default; check on an H100 gives 5,630,244
    tokens in the pool (its max_total_num_tokens), and explain of the notebook the same."""
    path = PY / "round2" / "sglang-offline-engine-api.ipynb"
    checked = invoke(runner, "check", str(path), "--gpu", "h100")
    assert "(5,630,244 tokens in the pool)" in checked.output
    result = invoke(runner, "explain", str(path), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    assert "5,630,244" in result.output
    assert "code cell 1, its line 9" in flat(result.output)  # check's notes travel


def test_size_and_fleet_read_a_python_script(runner: CliRunner) -> None:
    size = invoke(runner, "size", str(PY / "vllm-chat-llama3-8b.py"), "--gpu", "h100")
    assert size.exit_code == 0, size.output
    assert "no such file" not in size.output
    fleet = invoke(runner, "fleet", str(PY / "vllm-chat-llama3-8b.py"), "--gpu", "h100",
                   "--peak-users", "100")
    assert fleet.exit_code == 0, fleet.output


def test_a_script_that_starts_no_engine_is_refused_with_check_words(
        runner: CliRunner, tmp_path: Path) -> None:
    """A .py that imports vLLM but starts nothing, and a .sh that only installs it: check's
    reason (kvplan.check.nothing_read), never "no such file or folder" for a file that is there."""
    script = tmp_path / "bench.py"
    script.write_text("import vllm\nprint(vllm.__version__)\n")
    result = invoke(runner, "explain", str(script))
    assert result.exit_code == 2
    out = flat(result.output)
    assert "no such file" not in out
    assert ("bench.py: line 1: no engine started in this file: kvplan reads a Python script or "
            "notebook that constructs vLLM's LLM(...)") in out
    assert "give the script that starts it" in out
    checked = flat(invoke(runner, "check", str(script)).output)
    assert "ERROR line 1: no engine started in this file: kvplan reads a Python script" in checked
    shell = tmp_path / "setup.sh"
    shell.write_text("pip install vllm==0.8.5\n")
    result = invoke(runner, "explain", str(shell))
    assert result.exit_code == 2
    out = flat(result.output)
    assert "no such file" not in out and "Traceback" not in out
    said = "no kvplan/v1 deployment and nothing that runs vLLM, SGLang or TensorRT-LLM in this file"
    assert f"setup.sh: line 1: {said}" in out  # check's line for the same file
    assert f"ERROR line 1: {said}" in invoke(runner, "check", str(shell)).output


def test_the_suffixes_are_check_s() -> None:
    from kvplan.check.manifests.shell import SHELL_SUFFIXES
    from kvplan.check.outcome import PY_SUFFIXES
    from kvplan.plan.targets import _SCRIPT_SUFFIXES

    assert set(_SCRIPT_SUFFIXES) == {*PY_SUFFIXES, *SHELL_SUFFIXES}


def test_a_notebook_that_is_not_json_is_refused_by_name(runner: CliRunner, tmp_path: Path) -> None:
    book = tmp_path / "broken.ipynb"
    book.write_text("{not json")
    result = invoke(runner, "explain", str(book))
    assert result.exit_code == 2
    assert "no such file" not in result.output and "Traceback" not in result.output
    assert "broken.ipynb" in result.output


def test_explain_of_a_script_says_how_a_script_declares_traffic(runner: CliRunner) -> None:
    """A script has no kvplan.io annotations (task h72mix: explain said "the manifest declares no
    traffic (kvplan.io annotations)" of a .py, .ipynb and .sh): it names the side file a script's
    user can write, beside the script (kvplan.check.manifests.side, docs/check.md Annotations)."""
    cases = [(PY / "vllm-chat-llama3-8b.py", "script", "vllm-chat-llama3-8b.kvplan.yaml"),
             (PY / "round2" / "sglang-offline-engine-api.ipynb", "notebook",
              "sglang-offline-engine-api.kvplan.yaml"),
             (ASSETS / "check" / "scripts" / "dagnaputra-serve-7b-model.sh", "script",
              "dagnaputra-serve-7b-model.kvplan.yaml")]
    for path, what, side in cases:
        out = flat(invoke(runner, "explain", str(path), "--gpu", "h100").output)
        assert "kvplan.io annotations" not in out, path
        assert (f"the {what} declares no traffic; give --peak-users for a fleet, or the traffic in "
                f"a side file {side} beside it (traffic: peak_concurrent_users: N, ...; "
                "docs/check.md \"Annotations\")") in out, out
        unnamed = flat(invoke(runner, "explain", str(path)).output)
        assert (f"the {what} names no GPU; planned on h100-sxm-80gb (give --gpu, or `gpu:` in a "
                f"side file {side})") in unnamed, unnamed


def test_explain_of_a_manifest_keeps_the_annotations_wording(runner: CliRunner) -> None:
    """A manifest's notes keep their words: kvplan.io annotations, give --gpu."""
    seen: set[str] = set()
    for path in sorted((ASSETS / "check" / "k8s").glob("*.yaml")):
        out = flat(invoke(runner, "explain", str(path)).output)
        if "declares no traffic" in out:
            assert "the manifest declares no traffic (kvplan.io annotations)" in out, path
            seen.add("traffic")
        if "names no GPU" in out:
            assert "the manifest names no GPU; planned on h100-sxm-80gb (give --gpu)" in out
            seen.add("gpu")
        if len(seen) == 2:
            return
    raise AssertionError(f"only {seen} met in the stored k8s manifests")


def test_a_script_that_is_not_there_is_named_as_a_missing_file(tmp_path: Path,
                                                                 monkeypatch) -> None:  # noqa: ANN001
    """`kvplan explain nosuch.py` said "unknown model 'nosuch.py'": a script's suffix is a
    file's, as a YAML one is (resolve._FILE_SUFFIXES)."""
    from typer.testing import CliRunner

    from kvplan.cli import app

    monkeypatch.chdir(tmp_path)
    for name in ("nosuch.py", "nosuch.ipynb", "nosuch.sh"):
        result = CliRunner().invoke(app, ["explain", name, "--gpu", "h100"])
        assert result.exit_code == 2, result.output
        assert result.output == f"error: command line: model: {name}: no such file\n"
