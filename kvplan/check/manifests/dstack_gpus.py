"""dstack's GPU spec (`resources.gpu` of a run configuration) as the candidate GPUs dstack may
provision, in kvplan's catalog names (kvplan.check.manifests.dstack reads the configuration).

The spec's grammar is dstack's GPUSpec (dstackai/dstack
src/dstack/_internal/core/models/resources.py at 511c318c): a string of `:`-separated tokens
in any order, each a vendor (nvidia, amd, tpu, intel, tt), a name (it starts with a letter;
`A100,H100` names several), a memory (a token with a unit: `24GB`, a range `24GB..80GB`, `40GB..`)
or a count (`2`, `1..2`); or a mapping {vendor, name, memory, count, ...}; or a bare count. A
single memory is a range of one value (Range._parse: min = max). The GPUs it matches are those
dstack knows, with their memory in GB as dstack matches it: gpuhunt's KNOWN_NVIDIA_GPUS /
KNOWN_AMD_GPUS (dstackai/gpuhunt src/gpuhunt/_internal/constraints.py at e073e6db). Each of
those maps to a catalog GPU through SkyPilot's table of names (SKYPILOT_GPUS: the same names,
compared without '-'), except where dstack's name covers two memories (A100 40/80 GB, V100
16/32 GB) or SkyPilot's table lacks it (MI210, MI325X); the rest are not in kvplan's catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kvplan.check.manifests.skypilot_gpus import SKYPILOT_GPUS

# gpuhunt's known accelerators: (name, memory GB, vendor), constraints.py at e073e6db
KNOWN: tuple[tuple[str, int, str], ...] = (
    ("A10", 24, "nvidia"), ("A16", 16, "nvidia"), ("A40", 48, "nvidia"),
    ("A100", 40, "nvidia"), ("A100", 80, "nvidia"), ("A10G", 24, "nvidia"),
    ("A4000", 16, "nvidia"), ("A4500", 20, "nvidia"), ("A5000", 24, "nvidia"),
    ("A6000", 48, "nvidia"), ("H100", 80, "nvidia"), ("H100NVL", 94, "nvidia"),
    ("H200", 141, "nvidia"), ("B200", 180, "nvidia"), ("L4", 24, "nvidia"),
    ("L40", 48, "nvidia"), ("L40S", 48, "nvidia"), ("P100", 16, "nvidia"),
    ("RTX3060", 8, "nvidia"), ("RTX3060", 12, "nvidia"), ("RTX3060Ti", 8, "nvidia"),
    ("RTX3070Ti", 8, "nvidia"), ("RTX3080", 10, "nvidia"), ("RTX3080Ti", 12, "nvidia"),
    ("RTX3090", 24, "nvidia"), ("RTX4090", 24, "nvidia"), ("RTX6000", 24, "nvidia"),
    ("RTX2000Ada", 16, "nvidia"), ("RTX4000Ada", 20, "nvidia"), ("RTX6000Ada", 48, "nvidia"),
    ("T4", 16, "nvidia"), ("V100", 16, "nvidia"), ("V100", 32, "nvidia"),
    ("GH200", 96, "nvidia"),
    ("MI100", 32, "amd"), ("MI210", 64, "amd"), ("MI250", 128, "amd"), ("MI250X", 128, "amd"),
    ("MI300A", 128, "amd"), ("MI300X", 192, "amd"), ("MI308X", 128, "amd"),
    ("MI325X", 288, "amd"),
)
# (name, memory) dstack's name alone does not settle in SkyPilot's table; MI250X is left out:
# gpuhunt's 128 GB is the whole card, the catalog's mi250x one 64 GB die
_OWN = {("a100", 40): "a100-40gb", ("a100", 80): "a100-80gb", ("v100", 16): "v100-sxm2-16gb",
        ("v100", 32): "v100-sxm2-32gb", ("mi210", 64): "mi210", ("mi325x", 288): "mi325x"}
_SKY = {k.replace("-", ""): v for k, v in SKYPILOT_GPUS.items()}
VENDORS = {"nvidia": "nvidia", "amd": "amd", "tpu": "tpu", "google": "tpu", "intel": "intel",
           "tt": "tenstorrent", "tenstorrent": "tenstorrent"}


def catalog_gpu(name: str, memory: int) -> str | None:
    """The catalog GPU of dstack's NAME with MEMORY GB; None when kvplan's catalog lacks it."""
    key = name.lower().replace("-", "")
    if key == "mi250x":
        return None
    return _OWN.get((key, memory)) or _SKY.get(key)


@dataclass
class Choice:
    """One GPU dstack may provision: its name and memory as dstack knows them, the count."""

    name: str
    memory: int
    count: int
    gpu: str | None

    @property
    def label(self) -> str:
        twin = sum(1 for n, _, _ in KNOWN if n == self.name) > 1
        return f"{self.name}{f' {self.memory}GB' if twin else ''}:{self.count}"


@dataclass
class Spec:
    """resources.gpu read: the candidates, the catalog's absentees, what was said, refusals."""

    choices: list[Choice] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # matched by dstack, not in the catalog
    said: str = ""
    count_note: str | None = None
    problem: str | None = None
    by_name: bool = False  # the spec names its GPUs: one the catalog lacks is a refused candidate


_MEM = re.compile(r"^([0-9]*\.?[0-9]+)(mb|gb|tb)$")


def _memory(text: str) -> float | None:
    m = _MEM.match(text.lower())
    if m is None:
        return None
    value = float(m.group(1))
    return value * 1024 if m.group(2) == "tb" else value / 1024 if m.group(2) == "mb" else value


def _range(text: str, parse: Any) -> tuple[Any, Any] | None:
    """(least, most) of `A..B`, `A..`, `..B` or `A` (most None: no bound)."""
    if ".." in text:
        low, _, high = text.partition("..")
        lo = parse(low) if low else 0
        hi = parse(high) if high else None
        return None if lo is None or (high and hi is None) else (lo, hi)
    one = parse(text)
    return None if one is None else (one, one)


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _tokens(value: Any) -> dict[str, Any] | str:
    """dstack's GPUSpec.parse of a string or count: {vendor, name, memory, count}."""
    spec: dict[str, Any] = {}
    for token in str(value).replace(" ", "").split(":"):
        if not token:
            return f"{value!r} has an empty token"
        if token.lower() in VENDORS:
            spec["vendor"] = token
        elif token[0].isalpha():
            spec["name"] = token.split(",")
        elif any(c.isalpha() for c in token):
            spec["memory"] = token
        else:
            spec["count"] = token
    return spec


def read_spec(value: Any) -> Spec:
    """The GPUs `resources.gpu: VALUE` lets dstack provision."""
    said = value if isinstance(value, str) else str(value)
    if isinstance(value, bool) or value is None:
        return Spec(said=said, problem=f"{value!r} is not a GPU spec (NAME:COUNT, 24GB, ...)")
    parsed = dict(value) if isinstance(value, dict) else _tokens(value)
    if isinstance(parsed, str):
        return Spec(said=said, problem=parsed)
    unread = sorted(set(parsed) - {"vendor", "name", "memory", "count"})
    if unread:
        return Spec(said=said, problem=(
            f"{', '.join(unread)}: kvplan reads a GPU by vendor, name, memory and count only; "
            "write the GPUs by those to have them checked"))
    vendor = VENDORS.get(str(parsed.get("vendor", "")).lower()) if parsed.get("vendor") else None
    if parsed.get("vendor") and vendor is None:
        return Spec(said=said, problem=f"vendor {parsed['vendor']!r} is not one dstack names")
    if vendor in ("tpu", "intel", "tenstorrent"):
        return Spec(said=said, problem=(
            f"{vendor} accelerators are not GPUs kvplan's catalog holds (it models NVIDIA and "
            "AMD GPUs)"))
    count = _range(str(parsed.get("count", 1)).replace(" ", ""), _int)
    if count is None or count[0] < 1:
        return Spec(said=said, problem=f"count {parsed.get('count')!r} is not a count of GPUs "
                    "(2, 1..2)")
    spec = Spec(said=said, by_name=parsed.get("name") is not None)
    if count[1] != count[0]:
        spec.count_note = (f"count {parsed.get('count')} is a range: dstack may provision "
                           f"more; read at its least, {count[0]}")
    memory = None
    if parsed.get("memory") is not None:
        memory = _range(str(parsed["memory"]).replace(" ", ""), _memory)
        if memory is None:
            spec.problem = f"memory {parsed['memory']!r} is not a size (24GB, 24GB..80GB)"
            return spec
    names = parsed.get("name")
    wanted = None if names is None else [
        str(n).lower().replace("-", "") for n in (names if isinstance(names, list) else [names])]
    for name, mem, vend in KNOWN:
        if vendor is not None and vend != vendor:
            continue
        if wanted is not None and name.lower() not in wanted:
            continue
        if memory is not None and not (memory[0] <= mem and (memory[1] is None
                                                             or mem <= memory[1])):
            continue
        gpu = catalog_gpu(name, mem)
        if gpu is None:
            spec.absent.append(f"{name} ({mem} GB)")
        else:
            spec.choices.append(Choice(name, mem, count[0], gpu))
    if wanted is not None:
        known = {n.lower() for n, _, _ in KNOWN}
        unknown = [str(n) for n in (names if isinstance(names, list) else [names])
                   if str(n).lower().replace("-", "") not in known]
        if unknown:
            spec.problem = (f"{', '.join(unknown)}: not a GPU dstack knows (gpuhunt's names: "
                            f"{', '.join(sorted({n for n, _, _ in KNOWN}))})")
            return spec
    if not spec.choices:
        spec.problem = (f"no GPU in kvplan's catalog matches it (dstack's matches: "
                        f"{', '.join(spec.absent) or 'none'}); name a GPU the catalog holds, or "
                        "check this GPU with a kvplan/v1 file")
    return spec
