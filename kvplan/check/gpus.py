"""GPU node labels to catalog names: an explicit table, nothing guessed.

NVIDIA's GPU feature discovery labels a node `nvidia.com/gpu.product=<name>`, where <name> is
the product name nvidia-smi prints with spaces turned into hyphens ("NVIDIA H100 80GB HBM3"
-> "NVIDIA-H100-80GB-HBM3"); with time-slicing it appends "-SHARED", on MIG nodes
"-MIG-<profile>". GKE labels nodes `cloud.google.com/gke-accelerator=<name>` instead.
A label that maps to a catalog name the catalog does not (yet) hold is reported as an error.
"""

from __future__ import annotations

PRODUCT_LABEL = "nvidia.com/gpu.product"
GKE_LABEL = "cloud.google.com/gke-accelerator"

# label (compared case-insensitively) -> catalog name. The first label of a catalog name is
# the one `check` prints when it suggests that GPU.
GPU_PRODUCTS: dict[str, str] = {
    "NVIDIA-H100-80GB-HBM3": "h100-sxm-80gb",
    "NVIDIA-H100-PCIe": "h100-pcie-80gb",
    "NVIDIA-H100-NVL": "h100-nvl-94gb",
    "NVIDIA-H200": "h200-141gb",
    "NVIDIA-H200-141GB-HBM3e": "h200-141gb",
    "NVIDIA-B200": "b200",
    "NVIDIA-GB200": "gb200",
    "NVIDIA-A100-SXM4-80GB": "a100-80gb",
    "NVIDIA-A100-80GB-PCIe": "a100-80gb",
    "NVIDIA-A100-SXM4-40GB": "a100-40gb",
    "NVIDIA-A100-PCIE-40GB": "a100-40gb",
    "NVIDIA-L40S": "l40s",
    "NVIDIA-L4": "l4",
    "NVIDIA-A10G": "a10g",
    "NVIDIA-A10": "a10",
    "NVIDIA-GeForce-RTX-4090": "rtx-4090",
    "NVIDIA-GeForce-RTX-3090": "rtx-3090",
    # GKE accelerator names (nvidia-l4 and nvidia-b200 match the entries above: labels are
    # compared case-insensitively)
    "nvidia-h100-80gb": "h100-sxm-80gb",
    "nvidia-h100-mega-80gb": "h100-sxm-80gb",
    "nvidia-h200-141gb": "h200-141gb",
    "nvidia-a100-80gb": "a100-80gb",
    "nvidia-tesla-a100": "a100-40gb",
}

_BY_LABEL = {k.lower(): v for k, v in GPU_PRODUCTS.items()}


class UnknownLabel(ValueError):
    """A node label the table does not know, or a MIG slice."""


def catalog_name(label: str) -> str:
    """The catalog name for a node label. Raises UnknownLabel with what to do."""
    text = label.strip()
    if "-mig-" in text.lower():
        raise UnknownLabel(
            f"{text!r} is a MIG slice; kvplan sizes whole GPUs (set kvplan.io/gpu to a spec file "
            "for the slice)"
        )
    key = text.lower().removesuffix("-shared")
    if key in _BY_LABEL:
        return _BY_LABEL[key]
    raise UnknownLabel(
        f"GPU product {text!r} is not in kvplan's label table; set the annotation "
        "kvplan.io/gpu to a catalog name (`kvplan gpus`)"
    )


def label_for(name: str) -> str | None:
    """The node label to print for a catalog GPU (None when the table has none)."""
    return next((k for k, v in GPU_PRODUCTS.items() if v == name), None)
