"""KAITO's tables and arithmetic: the Azure SKUs' GPUs, the preset models, and how KAITO picks
the vLLM parallel layout and the node count for a Workspace. Each from kaito-project/kaito at
commit 056b8280b1a8debf644bc6f4399e913a1f9c7e70 (SOURCE); the tables are stored as read in
kvplan/check/kaito_skus.tsv and kvplan/check/kaito_presets.tsv, each with its source in its
header, and read on first use only.

- pkg/model/interface.go `buildVLLMInferenceCommand`: `--gpu-memory-utilization` is 0.84,
  0.82 on a GPU model of gpuMemoryUtilizationByGPUModel ("NVIDIA A10"); `--max-model-len=auto`
  for the vLLM runtime (vLLM's auto-fit, GeneratePresetInference's MaxModelLenAuto).
- interface.go `configureParallelism`: on one node with more than one GPU, a model whose
  modelFileSize x GPUs x 2 < the node's GPUMem runs data parallel (--data-parallel-size GPUs,
  --tensor-parallel-size 1, `modelFitsOnSingleGPU`); otherwise --tensor-parallel-size = the
  node's GPUs, and across nodes --pipeline-parallel-size = the nodes (Ray).
- pkg/workspace/estimator/nodesestimator/estimator.go `EstimateNodeCount` (used for the vLLM
  runtime in place of the deprecated resource.count, workspace_controller.go
  UpdateWorkspaceTargetNodeCount): gpuMemoryUtilization 0.84, weightExpansionFactor 1.02,
  baseOverheadGiB 2.3, overheadWeightFactor 0.05, context 2,048 tokens unless the inference
  ConfigMap sets max-model-len (utils.ParseExplicitMaxModelLen).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SOURCE = "kaito-project/kaito at 056b8280"
_DIR = Path(__file__).resolve().parents[1]
GIB = 1 << 30
UTILIZATION = "0.84"  # interface.go defaultGPUMemoryUtilization
UTILIZATION_BY_MODEL = {"NVIDIA A10": "0.82"}  # interface.go gpuMemoryUtilizationByGPUModel
AUTO_CONTEXT = 2048  # estimator.go: maxModelLen when no ConfigMap sets one


@dataclass(frozen=True)
class Sku:
    name: str
    gpus: int
    gpu_mem_bytes: int  # all GPUs of the node (KAITO's GPUMem)
    kaito_model: str
    catalog_gpu: str | None

    @property
    def utilization(self) -> str:
        return UTILIZATION_BY_MODEL.get(self.kaito_model, UTILIZATION)


@dataclass(frozen=True)
class Preset:
    hf_id: str
    file_bytes: int
    bytes_per_token: int
    quant: str | None
    formats: tuple[tuple[str, str], ...]  # load_format, config_format, tokenizer_mode as set


def _rows(name: str) -> list[dict[str, str]]:
    lines = [ln for ln in (_DIR / name).read_text().splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


@cache
def skus() -> dict[str, Sku]:
    return {r["sku"]: Sku(r["sku"], int(r["gpus"]), int(r["gpu_mem_gi"]) * GIB,
                          r["kaito_model"], None if r["catalog_gpu"] == "-" else r["catalog_gpu"])
            for r in _rows("kaito_skus.tsv")}


@cache
def presets() -> dict[str, Preset]:
    """Preset name (lowercased: a legacy short name or the repository) -> the preset."""
    out: dict[str, Preset] = {}
    for r in _rows("kaito_presets.tsv"):
        formats = tuple((k, r[k]) for k in ("load_format", "config_format", "tokenizer_mode")
                        if r[k] != "-")
        p = Preset(r["hf_id"], int(r["file_bytes"]), int(r["bytes_per_token"]),
                   None if r["quant"] == "-" else r["quant"], formats)
        out[r["hf_id"].lower()] = p
        for short in r["presets"].split(","):
            if short != "-":
                out[short] = p
    return out


def data_parallel(p: Preset, sku: Sku) -> bool:
    """interface.go modelFitsOnSingleGPU: more than one GPU, and modelFileSize x GPUs x 2 below
    the node's GPU memory."""
    return sku.gpus > 1 and p.file_bytes * sku.gpus * 2 < sku.gpu_mem_bytes


def node_count(p: Preset, sku: Sku, context: int | None) -> tuple[int, str]:
    """estimator.go EstimateNodeCount for a SKU of known memory: (nodes, the arithmetic)."""
    ctx = context or AUTO_CONTEXT
    model = p.file_bytes * 1.02
    per_gpu = float(sku.gpu_mem_bytes // sku.gpus)
    avail = per_gpu * 0.84
    reserve = 2.3 * GIB + ctx * p.bytes_per_token / sku.gpus
    if avail <= reserve:
        return 0, (f"KAITO's node estimator refuses it: {per_gpu / GIB:.0f} GiB a GPU x 0.84 is "
                   f"below its reserve of {reserve / GIB:.1f} GiB (2.3 GiB + {ctx:,} tokens of "
                   "KV)")
    per = (avail - reserve) / 1.05
    gpus = int(model / per) + 1
    nodes = -(-gpus // sku.gpus)
    return nodes, (f"KAITO's node estimator: modelFileSize {p.file_bytes / GIB:.2f} GiB x 1.02 "
                   f"over {per / GIB:.1f} GiB a GPU ((x 0.84 - 2.3 GiB - {ctx:,} tokens x "
                   f"{p.bytes_per_token:,} B / {sku.gpus}) / 1.05) = {gpus} GPU(s) -> {nodes} "
                   f"node(s) of {sku.gpus}")
