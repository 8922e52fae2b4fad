"""Kustomize patch files met by `kvplan check` (task uxfix).

A folder is a kustomization when it holds one of kustomize's file names, `kustomization.yaml`,
`kustomization.yml` or `Kustomization` (kubernetes-sigs/kustomize api/konfig/general.go,
RecognizedKustomizationFileNames, read at api v0.21.1). The files its `patches` (entries with
`path:`), `patchesStrategicMerge` (a list of file paths or inline patches) and
`patchesJson6902` (entries with `path:`) name are patches of resources loaded elsewhere
(kubectl.docs.kubernetes.io/references/kustomize/kustomization/patchesstrategicmerge: "The
names in these (possibly partial) resource files must match names already loaded via the
resources field"), paths relative to the kustomization's folder. A patch is a fragment: a
Deployment patch with only `containers[].args` was read as a whole Deployment and refused for
passing server options to image '(none)'. kvplan does not render overlays; a patch is said
once, as one footer line (a folder walk) or one ERROR (named on the command line), and never
counts as a checked deployment, so a walk that met only patches does not pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def _named(kustomization: Path) -> list[str]:
    import yaml

    try:
        doc = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # an unreadable kustomization is its own file's business
    if not isinstance(doc, dict):
        return []
    out: list[str] = []
    for key in ("patches", "patchesJson6902"):
        for entry in doc.get(key) or []:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                out.append(entry["path"])
    for entry in doc.get("patchesStrategicMerge") or []:
        if isinstance(entry, str) and "\n" not in entry:  # an inline patch holds lines
            out.append(entry)
    return out


def patches_of(folders: set[Path]) -> dict[Path, Path]:
    """Each patch file (resolved) that a kustomization in `folders` names, and that file."""
    found: dict[Path, Path] = {}
    for folder in sorted(folders):
        for name in NAMES:
            k = folder / name
            if k.is_file():
                for rel in _named(k):
                    found.setdefault((folder / rel).resolve(), k)
    return found


def why(kustomization: Path) -> str:
    folder = kustomization.parent
    return (f"a kustomize patch (named by {kustomization}): kvplan does not render overlays; "
            f"render the overlay with `kubectl kustomize {folder}` and check the output")


def split_patches(files: list[tuple[Path, bool]], patches: list[tuple[str, str]] | None,
                  missing: list[Any]) -> list[tuple[Path, bool]]:
    """`files` less the kustomize patches among them: one walked is appended to `patches` as
    (file, why), one named is an ERROR in `missing` (kvplan.check.outcome.Outcome)."""
    found = patches_of({p.parent for p, _ in files})
    if not found:
        return files
    from kvplan.check.outcome import ERROR, Outcome
    from kvplan.deploy import Problem

    kept = []
    for path, explicit in files:
        k = found.get(path.resolve())
        if k is None:
            kept.append((path, explicit))
        elif explicit:
            missing.append(Outcome(str(path), ERROR, problems=[Problem("", why(k))]))
        elif patches is not None:
            patches.append((str(path), why(k)))
    return kept
