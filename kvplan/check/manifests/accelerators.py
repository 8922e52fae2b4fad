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


# HAMi's GPU sharing (Project-HAMi): beside nvidia.com/gpu, a container asks for a slice of each
# GPU's memory, nvidia.com/gpumem in MiB ("nvidia.com/gpumem: 3000 # Each vGPU contains 3000m
# device memory ... will see 3G device memory inside container", Project-HAMi/website
# docs/key-features/device-resource-isolation.md at 15b71d4) or nvidia.com/gpumem-percentage;
# nvidia.com/gpucores caps the share of the GPU's SMs, which moves no memory
HAMI_MEMORY = ("nvidia.com/gpumem", "nvidia.com/gpumem-percentage")


def memory_slice(c: dict[str, Any]) -> tuple[tuple[str, ...], str, str] | None:
    """A limit on the GPU memory a container sees (HAMi's nvidia.com/gpumem, in MiB, or
    nvidia.com/gpumem-percentage): (the path under the container, key, the ERROR's words), or
    None. kvplan plans a whole GPU's memory, which such a container does not get (round
    blind-2026-12-08-r11: cduggn/Ariadne's StatefulSet, nvidia.com/gpumem 20480 on an A100 40GB,
    was planned on the whole card in silence)."""
    res = c.get("resources")
    if not isinstance(res, dict):
        return None
    for part in ("limits", "requests"):
        section = res.get(part)
        for key in HAMI_MEMORY:
            if isinstance(section, dict) and key in section:
                unit = " MiB" if key == "nvidia.com/gpumem" else "%"
                return (("resources", part, key), key, (
                    f"{section[key]}{unit}: HAMi hands the container that slice of each GPU's "
                    "memory, and the engine sizes its pool from the slice, not the card; kvplan "
                    "plans whole GPUs, so it cannot check this deployment: plan the slice with "
                    "kvplan size MODEL --gpu GPU --kv-budget-gib (the slice, less the weights "
                    "and the engine's overhead), or leave the workload out with the annotation "
                    f'{ANNOTATION_PREFIX}{SKIP_ANNOTATION}: "true"'))
    return None


def cores_note(c: dict[str, Any]) -> str | None:
    """HAMi's nvidia.com/gpucores (a percentage of the GPU's SMs), said: it moves no memory."""
    res = c.get("resources")
    for part in ("limits", "requests"):
        section = res.get(part) if isinstance(res, dict) else None
        if isinstance(section, dict) and "nvidia.com/gpucores" in section:
            return (f"nvidia.com/gpucores: {section['nvidia.com/gpucores']} caps the share of "
                    "the GPU's SMs HAMi gives the container (time, not memory): not read")
    return None
