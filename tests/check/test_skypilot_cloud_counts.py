"""SkyPilot's per-node GPU counts of Lambda, RunPod and Hyperbolic beside GCP's (task h60leftovers):
a count the named cloud's catalog lacks is refused with that cloud's counts, and with no cloud
named a count some clouds lack is noted with the clouds that offer it. Inputs and outcomes
written by hand before kvplan ran: tests/assets/check/skypilot-catalog (SOURCES.md: the three
vms.csv extracts and their commits; EXPECTED.md), tasks in tests/assets/check/synthetic/skypilot."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines
from kvplan.check.manifests.skypilot_counts import CLOUD_COUNTS, CLOUD_SOURCE
from tests.conftest import ASSETS

CATALOG = ASSETS / "check" / "skypilot-catalog"
SYN = ASSETS / "check" / "synthetic" / "skypilot"
SHOW = ("`sky show-gpus -a` of SkyPilot's catalog, skypilot-org/skypilot "
        "docs/source/compute/show-gpus-all.txt at 1c9d60bd")


def _lines(path: Path) -> list[str]:
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


@pytest.mark.parametrize("cloud", ["lambda", "runpod", "hyperbolic"])
def test_the_cloud_count_tables_are_the_stored_extracts(cloud: str) -> None:
    """Each GPU name's counts: the distinct AcceleratorCount of its rows in the cloud's vms.csv."""
    want: dict[str, set[int]] = {}
    with (CATALOG / f"{cloud}-vms-extract.csv").open() as f:
        for row in csv.DictReader(f):
            want.setdefault(row["AcceleratorName"].lower(), set()).add(
                int(float(row["AcceleratorCount"])))
    assert {k: tuple(sorted(v)) for k, v in want.items()} == CLOUD_COUNTS[cloud]


def _refused(name: str, count: int, title: str, cloud: str, counts: str) -> list[str]:
    return [f"ERROR line 4: resources.accelerators: {name}:{count} is not launchable on {title}, "
            f"whose {name} nodes hold {counts} ({CLOUD_SOURCE[cloud]}); write one of those "
            "counts, and num_nodes for more GPUs"]


def test_h100_in_threes_is_refused_on_lambda_and_runpod() -> None:
    assert _lines(SYN / "h100-3-lambda.yaml") == _refused("H100", 3, "Lambda", "lambda",
                                                          "1, 2, 4, 8")
    # the cloud read from `infra: runpod/CA`
    assert _lines(SYN / "h100-3-runpod.yaml") == _refused("H100", 3, "RunPod", "runpod",
                                                          "1, 2, 4, 8")


def test_h100_in_threes_with_no_cloud_names_hyperbolic() -> None:
    lines = _lines(SYN / "h100-3-any.yaml")
    assert lines[0].startswith("PASS  line 7  h100-3-any.yaml: starts; holds 125 sequences")
    assert lines[3].endswith(
        f"in nodes of 1, 2, 3, 4, 5, 6, 7, 8, 12 ({SHOW}); GCP offers 1, 2, 4, 8; Hyperbolic offers "
        "1, 2, 3, 4, 5, 6, 7, 8; Lambda offers 1, 2, 4, 8; RunPod offers 1, 2, 4, 8: of these, 3 "
        "H100 on one node only on Hyperbolic (AWS, Azure, DO, OCI, Paperspace, Vast, nebius: "
        "their counts are not held by kvplan)"), lines


def test_a_count_no_cloud_offers_names_each_clouds_counts() -> None:
    assert _lines(SYN / "h100-16-any.yaml") == [
        "ERROR line 3: resources.accelerators: no cloud in SkyPilot's catalog offers 16 H100 on one "
        f"node (the counts offered are 1, 2, 3, 4, 5, 6, 7, 8, 12: {SHOW}; per cloud: GCP 1, 2, 4, "
        "8; Hyperbolic 1, 2, 3, 4, 5, 6, 7, 8; Lambda 1, 2, 4, 8; RunPod 1, 2, 4, 8); accelerators "
        "is a count per node: write H100:12 or another count offered, and num_nodes for more GPUs"]


def test_held_out_cloud_counts() -> None:
    """Held out (EXPECTED.md): never used to change the code."""
    assert _lines(SYN / "h100-3-hyperbolic.yaml")[0].startswith(
        "PASS  line 8  h100-3-hyperbolic.yaml: starts; holds 125 sequences")
    assert _lines(SYN / "a6000-8-lambda.yaml") == _refused("A6000", 8, "Lambda", "lambda",
                                                           "1, 2, 4")
    assert _lines(SYN / "rtx4090-3-runpod.yaml") == _refused("RTX4090", 3, "RunPod", "runpod",
                                                             "1, 2, 4, 8")
