"""The GPUs one node holds, from the clouds' catalogs (task h59nodes): SkyPilot's per-node counts
checked by membership (`H200:4` passed under the largest offer, 8, though H200 comes in 1, 2 or
8), per cloud where kvplan holds the cloud's list (GCP), and a node bigger than the GPU spec's
gpus_per_node where the cloud sells one (GCP's a2-megagpu-16g: 16 A100 40GB; the a100-40gb spec
says 8). Inputs and the outcomes written by hand before kvplan ran:
tests/assets/check/skypilot-catalog (SOURCES.md, EXPECTED.md); the tasks are
tests/assets/check/synthetic/skypilot/{h200-4,h200-8,a100-16-*,a100-3-gcp,h100-12-gcp}.yaml."""

from __future__ import annotations

import ast
import csv
from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines
from kvplan.check.manifests.skypilot_counts import ANY_CLOUD, CLOUDS, not_offered
from kvplan.check.manifests.skypilot_gpus import SKYPILOT_GPUS, Candidate, over_node
from tests.conftest import ASSETS

CATALOG = ASSETS / "check" / "skypilot-catalog"
SYN = ASSETS / "check" / "synthetic" / "skypilot"
GKE = ASSETS / "check" / "corpus" / "gke" / "vllm-7b-it-tensorparallelism.yaml"
SHOW = ("`sky show-gpus -a` of SkyPilot's catalog, skypilot-org/skypilot "
        "docs/source/compute/show-gpus-all.txt at 1c9d60bd")
GCP = "skypilot 0.14.1 sky/catalog/gcp_catalog.py, the counts it launches on GCP"


def _lines(path: Path) -> list[str]:
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


def _quantities() -> dict[str, tuple[int, ...]]:
    """show-gpus-all.txt's AVAILABLE_QUANTITIES by lower-case name (two-word names kept)."""
    out = {}
    for line in (CATALOG / "show-gpus-all.txt").read_text().splitlines():
        name, _, rest = line.rstrip().partition("  ")
        rest = rest.strip()
        if name and rest and rest[0].isdigit():
            out[name.lower()] = tuple(int(n) for n in rest.split(", "))
    return out


def test_the_count_tables_are_the_stored_catalogs() -> None:
    quantities = _quantities()
    assert {k: quantities[k] for k in ANY_CLOUD} == ANY_CLOUD
    assert set(ANY_CLOUD) == set(SKYPILOT_GPUS) - {"b300", "gb200", "h200-sxm"}
    with (CATALOG / "accelerators.csv").open() as f:
        listed = {r["AcceleratorName"].lower(): tuple(ast.literal_eval(r["Clouds"]))
                  for r in csv.DictReader(f)}
    assert {k: listed[k] for k in CLOUDS} == CLOUDS
    assert set(CLOUDS) == set(SKYPILOT_GPUS) - {"a800", "b300", "gb200"}  # not in that file


def test_h200_in_fours_is_offered_by_no_cloud() -> None:
    assert _lines(SYN / "h200-4.yaml") == [
        "ERROR line 4: resources.accelerators: no cloud in SkyPilot's catalog offers 4 H200 on one "
        f"node (the counts offered are 1, 2, 8: {SHOW}; per cloud: GCP 8); accelerators is a count "
        "per node: write H200:2 or another count offered, and num_nodes for more GPUs"]


def test_h200_in_eights_passes_with_the_clouds_named() -> None:
    lines = _lines(SYN / "h200-8.yaml")
    assert lines[0].startswith("PASS  line 8  h200-8.yaml: starts; holds 335 sequences")
    assert (f"      note: SkyPilot's H200 is h200-141gb; $SKYPILOT_NUM_GPUS_PER_NODE = 8; H200:8: no "
            "cloud named, so any that offers 8 H200 on one node: SkyPilot's catalog lists H200 on "
            "AWS, GCP, OCI, Vast, nebius (skypilot-org/skypilot-catalog "
            f"catalogs/v7/common/accelerators.csv at 03d79776), in nodes of 1, 2, 8 ({SHOW}); GCP "
            "offers 8 (AWS, OCI, Vast, nebius: their counts are not held by kvplan)") in lines


def test_sixteen_a100_on_one_gcp_node_run_tp_16() -> None:
    """Llama-3.1-70B at TP 16 on GCP's a2-megagpu-16g: first measured as an ERROR ("tensor
    parallelism 16 spans more than one node of 8 GPUs"); with no cloud named GCP's is the node."""
    for name in ("a100-16-gcp.yaml", "a100-16-any.yaml"):
        lines = _lines(SYN / name)
        assert lines[0].startswith(f"PASS  line {9 if 'gcp' in name else 8}  {name}: starts; "
                                   "holds 78 sequences of 8,192 tokens per replica (645,920 "
                                   "tokens in the pool)"), lines
        how = "" if "gcp" in name else " (no cloud named: GCP's is the node that holds them)"
        assert (f"      note: A100:16: one GCP node holds 16 a100-40gb (a2-megagpu-16g, {GCP}){how}, "
                "more than the GPU spec's 8 a server: tensor parallelism up to that runs on one "
                "node") in lines


def test_other_clouds_keep_the_specs_node_of_8() -> None:
    assert _lines(SYN / "a100-16-aws.yaml") == [
        "ERROR line 1: engine: tensor parallelism 16 spans more than one node of 8 GPUs; state the "
        "node count, or use --tp 8 or less with more replicas",
        # an ERROR's notes are said too (task h71sglfix)
        "      note: resources.accelerators A100:16: 16 GPU(s)",
        "      note: SkyPilot's A100 is a100-40gb; $SKYPILOT_NUM_GPUS_PER_NODE = 16"]


def test_held_out_gcp_counts() -> None:
    """Held out (EXPECTED.md): never used to change the code."""
    assert _lines(SYN / "a100-3-gcp.yaml") == [
        "ERROR line 5: resources.accelerators: A100:3 is not launchable on GCP, whose A100 nodes "
        f"hold 1, 2, 4, 8, 16 ({GCP}); write one of those counts, and num_nodes for more GPUs"]
    lines = _lines(SYN / "h100-12-gcp.yaml")
    assert lines[0].startswith("WARN  line 6  h100-12-gcp.yaml: starts on: H100:12; would not "
                               "start on: H100:12 on gcp (not checked)")
    assert (f"      note: H100:12 on gcp: not checked: H100:12 is not launchable on GCP, whose H100 "
            f"nodes hold 1, 2, 4, 8 ({GCP}); write one of those counts, and num_nodes for more "
            "GPUs") in lines


def test_a_cloud_that_does_not_list_the_gpu_and_own_machines() -> None:
    a10g = Candidate("A10G", 4, 1)
    a10g.cloud = "gcp"
    assert over_node(a10g) == (
        "SkyPilot's catalog lists A10G on AWS (skypilot-org/skypilot-catalog "
        "catalogs/v7/common/accelerators.csv at 03d79776), not on gcp: name one of those clouds or "
        "another GPU")
    # a Kubernetes cluster's nodes are its own: only the largest count of any cloud, as before
    k8s = Candidate("H200", 4, 1)
    k8s.cloud = "k8s"
    assert over_node(k8s) is None
    k8s.count = 9
    assert over_node(k8s) is not None
    assert not_offered("H200", 4, None) is not None
    assert not_offered("GB200", 3, None) is None  # not in the listing: nothing known


def test_a_gke_node_of_16_a100_runs_tp_16(tmp_path: Path) -> None:
    """The GKE sample at TP 16 over one pod of 16 A100 40GB: the instance-type label
    a2-megagpu-16g (kvplan.check.instances), or GKE's accelerator label with 16 GPUs a pod
    (only GCP's a2-megagpu-16g holds them), is one node of 16; NVIDIA's product label names no
    cloud, so the spec's 8 stand."""
    text = GKE.read_text().replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 16").replace(
        "tensor-parallel-size=2", "tensor-parallel-size=16").replace(
        "google/gemma-7b-it", "meta-llama/Llama-3.1-70B-Instruct")
    path = tmp_path / "gke.yaml"
    cases = {
        "node.kubernetes.io/instance-type: a2-megagpu-16g": "PASS",
        "cloud.google.com/gke-accelerator: nvidia-tesla-a100": "PASS",
        "nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB": "ERROR",
    }
    for label, verdict in cases.items():
        path.write_text(text.replace("cloud.google.com/gke-accelerator: nvidia-l4", label))
        [out] = check_paths([str(path)]).outcomes
        assert out.verdict == verdict, (label, out.problems)
    path.write_text(text.replace("cloud.google.com/gke-accelerator: nvidia-l4",
                                 "node.kubernetes.io/instance-type: a2-megagpu-16g"))
    [out] = check_paths([str(path)]).outcomes
    assert ("node.kubernetes.io/instance-type=a2-megagpu-16g: one node holds 16 a100-40gb (the "
            "cloud's machine type, kvplan.check.instances), more than the GPU spec's 8 a server: "
            "tensor parallelism up to that runs on one node") in out.notes
