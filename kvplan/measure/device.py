"""Which device to measure on, what it is, and which hardware spec describes it."""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kvplan.errors import InputError
from kvplan.specs.schema import HardwareSpec

_DEVICE = re.compile(r"^(cpu|cuda)(?::(\d+))?$")


@dataclass(frozen=True)
class DeviceInfo:
    """The device as the runtime reports it."""

    device: str  # torch device string: "cpu", "cuda:0"
    kind: str  # "cpu" or "cuda"
    name: str
    total_bytes: int | None  # torch.cuda.mem_get_info total; host RAM on CPU
    free_bytes: int | None


def parse_device(text: str) -> str:
    """Validate `--device`: cpu, cuda or cuda:N."""
    m = _DEVICE.match(text.strip().lower())
    if not m or (m.group(1) == "cpu" and m.group(2) is not None):
        raise InputError(f"--device {text!r}: use cpu, cuda or cuda:N")
    return text.strip().lower()


def detect(device: str) -> DeviceInfo:
    """Open the device. A CUDA request never falls back to the CPU: it fails with the reason."""
    import torch

    device = parse_device(device)
    if device == "cpu":
        return DeviceInfo("cpu", "cpu", _cpu_name(), _host_memory(), None)
    if not torch.cuda.is_available():
        built = torch.version.cuda or "none (a CPU-only build)"
        raise InputError(
            f"--device {device}: torch {torch.__version__} sees no CUDA device (its CUDA: "
            f"{built}); pass --device cpu to measure on the CPU"
        )
    index = int(device.split(":")[1]) if ":" in device else torch.cuda.current_device()
    if index >= torch.cuda.device_count():
        raise InputError(
            f"--device {device}: only {torch.cuda.device_count()} CUDA device(s) are visible"
        )
    torch.cuda.set_device(index)
    free, total = torch.cuda.mem_get_info(index)
    return DeviceInfo(f"cuda:{index}", "cuda", torch.cuda.get_device_name(index), total, free)


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _host_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


_FORM_FACTORS = {"sxm", "sxm4", "sxm5", "pcie", "nvl"}


def _label_words(label: str) -> set[str]:
    """A label's words without the parenthesised remarks and memory sizes ("141gb")."""
    bare = re.sub(r"\(.*?\)", " ", label)
    return {w for w in _words(bare) if not re.fullmatch(r"\d+gb", w)}


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def match_hardware(
    name: str, total_bytes: int | None, catalog: Sequence[HardwareSpec]
) -> tuple[HardwareSpec | None, str]:
    """The catalog entry for a detected GPU, and how it was matched.

    First by the runtime's own name (a spec's `device_names`, e.g. "NVIDIA H100 80GB HBM3"),
    then by the words of a spec's label or aliases in the device name. Among several
    candidates the one whose `memory_bytes` equals the runtime's total wins; one candidate is a
    match even when the memory differs (the difference is reported). Otherwise none: the caller
    asks for --gpu.
    """
    exact_name = [g for g in catalog if any(_same_name(name, d) for d in g.device_names)]
    if exact_name:
        named, how = exact_name, "by the runtime's device name"
    else:
        words = _words(name)
        named = [
            g for g in catalog
            if (any(a.lower() in words for a in g.aliases)
                or _label_words(g.label) <= words | _FORM_FACTORS)
            # "NVIDIA H200 NVL" is not the H200 SXM: a form factor the label lacks rules it out
            and not (words & _FORM_FACTORS) - _label_words(g.label)
        ]
        how = "by name"
    exact = [g for g in named if total_bytes is not None and g.memory_bytes == total_bytes]
    if len(exact) == 1:
        return exact[0], f"matched {exact[0].name} {how} and exact memory ({total_bytes:,} B)"
    if len(named) == 1:
        g = named[0]
        diff = "" if total_bytes is None or total_bytes == g.memory_bytes else (
            f"; the runtime reports {total_bytes:,} B, the spec says {g.memory_bytes:,} B"
        )
        return g, f"matched {g.name} {how}{diff}"
    if not named:
        return None, f"no hardware spec names {name!r}; pass --gpu NAME for the bandwidth bound"
    names = ", ".join(g.name for g in named)
    return None, f"{name!r} matches several specs ({names}); pass --gpu NAME to choose"
