"""--gpu takes a GPU's name as people type it (task freshuser): the name nvidia-smi prints
("NVIDIA H100 80GB HBM3", a spec's `device_names`), spaces for hyphens ("rtx 4090"), a leading
vendor word ("nvidia-a100-sxm4-80gb"). Before, every one of these was refused as an unknown GPU
although `kvplan gpus "NVIDIA H100 80GB HBM3"` found the spec. A runtime name the catalog lacks
is still refused in one line, never read as a neighbouring part."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kvplan.specs.loader import load_hardware, spelled
from tests.conftest import ROOT, invoke

SPECS = sorted((ROOT / "hardware_specs").glob("*.yaml"))


def _device_names() -> list[tuple[str, str]]:
    """(runtime name, the spec file's own name) for every device_names entry, read from the
    YAML files themselves, not through kvplan's loader."""
    found = []
    for path in SPECS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        found += [(str(d), str(data["name"])) for d in data.get("device_names", [])]
    return found


DEVICES = _device_names()


def test_the_catalog_has_runtime_names() -> None:
    assert len(DEVICES) >= 35  # 38 in 37 specs when written: a rename that drops them fails


@pytest.mark.parametrize(("device", "name"), DEVICES, ids=[d for d, _ in DEVICES])
def test_every_runtime_name_is_its_own_spec(device: str, name: str) -> None:
    assert load_hardware(device).name == name
    assert load_hardware(device.upper().replace(" ", "_")).name == name


def test_no_runtime_spelling_is_two_specs() -> None:
    by_spelling: dict[str, set[str]] = {}
    for device, name in DEVICES:
        by_spelling.setdefault(spelled(device), set()).add(name)
    assert {k: v for k, v in by_spelling.items() if len(v) > 1} == {}


@pytest.mark.parametrize(("typed", "header"), [
    ("NVIDIA H100 80GB HBM3", "h100-sxm-80gb"),  # nvidia-smi on an H100 SXM5
    ("H100 80GB HBM3", "h100-sxm-80gb"),
    ("nvidia h100 80gb hbm3 ", "h100-sxm-80gb"),
    ("NVIDIA-H100-80GB-HBM3", "h100-sxm-80gb"),  # the GPU feature discovery label
    ("nvidia-a100-sxm4-80gb", "a100-80gb"),  # alias a100-sxm4-80gb after the vendor word
    ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
    ("NVIDIA L4", "l4"),
    ("NVIDIA A10", "a10"),  # not the A10G
    ("rtx 4090", "rtx-4090"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"),
    ("Tesla T4", "t4"),
    ("a100 80gb", "a100-80gb"),
    ("h100_sxm", "h100-sxm-80gb"),
    ("AMD Instinct MI300X", "mi300x"),
])
def test_size_takes_the_name_as_typed(runner, typed: str, header: str) -> None:  # noqa: ANN001
    result = invoke(runner, "size", "llama-3-8b", "--gpu", typed, "--context", "8192")
    assert result.exit_code == (1 if header == "t4" else 0), result.output  # 15 GB: no fit
    assert result.stdout.splitlines()[0] == f"llama-3-8b on {header}"


@pytest.mark.parametrize(("typed", "suggested"), [
    ("NVIDIA H200 NVL", "h100-nvl, gb200-nvl72, h200"),  # no H200 NVL spec: not the SXM H200
    ("NVIDIA GH200 480GB", "h800-80gb, h100-80gb, h200-141gb"),
    ("RTX4090", "rtx-4090, rtx-5090, rtx-3090"),
])
def test_a_part_the_catalog_lacks_is_one_line(runner, typed: str, suggested: str) -> None:  # noqa: ANN001
    result = invoke(runner, "size", "llama-3-8b", "--gpu", typed)
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: command line: hardware.gpu (--gpu): unknown GPU {typed!r} (did you mean: "
        f"{suggested}?); `kvplan gpus` lists the catalog\n")


def test_fleet_and_prices_take_runtime_names(runner) -> None:  # noqa: ANN001
    result = invoke(runner, "fleet", "llama-3-8b", "-n", "100", "--gpu", "NVIDIA L4",
                    "--price-per-hour", "NVIDIA L4=1", "-f", "csv")
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()[:2]
    fields = dict(zip(header.split(","), row.split(","), strict=True))
    assert fields["gpu"] == "l4"
    assert fields["price_per_hour_usd"] == "1.0"  # the catalog's is 0.7992
    assert fields["gpus_needed"] == "50"


def test_a_spec_file_path_is_still_a_path(tmp_path: Path) -> None:
    path = tmp_path / "my gpu.yaml"  # a space in a path is not a spelling of a name
    path.write_text((ROOT / "hardware_specs" / "l4.yaml").read_text(encoding="utf-8"))
    assert load_hardware(str(path)).name == "l4"
