"""What `check` judges: one deployment found in a file, and the kind of file it came from.

The kinds (the JSON's `kind`): `kvplan`, a kvplan/v1 document; `kubernetes`, a Kubernetes object
or the Helm values of a chart that renders one (a pod template: node labels, GPU limits,
replicas); `compose`, a docker-compose service (a device reservation, deploy.replicas);
`script`, a server a shell script starts on the machine it runs on (CUDA_VISIBLE_DEVICES);
`docker_run`, a `docker run` line of a script (--gpus)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kvplan.deploy import Deployment, PlannedDeployment, Problem
from kvplan.deploy.yamldoc import Doc

KVPLAN = "kvplan"
KUBERNETES = "kubernetes"
COMPOSE = "compose"
SCRIPT = "script"
DOCKER_RUN = "docker_run"
KINDS = (KVPLAN, KUBERNETES, COMPOSE, SCRIPT, DOCKER_RUN)
# PodSite.kind of the readers that are not Kubernetes objects -> the target's kind
COMPOSE_SITE = "compose service"  # the PodSite kind compose.py gives each service
_SITE_KINDS = {COMPOSE_SITE: COMPOSE, "shell command": SCRIPT, "docker run": DOCKER_RUN}


def kind_of_site(site_kind: str) -> str:
    """The target kind of a pod site: compose, script or docker_run, else kubernetes."""
    return _SITE_KINDS.get(site_kind, KUBERNETES)


@dataclass
class Target:
    """One deployment in one file, before the arithmetic.

    `doc` maps kvplan/v1 field paths to lines of the file: for a kvplan file it is the file's
    own document; for a manifest it points each kvplan field at the manifest line it came from.
    `names` renames kvplan fields to what the file calls them (manifests: `--max-model-len`).
    """

    file: str
    kind: str  # one of KINDS
    line: int
    name: str | None = None
    doc: Doc | None = None
    deployment: Deployment | None = None
    planned: PlannedDeployment | None = None
    base_dir: Path | None = None
    server: str | None = None  # the engine a manifest runs (vllm, sglang); None for kvplan files
    engines_per_pod: int = 1  # data-parallel engines per pod (manifests)
    # SGLang's --dp-size with --enable-dp-attention: data-parallel attention ranks inside the TP
    # group, attention over tp / attention_dp GPUs each (kvplan.check.startup.shape_refusals)
    attention_dp: int = 1
    # GPUs one server holds where the launcher names a machine bigger than the GPU spec's
    # gpus_per_node (a SkyPilot task's A100:16 on GCP's a2-megagpu-16g); None: the spec's
    node_gpus: int | None = None
    attention_flag: str = ""  # "--dp-size" (with --enable-dp-attention) or 0.5.23's --attn-dp-size
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
    # the same deployment on each GPU the file lets its launcher pick (a SkyPilot task's
    # candidate accelerators): judged one by one, one verdict (kvplan.check.alternatives)
    alternatives: list[Target] = field(default_factory=list)
    launcher: str = ""  # who picks among the alternatives (SkyPilot, dstack)
    # vLLM's --max-model-len auto (a KAITO Workspace): checked at the longest context the pool
    # holds where the model's own does not fit (kvplan.check.autofit)
    max_model_len_auto: bool = False

    @property
    def manifest(self) -> bool:
        """Read from a file that is not kvplan/v1 (its own flags and words in a fix)."""
        return self.kind != KVPLAN

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
        """The problems in this file's words: its field names, and a cache dtype the engine's
        option set named with the engine's own values (kvplan.check.kv_dtype_fix)."""
        from kvplan.check.kv_dtype_fix import engine_words

        return [Problem(self.field_name(p.field), engine_words(self, p), p.line)
                for p in problems]
