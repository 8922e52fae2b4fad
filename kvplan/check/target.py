"""What `check` judges: one deployment found in a file, kvplan/v1 or Kubernetes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kvplan.deploy import Deployment, PlannedDeployment, Problem
from kvplan.deploy.yamldoc import Doc

KVPLAN = "kvplan"
KUBERNETES = "kubernetes"


@dataclass
class Target:
    """One deployment in one file, before the arithmetic.

    `doc` maps kvplan/v1 field paths to lines of the file: for a kvplan file it is the file's
    own document; for a manifest it points each kvplan field at the manifest line it came from.
    `names` renames kvplan fields to what the file calls them (manifests: `--max-model-len`).
    """

    file: str
    kind: str  # KVPLAN or KUBERNETES
    line: int
    name: str | None = None
    doc: Doc | None = None
    deployment: Deployment | None = None
    planned: PlannedDeployment | None = None
    base_dir: Path | None = None
    server: str | None = None  # the engine a manifest runs (vllm, sglang); None for kvplan files
    engines_per_pod: int = 1  # data-parallel engines per pod (manifests)
    names: dict[str, str] = field(default_factory=dict)
    # kvplan field -> (options file, its key) for values a loaded options file set (manifests;
    # kvplan.check.manifests.engine.Found.files): a fix names the key in the file
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    no_traffic: bool = False  # judged on start-up alone (no traffic declared)
    gpu_named: bool = True  # False: no GPU label; judged over the catalog (WARN)
    label_key: str | None = None  # the node-label family the file selects GPUs by
    gpu_vendor: str | None = None  # amd / nvidia when the file says which GPUs it runs on
    refusals: list[Problem] = field(default_factory=list)  # what the engine refuses (FAIL)
    # how the file asks for N GPUs, in a fix's words: a pod's limit; a compose device
    # reservation; a script's visible devices (kvplan.check.describe)
    gpu_request: str = "nvidia.com/gpu: {n}"

    def field_name(self, path: str) -> str:
        """What this file calls a kvplan field (longest matching prefix wins)."""
        best = ""
        for key in self.names:
            if (path == key or path.startswith(key + ".")) and len(key) > len(best):
                best = key
        return self.names[best] + path[len(best) :] if best else path

    def line_of(self, path: str) -> int:
        if self.doc is None:
            return self.line
        return self.doc.line(*path.split("."))

    def renamed(self, problems: list[Problem]) -> list[Problem]:
        return [Problem(self.field_name(p.field), p.message, p.line) for p in problems]
