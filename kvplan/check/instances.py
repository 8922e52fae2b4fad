"""Cloud GPU instance types (node.kubernetes.io/instance-type) -> (catalog GPU, GPUs per node).

Sources, the providers' instance pages:
AWS https://aws.amazon.com/ec2/instance-types/ (P5, P4, G6e, G6, G5 accelerated computing);
GCP https://cloud.google.com/compute/docs/gpus (A3, A2, G2 machine types);
Azure https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated (ND, NC);
OCI https://docs.oracle.com/iaas/Content/Compute/References/computeshapes.htm (BM.GPU, VM.GPU).
"""

from __future__ import annotations

INSTANCE_TYPES: dict[str, tuple[str, int]] = {
    # AWS
    "p5.48xlarge": ("h100-sxm-80gb", 8),
    "p5e.48xlarge": ("h200-141gb", 8),
    "p5en.48xlarge": ("h200-141gb", 8),
    "p6-b200.48xlarge": ("b200", 8),
    "p4d.24xlarge": ("a100-40gb", 8),
    "p4de.24xlarge": ("a100-80gb", 8),
    "g6e.xlarge": ("l40s", 1), "g6e.2xlarge": ("l40s", 1), "g6e.4xlarge": ("l40s", 1),
    "g6e.8xlarge": ("l40s", 1), "g6e.16xlarge": ("l40s", 1), "g6e.12xlarge": ("l40s", 4),
    "g6e.24xlarge": ("l40s", 4), "g6e.48xlarge": ("l40s", 8),
    "g6.xlarge": ("l4", 1), "g6.2xlarge": ("l4", 1), "g6.4xlarge": ("l4", 1),
    "g6.8xlarge": ("l4", 1), "g6.16xlarge": ("l4", 1), "g6.12xlarge": ("l4", 4),
    "g6.24xlarge": ("l4", 4), "g6.48xlarge": ("l4", 8),
    "g5.xlarge": ("a10g", 1), "g5.2xlarge": ("a10g", 1), "g5.4xlarge": ("a10g", 1),
    "g5.8xlarge": ("a10g", 1), "g5.16xlarge": ("a10g", 1), "g5.12xlarge": ("a10g", 4),
    "g5.24xlarge": ("a10g", 4), "g5.48xlarge": ("a10g", 8),
    "g4dn.xlarge": ("t4", 1), "g4dn.12xlarge": ("t4", 4), "g4dn.metal": ("t4", 8),
    # GCP
    "a3-highgpu-1g": ("h100-sxm-80gb", 1), "a3-highgpu-2g": ("h100-sxm-80gb", 2),
    "a3-highgpu-4g": ("h100-sxm-80gb", 4), "a3-highgpu-8g": ("h100-sxm-80gb", 8),
    "a3-megagpu-8g": ("h100-sxm-80gb", 8), "a3-ultragpu-8g": ("h200-141gb", 8),
    "a4-highgpu-8g": ("b200", 8),
    "a2-highgpu-1g": ("a100-40gb", 1), "a2-highgpu-2g": ("a100-40gb", 2),
    "a2-highgpu-4g": ("a100-40gb", 4), "a2-highgpu-8g": ("a100-40gb", 8),
    "a2-megagpu-16g": ("a100-40gb", 16),
    "a2-ultragpu-1g": ("a100-80gb", 1), "a2-ultragpu-2g": ("a100-80gb", 2),
    "a2-ultragpu-4g": ("a100-80gb", 4), "a2-ultragpu-8g": ("a100-80gb", 8),
    "g2-standard-4": ("l4", 1), "g2-standard-8": ("l4", 1), "g2-standard-12": ("l4", 1),
    "g2-standard-16": ("l4", 1), "g2-standard-32": ("l4", 1), "g2-standard-24": ("l4", 2),
    "g2-standard-48": ("l4", 4), "g2-standard-96": ("l4", 8),
    # Azure
    "Standard_ND96isr_H100_v5": ("h100-sxm-80gb", 8),
    "Standard_ND96isr_H200_v5": ("h200-141gb", 8),
    "Standard_ND96asr_v4": ("a100-40gb", 8),
    "Standard_ND96amsr_A100_v4": ("a100-80gb", 8),
    # NC A100 v4 is the PCIe card ("Powered by NVIDIA A100 80GB PCIe Tensor Core GPUs",
    # Microsoft's Azure HPC blog, 2023-01-27, techcommunity.microsoft.com ... ba-p/3725991;
    # KAITO's pkg/sku/azure_sku_handler.go, kvplan/check/kaito_skus.tsv, reads it the same)
    "Standard_NC24ads_A100_v4": ("a100-pcie-80gb", 1),
    "Standard_NC48ads_A100_v4": ("a100-pcie-80gb", 2),
    "Standard_NC96ads_A100_v4": ("a100-pcie-80gb", 4),
    "Standard_NC40ads_H100_v5": ("h100-nvl-94gb", 1),
    "Standard_NC80adis_H100_v5": ("h100-nvl-94gb", 2),
    "Standard_ND96isr_MI300X_v5": ("mi300x", 8),
    # OCI
    "BM.GPU.H100.8": ("h100-sxm-80gb", 8),
    "BM.GPU.H200.8": ("h200-141gb", 8),
    "BM.GPU.B200.8": ("b200", 8),
    "BM.GPU.A100-v2.8": ("a100-80gb", 8),
    "BM.GPU4.8": ("a100-40gb", 8),
    "BM.GPU.L40S.4": ("l40s", 4),
    "BM.GPU.MI300X.8": ("mi300x", 8),
    "VM.GPU.A10.1": ("a10", 1),
    "VM.GPU.A10.2": ("a10", 2),
    "BM.GPU.A10.4": ("a10", 4),
}
