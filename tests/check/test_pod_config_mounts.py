"""A Kubernetes container's `--config` file found through its own volumeMounts (task
h44checkgaps, kvplan.check.manifests.pod_files): the mount whose mountPath (+ subPath) covers
the path, its pod's configMap volume, the ConfigMap of that name among the files checked (the
manifest's own file, then the run's other files), the key the path names below the mount (or
the `items` entry whose path it is). A mount kvplan cannot read, or a ConfigMap not checked, is
named in a note and the file is not read; with no covering mount the ConfigMap holding the file
name is read as before, with a note that no mount covers the path."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from tests.check.check_api import one_target

DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: srv}}
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
          args: ["--config", "/etc/vllm/config.yaml"]
          volumeMounts: [{mount}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
      volumes: [{volume}]
"""
CM = """apiVersion: v1
kind: ConfigMap
metadata: {{name: vllm-cfg}}
data:
  {key}: |
    max-model-len: 4096
    gpu-memory-utilization: 0.5
"""
MOUNT = "{name: cfg, mountPath: /etc/vllm}"
VOLUME = "{name: cfg, configMap: {name: vllm-cfg}}"


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def test_the_mounted_configmap_in_the_same_file_is_read(tmp_path: Path) -> None:
    """mountPath /etc/vllm covers /etc/vllm/config.yaml: key config.yaml of ConfigMap vllm-cfg
    (volume cfg): max-model-len 4096, gpu-memory-utilization 0.5."""
    path = _write(tmp_path, "both.yaml", CM.format(key="config.yaml") + "---\n"
                  + DEPLOY.format(mount=MOUNT, volume=VOLUME))
    t = one_target(path)
    e = t.deployment.engine
    assert (e.max_model_len, e.gpu_memory_utilization) == (4096, 0.5)
    assert ("/etc/vllm/config.yaml: read from ConfigMap vllm-cfg config.yaml, which the "
            "container mounts (volume cfg at /etc/vllm)") in t.notes


def test_a_subpath_and_items_name_the_key(tmp_path: Path) -> None:
    """subPath serve.yaml at mountPath /etc/vllm/config.yaml is key serve.yaml; items mapping
    key serve.yaml to path config.yaml under /etc/vllm is the same key."""
    cm = CM.format(key="serve.yaml") + "---\n"
    sub = DEPLOY.format(mount="{name: cfg, mountPath: /etc/vllm/config.yaml, subPath: serve.yaml}",
                        volume=VOLUME)
    items = DEPLOY.format(mount=MOUNT, volume="{name: cfg, configMap: {name: vllm-cfg, items: "
                          "[{key: serve.yaml, path: config.yaml}]}}")
    for i, deploy in enumerate((sub, items)):
        t = one_target(_write(tmp_path, f"m{i}.yaml", cm + deploy))
        assert t.deployment.engine.max_model_len == 4096, t.notes


def test_a_configmap_in_another_file_of_the_run(tmp_path: Path) -> None:
    """Checked alone, the Deployment names the ConfigMap it mounts and reads nothing (the
    default 131,072-token length stays); checked with the folder, cm.yaml's file is read."""
    _write(tmp_path, "cm.yaml", CM.format(key="config.yaml"))
    dep = _write(tmp_path, "dep.yaml", DEPLOY.format(mount=MOUNT, volume=VOLUME))
    [alone] = check_paths([str(dep)]).outcomes
    assert any("mounted from ConfigMap vllm-cfg (volume cfg at /etc/vllm), which is not among "
               "the files checked" in n for n in alone.notes), alone.notes
    [both] = [o for o in check_paths([str(tmp_path)]).outcomes if o.verdict != "ERROR"]
    assert any("read from ConfigMap vllm-cfg config.yaml (cm.yaml)" in n for n in both.notes)


def test_a_mount_kvplan_cannot_read_is_said_and_no_configmap_stands_in(tmp_path: Path) -> None:
    """A persistentVolumeClaim at /etc/vllm holds the file the server reads: the ConfigMap with
    a config.yaml key in the same file is not it, so nothing is read (the length stays the
    model's 131,072) and the note names the volume."""
    path = _write(tmp_path, "pvc.yaml", CM.format(key="config.yaml") + "---\n" + DEPLOY.format(
        mount=MOUNT, volume="{name: cfg, persistentVolumeClaim: {claimName: c}}"))
    t = one_target(path)
    assert t.deployment.engine.max_model_len is None
    assert any("mounted from volume cfg at /etc/vllm, a persistentVolumeClaim volume, which "
               "kvplan does not read" in n for n in t.notes), t.notes


def test_no_covering_mount_reads_the_configmap_by_name_and_says_so(tmp_path: Path) -> None:
    path = _write(tmp_path, "nomount.yaml", CM.format(key="config.yaml") + "---\n"
                  + DEPLOY.format(mount="{name: other, mountPath: /data}",
                                  volume="{name: other, emptyDir: {}}"))
    t = one_target(path)
    assert t.deployment.engine.max_model_len == 4096
    assert any("no volumeMount of the container covers this path" in n for n in t.notes)
