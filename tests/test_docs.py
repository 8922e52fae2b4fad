"""The documentation is executed: README.md and every page under docs/.

- A ```console block holds `$ kvplan ...` lines, each followed by its exact output, which must
  match what runs (regenerate with KVPLAN_REGEN_DOCS=1 and review the diff).
- A ```bash block, or a ```text block whose lines start with `$ `, is run too; it must exit 0
  unless an `<!-- exit: N -->` comment stands right before the block. In a text block that
  exits non-zero, the lines shown under each command (its refusal) must be what it prints.
- A block that cannot run here (an install from the network) has `<!-- not-run: REASON -->` right
  before it; the quick start's two blocks are run verbatim by .ci/run.

A plain `kvplan ...` line runs through typer's CliRunner; a line with shell syntax (a pipe, a
glob, a loop) or a multi-line command runs in bash with this interpreter's `kvplan` first on PATH.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer

from kvplan.cli import app
from tests.conftest import invoke

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?:<!-- ([a-z-]+)(?::\s*(.*?))? -->\n)?```(\w*)\n(.*?)```", re.S)
SHELL = re.compile(r"[|;*&<>`$]")


@dataclass(frozen=True)
class Example:
    page: Path
    kind: str  # console (output compared) or run (exit status only)
    cmd: str
    expected: str = ""
    exit_code: int = 0

    @property
    def id(self) -> str:
        return f"{self.page.name}: {self.cmd.splitlines()[0][:70]}"


def _commands(block: str) -> list[tuple[str, str]]:
    """(command, output) pairs of a block written as `$ cmd` lines followed by output."""
    found: list[tuple[str, str]] = []
    cmd: str | None = None
    out: list[str] = []
    continuing = False
    for line in block.splitlines():
        if continuing and cmd is not None:
            cmd += "\n" + line
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            if cmd:
                found.append((cmd, "\n".join(out)))
            cmd, out = line[2:], []
            continuing = line.endswith("\\")
        else:
            out.append(line)
    if cmd:
        found.append((cmd, "\n".join(out)))
    return found


def collect() -> tuple[list[Example], list[str]]:
    """Every example, and every block skipped without a reason (a defect)."""
    examples: list[Example] = []
    unexplained: list[str] = []
    for page in PAGES:
        for marker, arg, lang, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if marker == "not-run":
                if not arg.strip():
                    unexplained.append(f"{page.name}: a not-run block gives no reason")
                continue
            if marker.startswith("quickstart"):
                continue  # .ci/run runs these verbatim
            code = int(arg) if marker == "exit" else 0
            if lang == "console":
                examples += [Example(page, "console", c, o) for c, o in _commands(body)]
            elif lang == "text" and body.startswith("$ "):
                examples += [Example(page, "run", c, o, exit_code=code) for c, o in _commands(body)]
            elif lang in ("bash", "sh", "shell"):
                script = "\n".join(ln for ln in body.splitlines() if ln.strip())
                if script:
                    examples.append(Example(page, "run", script, exit_code=code))
    return examples, unexplained


EXAMPLES, UNEXPLAINED = collect()


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "CI": "true",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def run(runner, cmd: str) -> tuple[int, str, str]:  # noqa: ANN001 - CliRunner
    """(exit code, standard output, standard output and error together)."""
    if not SHELL.search(cmd.replace("\\\n", " ")) and "\n" not in cmd:
        argv = shlex.split(cmd)
        if argv and argv[0] == "kvplan":
            result = invoke(runner, *argv[1:])
            return result.exit_code, result.stdout, result.output
    proc = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stdout + proc.stderr


def test_skipped_blocks_say_why() -> None:
    assert not UNEXPLAINED


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example(runner, ex: Example, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CI", "true")  # the examples show what a CI log shows (check folds at 80)
    code, got, everything = run(runner, ex.cmd)
    if ex.kind == "run":
        assert code == ex.exit_code, f"{ex.page.name}: `{ex.cmd}` exited {code}:\n{everything}"
        if ex.exit_code:  # a refusal shown word for word
            shown = [ln for ln in ex.expected.splitlines() if ln.strip()]
            printed = everything.splitlines()
            assert all(ln in printed for ln in shown), \
                f"{ex.page.name}: refusal drifted: {ex.cmd}\n{everything}"
        return
    got = got.rstrip("\n")
    if os.environ.get("KVPLAN_REGEN_DOCS") or os.environ.get("KVPLAN_REGEN_README"):
        text = ex.page.read_text(encoding="utf-8")
        old = f"$ {ex.cmd}\n{ex.expected}".rstrip("\n") + "\n```"
        ex.page.write_text(text.replace(old, f"$ {ex.cmd}\n{got}\n```", 1), encoding="utf-8")
        return
    assert got == ex.expected.rstrip("\n"), f"{ex.page.name}: example drifted: {ex.cmd}"


def _surface() -> list[tuple[str, str]]:
    """(command path, option) for every command and option the CLI offers."""
    root = typer.main.get_command(app)
    found: list[tuple[str, str]] = []

    def walk(cmd, path: str) -> None:  # noqa: ANN001 - typer's command objects
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{path} {name}".strip())
            return
        found.append((path, ""))
        for param in cmd.params:
            for opt in param.opts:
                if opt.startswith("--") and opt not in ("--help",):
                    found.append((path, opt))

    walk(root, "kvplan")
    return found


def test_every_command_and_flag_is_documented() -> None:
    docs = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    missing = []
    for path, opt in _surface():
        if path == "kvplan":
            continue
        if opt and not re.search(re.escape(opt) + r"(?![\w-])", docs):
            missing.append(f"{path} {opt}")
        if not opt and path not in docs:
            missing.append(path)
    assert not missing, "not documented in README.md or docs/: " + ", ".join(missing)


GLOSSARY = ROOT / "docs" / "glossary.md"
# names, not abbreviations a reader must decode
PROPER = {"NVIDIA", "AMD", "GPU", "GPUS", "CPU", "CSV", "JSON", "YAML", "PNG", "SVG", "CUDA", "HBM", "HBM3",
          "PCIE", "SXM", "NVL", "OK", "USD", "API", "URL", "CI", "RAM", "PCI", "HBM3E", "SXM4", "SXM5"}


def test_glossary_spells_out_every_printed_abbreviation() -> None:
    outputs = "\n".join(e.expected for e in EXAMPLES if e.kind == "console")
    outputs += "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "golden").glob("*.txt"))
    terms = GLOSSARY.read_text(encoding="utf-8")
    found = set(re.findall(r"\b[A-Z][A-Z0-9]{1,5}\b", outputs)) - PROPER
    found = {t for t in found if not re.fullmatch(r"[A-Z]{1,2}\d{1,4}[A-Z]{0,2}", t)}  # GPU models: H200
    missing = sorted(t for t in found if not re.search(rf"\b{t}\b", terms, re.I))
    assert not missing, f"abbreviations printed but not in docs/glossary.md: {missing}"
