"""`kvplan check`'s verdicts: one Outcome per deployment (or unreadable file), and the Report of
a run with its exit code (2 when anything is an ERROR or nothing was checked, 1 on a FAIL,
3 when a bug in kvplan stopped some file's check)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kvplan.check.verdict import Fix, Numbers
from kvplan.deploy.problems import Problem

PASS, FAIL, WARN, ERROR = "PASS", "FAIL", "WARN", "ERROR"
YAML_SUFFIXES = (".yaml", ".yml")
# scripts and notebooks read by kvplan.check.manifests.python_script (imported only for them)
PY_SUFFIXES = (".py", ".ipynb")


@dataclass
class Outcome:
    """The verdict on one deployment (or one unreadable file)."""

    file: str
    verdict: str
    line: int | None = None
    name: str | None = None
    kind: str | None = None
    server: str | None = None
    model: str | None = None
    gpu: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    numbers: Numbers | None = None
    fixes: list[Fix] = field(default_factory=list)
    fix_text: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # a FAIL without numbers (refused options)
    # an ERROR's options the engine refuses too (each with its line), said beside its problems
    refused: list[Problem] = field(default_factory=list)
    summary: str | None = None  # the start-up verdict's phrase (no traffic / no GPU named)

    @property
    def label(self) -> str:
        return self.name or Path(self.file).name


@dataclass
class Report:
    outcomes: list[Outcome]
    skipped: list[str]

    ignored: list[str] = field(default_factory=list)  # unreadable non-workload documents
    default_gpu_used: bool = False  # some manifest named no GPU and was planned on --gpu
    internal: bool = False  # a bug in kvplan stopped some file's check (its ERROR says so)
    # the scripts a folder walk found and did not read: (file, shell | Python, why)
    # (kvplan.check.discover: they start no engine, or are not text)
    scripts_skipped: list[tuple[str, str, str]] = field(default_factory=list)
    # the folders a walk did not go into: (folder, why) (discover.installed_folder: a virtual
    # environment, installed packages), one footer line each
    folders_skipped: list[tuple[str, str]] = field(default_factory=list)
    # the kustomize patches a walk met: (file, why) (kvplan.check.kustomize), one line each
    patches_skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def checked_none(self) -> bool:
        """No deployment was judged: the gate must not go green on nothing."""
        return not any(o.verdict in (PASS, FAIL, WARN) for o in self.outcomes)

    @property
    def exit_code(self) -> int:
        verdicts = {o.verdict for o in self.outcomes}
        if self.internal:  # a bug: its own code, after every other file's verdict is printed
            return 3
        if ERROR in verdicts or self.checked_none:
            return 2
        return 1 if FAIL in verdicts else 0

    def counts(self) -> dict[str, int]:
        return {v: sum(o.verdict == v for o in self.outcomes) for v in (PASS, FAIL, WARN, ERROR)}
