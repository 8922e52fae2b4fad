"""The ConfigMaps of one `kvplan check` run, by name: a KAITO Workspace's `inference.config`
names a ConfigMap of its namespace whose `inference_config.yaml` holds the vLLM options KAITO's
server appends to its command (kaito-project/kaito at 056b8280,
presets/workspace/inference/vllm/inference_api.py `KAITOArgumentParser.parse_args` and
`KaitoConfig.from_yaml`). The ConfigMap usually sits in the same file, before the Workspace;
any file of the run may hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kvplan.check.manifests.run_scope import RunScope, mapping_documents
from kvplan.deploy.yamldoc import Doc

KEY = "inference_config.yaml"


@dataclass
class ConfigMap:
    name: str
    path: Path
    doc: Doc

    @property
    def text(self) -> object:
        data = self.doc.data.get("data") if isinstance(self.doc.data, dict) else None
        return data.get(KEY) if isinstance(data, dict) else None

    def line(self, offset: int) -> int | None:
        """The line of the block's line `offset` (0: its first), where the block is a `|`
        scalar starting on the line after the key."""
        at = self.doc.line("data", KEY)
        return None if at is None else at + 1 + offset


@dataclass
class Run:
    config_maps: dict[str, list[ConfigMap]] = field(default_factory=dict)


def collect(files: list[Path]) -> Run:
    run = Run()
    for path, doc in mapping_documents(files, KEY):
        meta = doc.data.get("metadata")
        if doc.data.get("kind") == "ConfigMap" and isinstance(meta, dict) and meta.get("name"):
            name = str(meta["name"])
            run.config_maps.setdefault(name, []).append(ConfigMap(name, path, doc))
    return run


def find(name: str, path: Path | None) -> ConfigMap | None:
    """The ConfigMap `name`: the one in `path` when it holds one, else the run's only one."""
    found = current().config_maps.get(name, [])
    same = [c for c in found if c.path == path]
    if same:
        return same[-1]
    return found[0] if len(found) == 1 else None


_SCOPE: RunScope[Run] = RunScope("kaito_run", Run(), collect)
# the run's KAITO ConfigMaps: `run_of(files)` makes them `current()` while `files` are checked
current, run_of = _SCOPE.current, _SCOPE.of
