"""Accelerators kvplan does not model (TPUs, AWS Neuron, Gaudi, Intel GPUs, Rebellions ATOM,
Huawei Ascend NPUs): a server limited to one is refused by name, at the resource's line, with
what to do. Split from kvplan.check.manifests.workload (task readfix), which re-exports
OTHER_ACCELERATORS and other_accelerators for kvplan.check.manifests.hardware; the Ray cluster
reader (rayservice) and the unread-server ERROR (unserved) use the same words."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.side import ANNOTATION_PREFIX, SKIP_ANNOTATION

OTHER_ACCELERATORS = {
    "google.com/tpu": "TPUs", "aws.amazon.com/neuron": "AWS Neuron devices",
    "aws.amazon.com/neuroncore": "AWS Neuron cores", "habana.ai/gaudi": "Intel Gaudi devices",
    "gpu.intel.com/i915": "Intel GPUs", "gpu.intel.com/xe": "Intel GPUs",
    "rebellions.ai/ATOM": "Rebellions ATOM devices",
}
# Huawei Ascend NPUs: the Ascend device plugin's huawei.com/Ascend910, Ascend910-<vNPU>, Ascend310,
# Ascend310P, and Huawei Cloud CCE's huawei.com/ascend-1980 / ascend-310 (task h100corpus: vLLM's
# Ascend image on huawei.com/ascend-1980 was told to add an nvidia.com/gpu limit)
ASCEND_PREFIX = "huawei.com/ascend"
ASCEND = "Huawei Ascend NPUs"
# what to do, said after every refusal: kvplan cannot size the device, so the user plans the model
# on a GPU kvplan models or leaves the workload out of the check (side.py's annotation)
WHAT_TO_DO = ("kvplan cannot check this deployment: plan the model on a GPU kvplan models "
              "(kvplan size MODEL --gpu GPU), or leave the workload out with the annotation "
              f'{ANNOTATION_PREFIX}{SKIP_ANNOTATION}: "true"')


def other_accelerators(section: Any) -> list[tuple[str, str, Any]]:
    """The (key, what, value) of each accelerator kvplan does not model that a resources
    section (limits or requests) asks for, in the section's order."""
    if not isinstance(section, dict):
        return []
    found = []
    for key, value in section.items():
        what = OTHER_ACCELERATORS.get(str(key))
        if what is None and str(key).lower().startswith(ASCEND_PREFIX):
            what = ASCEND
        if what is not None:
            found.append((str(key), what, value))
    return found


def refusal(key: str, what: str, asked: str) -> str:
    """The ERROR's words for an accelerator kvplan does not model; `asked` says who asks for it
    ("this server asks for huawei.com/Ascend910: 1"). An Ascend resource is said to be an NPU by
    its own name (task readfix: the kthene LeaderWorkerSet's ERROR never said its device was an
    NPU)."""
    if what == ASCEND:
        return (f"{key} is a Huawei Ascend NPU, which kvplan has no profile for (it sizes NVIDIA "
                f"and AMD GPUs; {asked}); {WHAT_TO_DO}")
    return (f"{what} are not modelled: kvplan sizes NVIDIA and AMD GPUs ({asked}); {WHAT_TO_DO}")


def container_refusal(c: dict[str, Any]) -> tuple[tuple[str, ...], str, str] | None:
    """The first accelerator kvplan does not model that a container's resources ask for: (the
    path under the container, key, words), or None."""
    res = c.get("resources")
    if not isinstance(res, dict):
        return None
    for part in ("limits", "requests"):
        for key, what, asked in other_accelerators(res.get(part))[:1]:
            return (("resources", part, key), key,
                    refusal(key, what, f"this server asks for {key}: {asked}"))
    return None
