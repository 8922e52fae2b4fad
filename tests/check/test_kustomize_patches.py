"""Kustomize patch files in `kvplan check` (task uxfix). A strategic-merge patch such as
overlays/prod/patch.yaml (a Deployment fragment with only `containers[].args`) was read as a
whole Deployment: ERROR "passes server options (--model ...) to image '(none)'". A file that a
kustomization (kustomization.yaml / .yml / Kustomization: kustomize api/konfig/general.go) names
under `patches`, `patchesStrategicMerge` or `patchesJson6902` is now said once: a footer line in
a walk (JSON summary.skipped_patches), an ERROR when named; it never counts as checked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

CORPUS = Path("tests/assets/check/corpus/user-repos")
BASE = CORPUS / "nova-agent-k8s-base-vllm-deployment.yaml"  # thisisrobyn/nova-agent k8s/base
PATCH = CORPUS / "nova-agent-eks-vllm-gpu-patch.yaml"  # its k8s/overlays/eks/vllm-gpu-patch.yaml
ARGS_PATCH = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
        - name: vllm
          args: ["--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--max-model-len", "4096"]
"""


def _layout(root: Path, kustomization: str, key: str) -> Path:
    """base/ (the corpus base), overlays/eks/ (the corpus patch, the args patch and a
    kustomization written here naming both under `key`)."""
    (root / "base").mkdir(parents=True)
    shutil.copy(BASE, root / "base" / "vllm-deployment.yaml")
    overlay = root / "overlays" / "eks"
    overlay.mkdir(parents=True)
    shutil.copy(PATCH, overlay / "vllm-gpu-patch.yaml")
    (overlay / "args-patch.yaml").write_text(ARGS_PATCH, encoding="utf-8")
    if key == "patches":
        named = "patches:\n  - path: vllm-gpu-patch.yaml\n  - path: args-patch.yaml\n"
    else:
        named = f"{key}:\n  - vllm-gpu-patch.yaml\n  - args-patch.yaml\n"
    (overlay / kustomization).write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        f"resources:\n  - ../../base\n{named}", encoding="utf-8")
    return overlay


def _run(*args: str) -> tuple[int, list[str]]:
    res = CliRunner().invoke(app, ["check", *args])
    return res.exit_code, res.stdout.splitlines()


def test_a_walk_says_each_patch_once_and_checks_the_base(tmp_path: Path) -> None:
    overlay = _layout(tmp_path, "kustomization.yaml", "patches")
    code, lines = _run(str(tmp_path))
    assert code == 2  # the base's ERROR (corpus-expected: AWQ from the flag alone, no GPU)
    assert not any("image '(none)'" in line for line in lines)
    for name in ("args-patch.yaml", "vllm-gpu-patch.yaml"):
        said = [line for line in lines if line.startswith(f"not checked: {overlay / name}:")]
        assert said == [f"not checked: {overlay / name}: a kustomize patch (named by "
                        f"{overlay / 'kustomization.yaml'}): kvplan does not render overlays; "
                        f"render the overlay with `kubectl kustomize {overlay}` and check the "
                        "output"]
    assert lines.count(str(tmp_path / "base" / "vllm-deployment.yaml")) == 1
    assert any(line.startswith("1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR")
               for line in lines)
    res = CliRunner().invoke(app, ["check", str(tmp_path), "-f", "json"])
    summary = json.loads(res.stdout)["summary"]
    assert sorted(Path(p["file"]).name for p in summary["skipped_patches"]) == [
        "args-patch.yaml", "vllm-gpu-patch.yaml"]


def test_a_walk_that_met_only_patches_fails(tmp_path: Path) -> None:
    overlay = _layout(tmp_path, "Kustomization", "patchesStrategicMerge")
    code, lines = _run(str(overlay))
    assert code == 2
    assert lines[-1] == ("error: no deployment was checked (nothing here runs vLLM, SGLang or "
                         "TensorRT-LLM, and no kvplan/v1 file); the gate fails")
    assert sum(line.startswith("not checked: ") for line in lines) == 2


def test_a_patch_named_is_one_error_with_the_reason(tmp_path: Path) -> None:
    overlay = _layout(tmp_path, "kustomization.yml", "patches")
    code, lines = _run(str(overlay / "args-patch.yaml"))
    assert code == 2
    assert lines[1] == (f"ERROR file: a kustomize patch (named by {overlay / 'kustomization.yml'}"
                        f"): kvplan does not render overlays; render the overlay with `kubectl "
                        f"kustomize {overlay}` and check the output")


def test_without_a_kustomization_the_args_fragment_keeps_its_refusal(tmp_path: Path) -> None:
    (tmp_path / "patch.yaml").write_text(ARGS_PATCH, encoding="utf-8")
    code, lines = _run(str(tmp_path / "patch.yaml"))
    assert code == 2 and "image '(none)'" in lines[1]  # nothing says it is a patch
