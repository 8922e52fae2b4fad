"""Targets for the engine sites a launcher's script starts (SkyPilot's `run`, dstack's
`commands`): each site read by the script reader becomes its targets as a script's would, on
the candidate GPU the launcher gave it, with the reader's words for an unset variable put in
the launcher's own terms."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kvplan.check.target import Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc


def launcher_targets(path: Path, found: list[Any], refused: list[Target],
                     side_cache: dict[Path, Any], default_gpu: str | None, unset: list[str],
                     at_launch: Callable[[str], str], hint: str) -> list[Target]:
    """The targets of the sites `found` (and the sites the reader `refused`), in line order.
    The script reader's words for a variable in `unset` (the file names it without a value)
    become the launcher's: `at_launch(name)` says where it is set, `hint` what to write."""
    from kvplan.check.manifests import site_targets

    doc = Doc(data={}, start_line=1, lines={})
    out: list[Target] = []
    for site in found:
        for target in site_targets(doc, path, [site], None, {}, side_cache, default_gpu):
            target.gpu_vendor = None
            out.append(target)
    out.extend(refused)
    for target in out:
        target.problems = [Problem(p.field, _words(p.message, unset, at_launch, hint), p.line)
                           for p in target.problems]
    return sorted(out, key=lambda t: t.line)


def _words(message: str, unset: list[str], at_launch: Callable[[str], str], hint: str) -> str:
    for name in unset:
        said = f"the script does not set {name};"
        if said in message:
            message = message.replace(said, f"{at_launch(name)}, which the file does not hold;")
    return message.replace("set it in the script, or render it first (envsubst)", hint)
