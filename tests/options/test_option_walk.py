"""Every option of every command applies or is refused (issue #17, item 3).

The options are enumerated from the typer app itself: a new option that no case in
tests/options/cases.py walks fails `test_every_option_of_every_command_is_walked`. Each case
runs in-process through typer's CliRunner and asserts what cases.py says: the output changes
against its reference, or the option is refused with exit 2 in one line that names it and the
reason, or the output goes to a file, or (for effects no output shows) a test of its own in
test_own_effects.py exists and runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from kvplan.cli import app
from tests.options import cases as C
from tests.options import test_own_effects

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> dict[str, Any]:
    """Every command the app declares: "" (the top level), "size", ..., "plot memory"."""
    out: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if not path or not subs:
            out[" ".join(path)] = cmd
        for name, sub in (subs or {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def command_options() -> dict[str, list[str]]:
    """Each command's options by their long name, as the app declares them (no --help)."""
    return {name: [next(o for o in p.opts if o.startswith("--")) for p in cmd.params
                   if p.param_type_name == "option" and "--help" not in p.opts]
            for name, cmd in _commands().items()}


OPTIONS = command_options()
CASES = C.all_cases(OPTIONS)


def test_every_option_of_every_command_is_walked() -> None:
    declared = {(c, o) for c, opts in OPTIONS.items() for o in opts}
    walked = {(c.command, c.option) for c in CASES}
    assert declared - walked == set(), "options no case walks"
    assert walked - declared == set(), "cases for options the app no longer has"
    assert set(C.BASE) == set(OPTIONS), "a command without a base invocation"


def test_the_walk_covers_what_the_issue_names() -> None:
    """The commands the issue lists are all here, each with more than its global options."""
    for name in ("size", "fleet", "explain", "plot users-vs-context", "plot memory",
                 "plot risk", "check", "models", "gpus", "import", "calibrate", ""):
        assert name in OPTIONS
    assert {"--version", "--install-completion", "--show-completion"} <= set(OPTIONS[""])
    assert sum(c.expect == C.REFUSED for c in CASES) >= 60
    assert sum(c.expect == C.CHANGES for c in CASES) >= 150


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("walk")
    sample = tmp / "sample.csv"
    sample.write_text("tokens\n" + "\n".join(str(500 + 37 * i) for i in range(200)) + "\n")
    prices = tmp / "prices.yaml"
    prices.write_text("h100-sxm-80gb: 2.5\nh200: 4\n")
    trt = tmp / "extra.yaml"
    trt.write_text("max_batch_size: 16\nkv_cache_config:\n  tokens_per_block: 64\n")
    manifest = (ROOT / C.GPU_MANIFEST).read_text().splitlines()
    at = next(i for i, line in enumerate(manifest) if "nodeSelector:" in line)
    nogpu = tmp / "nogpu.yaml"
    nogpu.write_text("\n".join(manifest[:at] + manifest[at + 2:]) + "\n")  # no GPU named
    return {C.SAMPLE: str(sample), C.PRICES: str(prices), C.TRTCONFIG: str(trt),
            C.NOGPU_MANIFEST: str(nogpu), "tmp": str(tmp)}


def _argv(argv: tuple[str, ...], files: dict[str, str], out: Path) -> list[str]:
    named = {**files, C.OUT: str(out / "out.txt"), C.SAVE: str(out / "saved.yaml"),
             C.SVG: str(out / "picture.svg")}
    return [named.get(a, a) for a in argv]


def _output(command: str, stdout: str) -> Any:
    if command in C.JSON_OUTPUT and stdout.lstrip().startswith(("{", "[")):
        return json.loads(stdout)
    return stdout


def _error_lines(output: str) -> list[str]:
    return [ln for ln in output.splitlines() if ln.lower().startswith("error")]


@pytest.mark.parametrize("case", [c for c in CASES if c.expect != C.OWN], ids=lambda c: c.id)
def test_each_option_applies_or_is_refused(case: C.Case, files: dict[str, str],
                                           tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, _argv(case.argv, files, tmp_path))
    assert "Traceback" not in res.output
    if case.expect == C.REFUSED:
        assert res.exit_code == 2, res.output
        [line] = _error_lines(res.output)
        assert case.text in line, line
        assert (case.named or case.option) in line, line
        return
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    ref = runner.invoke(app, _argv(case.ref or C.BASE[case.command], files, ref_dir))
    assert ref.exit_code == 0, ref.output
    assert res.exit_code == 0, res.output
    if case.expect == C.WRITES:
        _assert_written(case, res, ref, tmp_path)
        return
    got, want = _output(case.command, res.stdout), _output(case.command, ref.stdout)
    assert got != want, f"{case.option} changed nothing in {case.command}'s output"
    if case.command == "explain" and case.option not in ("--format",) and isinstance(got, dict):
        origins = {f["from"] for r in got["results"] for f in r["record"]}
        assert case.option in origins, f"explain does not name {case.option} as an origin"


def _assert_written(case: C.Case, res: Any, ref: Any, out: Path) -> None:
    if case.option == "--save":  # the plan printed as before, and the record written
        assert res.stdout == ref.stdout
        text = (out / "saved.yaml").read_text()
        assert "apiVersion: kvplan/v1" in text and "count:" in text
        return
    if case.command.startswith("plot "):
        picture = (out / "picture.svg").read_text()
        assert picture.lstrip().startswith("<?xml") and "<svg" in picture
        assert res.stdout == ""
        return
    written = (out / "out.txt").read_text()
    assert res.stdout == "", "with -o nothing goes to standard output"
    assert written == ref.stdout, "-o writes exactly what the command prints without it"


@pytest.mark.parametrize("case", [c for c in CASES if c.expect == C.OWN], ids=lambda c: c.id)
def test_options_without_visible_output_have_a_test_of_their_own(case: C.Case) -> None:
    """--debug, --no-color, --allow-no-fit, --measure and completion: the named test exists
    in test_own_effects.py (pytest runs it there, for every command it names)."""
    test = getattr(test_own_effects, case.text, None)
    assert callable(test), f"{case.command} {case.option}: no test {case.text}"
    assert case.command in test_own_effects.COVERS[case.text], (case.command, case.text)
