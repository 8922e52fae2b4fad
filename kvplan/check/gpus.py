"""GPU node labels to catalog names: explicit tables per label family, nothing guessed.

NVIDIA's GPU feature discovery labels a node `nvidia.com/gpu.product=<name>`, where <name> is
the product name nvidia-smi prints with spaces turned into hyphens ("NVIDIA H100 80GB HBM3"
-> "NVIDIA-H100-80GB-HBM3"); with time-slicing it appends "-SHARED", on MIG nodes
"-MIG-<profile>". GKE labels nodes `cloud.google.com/gke-accelerator=<name>`; Karpenter on AWS
`karpenter.k8s.aws/instance-gpu-name=<name>`; AMD's node labeller
`amd.com/gpu.product-name=<name>`; every cloud `node.kubernetes.io/instance-type` (the
instance families are in kvplan.check.instances). A label that maps to a catalog name the
catalog does not hold is reported as an error naming the spec to add.
"""

from __future__ import annotations

from kvplan.check.instances import INSTANCE_TYPES

PRODUCT_LABEL = "nvidia.com/gpu.product"
GKE_LABEL = "cloud.google.com/gke-accelerator"
GKE_COMPUTE_CLASS = "cloud.google.com/compute-class"
KARPENTER_LABEL = "karpenter.k8s.aws/instance-gpu-name"
AMD_LABEL = "amd.com/gpu.product-name"
AMD_FAMILY_LABEL = "amd.com/gpu.family"
INSTANCE_LABEL = "node.kubernetes.io/instance-type"
BETA_INSTANCE_LABEL = "beta.kubernetes.io/instance-type"
MEMORY_LABEL = "nvidia.com/gpu.memory"
RAY_ACCELERATOR = "accelerator_type"  # Ray Serve LLM's LLMConfig.accelerator_type

GPU_PRODUCTS: dict[str, str] = {
    "NVIDIA-H100-80GB-HBM3": "h100-sxm-80gb",
    "NVIDIA-H100-PCIe": "h100-pcie-80gb",
    "NVIDIA-H100-NVL": "h100-nvl-94gb",
    "NVIDIA-H200": "h200-141gb",
    "NVIDIA-H200-141GB-HBM3e": "h200-141gb",
    "NVIDIA-H20": "h20",
    "NVIDIA-H800": "h800",
    "NVIDIA-B200": "b200",
    "NVIDIA-GB200": "gb200",
    "NVIDIA-B300-SXM6-AC": "b300",
    "NVIDIA-GB300": "gb300",
    "NVIDIA-A100-SXM4-80GB": "a100-80gb",
    "NVIDIA-A100-80GB-PCIe": "a100-pcie-80gb",
    "NVIDIA-A100-SXM4-40GB": "a100-40gb",
    "NVIDIA-A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA-A800-SXM4-80GB": "a800-80gb",
    "NVIDIA-L40S": "l40s",
    "NVIDIA-L40": "l40",
    "NVIDIA-A40": "a40",
    "NVIDIA-L20": "l20",
    "NVIDIA-L4": "l4",
    "NVIDIA-A10G": "a10g",
    "NVIDIA-A10": "a10",
    "Tesla-T4": "t4",
    "Tesla-V100-SXM2-32GB": "v100-sxm2-32gb",
    "NVIDIA-GeForce-RTX-4090": "rtx-4090",
    "NVIDIA-GeForce-RTX-3090": "rtx-3090",
    "NVIDIA-GeForce-RTX-5090": "rtx-5090",
    "NVIDIA-RTX-6000-Ada-Generation": "rtx-6000-ada",
    "NVIDIA-RTX-4000-Ada-Generation": "rtx-4000-ada",
    "NVIDIA-RTX-A6000": "rtx-a6000",
    "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition": "rtx-pro-6000-server",
}
# GKE accelerator names (cloud.google.com/gke-accelerator), as GKE's GPU documentation lists
# them: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus
GKE_ACCELERATORS: dict[str, str] = {
    "nvidia-h100-80gb": "h100-sxm-80gb",
    "nvidia-h100-mega-80gb": "h100-sxm-80gb",
    "nvidia-h200-141gb": "h200-141gb",
    "nvidia-b200": "b200",
    "nvidia-gb200": "gb200",
    "nvidia-a100-80gb": "a100-80gb",
    "nvidia-tesla-a100": "a100-40gb",
    "nvidia-l4": "l4",
    "nvidia-tesla-t4": "t4",
    "nvidia-tesla-v100": "v100-sxm2-16gb",
    "nvidia-rtx-pro-6000": "rtx-pro-6000-server",
}
# Karpenter's instance-gpu-name on AWS (lower-case GPU names of the EC2 GPU families:
# https://karpenter.sh/docs/reference/instance-types/); an A100 is a p4d (40 GB) unless the
# instance type says p4de
KARPENTER_GPUS: dict[str, str] = {
    "h100": "h100-sxm-80gb",
    "h200": "h200-141gb",
    "b200": "b200",
    "a100": "a100-40gb",
    "a10g": "a10g",
    "l4": "l4",
    "l40s": "l40s",
    "t4": "t4",
    "v100": "v100-sxm2-16gb",
}
# AMD GPU node labeller product names (amd.com/gpu.product-name)
AMD_PRODUCTS: dict[str, str] = {
    "AMD_Instinct_MI300X": "mi300x",
    "AMD_Instinct_MI300X_OAM": "mi300x",
    "AMD_Instinct_MI325X": "mi325x",
    "AMD_Instinct_MI325X_OAM": "mi325x",
    "AMD_Instinct_MI355X": "mi355x",
    "AMD_Instinct_MI250X": "mi250x",
    "AMD_Instinct_MI250X_MI250": "mi250x",
    "AMD_Instinct_MI210": "mi210",
}
# Ray's accelerator types (ray-project/ray python/ray/util/accelerators/accelerators.py, commit
# 00501e2bd10f17c70dc12cdf54a203cf2db02a09 for AMD-Instinct-MI210; as
# LLMConfig.accelerator_type takes them; "A10" is read as "A10G" there). Ray detects "A100",
# "H100" and "V100" for every memory size: read as the smaller part (A100-40G / -80G name it)
RAY_ACCELERATORS: dict[str, str] = {
    "A100-40G": "a100-40gb",
    "A100-80G": "a100-80gb",
    "A100": "a100-40gb",
    "H100": "h100-sxm-80gb",
    "H200": "h200-141gb",
    "H20": "h20",
    "B200": "b200",
    "L4": "l4",
    "L40S": "l40s",
    "A10G": "a10g",
    "A10": "a10g",
    "T4": "t4",
    "V100": "v100-sxm2-16gb",
    "AMD-Instinct-MI300X-OAM": "mi300x",
    "AMD-Instinct-MI325X-OAM": "mi325x",
    "AMD-Instinct-MI250X": "mi250x",
    "AMD-Instinct-MI210": "mi210",
}
# label key -> (family, table); a fix suggests only GPUs of the family the file uses
FAMILIES: dict[str, dict[str, str]] = {
    PRODUCT_LABEL: GPU_PRODUCTS,
    GKE_LABEL: GKE_ACCELERATORS,
    KARPENTER_LABEL: KARPENTER_GPUS,
    AMD_LABEL: AMD_PRODUCTS,
    RAY_ACCELERATOR: RAY_ACCELERATORS,
    INSTANCE_LABEL: {k: v[0] for k, v in INSTANCE_TYPES.items()},
    BETA_INSTANCE_LABEL: {k: v[0] for k, v in INSTANCE_TYPES.items()},
}
LABEL_KEYS = (*FAMILIES, GKE_COMPUTE_CLASS, MEMORY_LABEL, AMD_FAMILY_LABEL)

_BY_LABEL = {k.lower(): v for k, v in GPU_PRODUCTS.items()}
_BY_FAMILY = {key: {k.lower(): v for k, v in table.items()} for key, table in FAMILIES.items()}
_BY_FAMILY[PRODUCT_LABEL] = _BY_LABEL


class UnknownLabel(ValueError):
    """A node label the table does not know, or a MIG slice."""


def catalog_name(label: str, key: str = PRODUCT_LABEL) -> str:
    """The catalog name for a node label value. Raises UnknownLabel with what to do."""
    text = label.strip()
    if "-mig-" in text.lower():
        raise UnknownLabel(
            f"{text!r} is a MIG slice; kvplan sizes whole GPUs (set kvplan.io/gpu to a spec file "
            "for the slice)"
        )
    lower = text.lower().removesuffix("-shared")
    table = _BY_FAMILY.get(key, _BY_FAMILY[GKE_LABEL] if key == GKE_COMPUTE_CLASS else _BY_LABEL)
    for candidate in (lower, lower.replace(" ", "_"), lower.replace(" ", "-")):
        if candidate in table:
            return table[candidate]
    if key in (PRODUCT_LABEL, GKE_LABEL) and lower in {**_BY_LABEL, **_BY_FAMILY[GKE_LABEL]}:
        return {**_BY_LABEL, **_BY_FAMILY[GKE_LABEL]}[lower]
    raise UnknownLabel(
        f"{key}={text!r} is not in kvplan's label table; set the annotation kvplan.io/gpu to a "
        "catalog name (`kvplan gpus`) or pass --gpu"
    )


def label_for(name: str, key: str = PRODUCT_LABEL) -> str | None:
    """The node label value to print for a catalog GPU in a label family (None: none)."""
    return next((k for k, v in FAMILIES.get(key, GPU_PRODUCTS).items() if v == name), None)
