"""How many GPUs of a name SkyPilot puts on one node: the counts its catalog offers, per cloud
where kvplan holds that cloud's list, else over every cloud (task h59nodes: `H200:4` passed, as
only the largest count was checked, though no cloud offers H200 in 4s; a GCP node of 16 A100
40GB was refused as TP 16 over the A100 spec's 8 GPUs a server). Task h60leftovers added the
lists of Lambda, RunPod and Hyperbolic, so a count some clouds offer and others do not is said
per cloud (`H100:3`: Hyperbolic's alone of those kvplan holds).

Sources (tests/assets/check/skypilot-catalog holds the files, SOURCES.md their commits):
- every cloud: `sky show-gpus -a`'s AVAILABLE_QUANTITIES, skypilot-org/skypilot
  docs/source/compute/show-gpus-all.txt at 1c9d60bd (ANY_CLOUD);
- GCP: skypilot 0.14.1 sky/catalog/gcp_catalog.py `_ACC_INSTANCE_TYPE_DICTS` (lines 90-137, the
  A2 / A3 / A4 / G2 / G4 machine types) and `_NUM_ACC_TO_MAX_CPU_AND_MEMORY` (lines 194-223, GPUs
  attached to N1 machines); SkyPilot refuses any other count there (lines 648-656: "A100:3 is
  not launchable on GCP. The valid A100 counts are [...]") (CLOUD_COUNTS);
- Lambda, RunPod, Hyperbolic: skypilot-org/skypilot-catalog catalogs/v7/{lambda,runpod,
  hyperbolic}/vms.csv at 11580132 / 0727c2bd / 9bbffbd5 (the extracts beside the others), whose
  rows SkyPilot filters by AcceleratorName and AcceleratorCount (skypilot 0.14.1
  sky/catalog/common.py get_instance_type_for_accelerator_impl, lines 719-754): a count no row
  holds is not launchable there (CLOUD_COUNTS);
- the clouds that list each name: skypilot-org/skypilot-catalog
  catalogs/v7/common/accelerators.csv at 03d79776 (CLOUDS).
"""

from __future__ import annotations

from typing import Any

# lower-case SkyPilot name -> the GPUs one node of some cloud holds (show-gpus-all.txt, 1c9d60bd)
ANY_CLOUD: dict[str, tuple[int, ...]] = {
    "a10": (1, 2, 4), "a10g": (1, 4, 8), "a100": (1, 2, 4, 8, 16), "a100-80gb": (1, 2, 4, 8),
    "h100": (1, 2, 3, 4, 5, 6, 7, 8, 12), "h200": (1, 2, 8), "l4": (0, 1, 2, 4, 8),
    "l40s": (1, 2, 4, 8), "t4": (1, 2, 4, 8), "v100": (1, 2, 4, 8), "v100-32gb": (1, 2, 4, 8),
    "a100-80gb-sxm": (1, 2, 4, 8), "a40": (1, 2, 4, 8), "a6000": (1, 2, 4), "a800": (1, 2, 4, 8),
    "b200": (1, 2, 4, 8), "h100-mega": (8,), "h100-nvl": (1, 2, 4, 8), "h100-sxm": (1, 2, 4, 8),
    "l40": (1, 2, 4, 8), "mi300x": (1, 2, 4, 8), "rtx3090": (1, 2, 4, 6, 8),
    "rtx4000-ada": (1, 2, 4, 8), "rtx4090": (1, 2, 3, 4, 5, 6, 7, 8), "rtx5090": (1, 2),
    "rtx6000-ada": (1, 2, 4, 8), "rtxa6000": (1, 2, 4, 8),
}
ANY_SOURCE = ("`sky show-gpus -a` of SkyPilot's catalog, skypilot-org/skypilot "
              "docs/source/compute/show-gpus-all.txt at 1c9d60bd")

# cloud (lower case, as `cloud:` / `infra:` write it) -> lower-case name -> counts a node
CLOUD_COUNTS: dict[str, dict[str, tuple[int, ...]]] = {
    "gcp": {
        "a100": (1, 2, 4, 8, 16), "a100-80gb": (1, 2, 4, 8), "l4": (1, 2, 4, 8),
        "h100": (1, 2, 4, 8), "h100-mega": (8,), "h200": (8,), "b200": (8,),
        "v100": (1, 2, 4, 8), "t4": (1, 2, 4),
    },
    "hyperbolic": {"h100": (1, 2, 3, 4, 5, 6, 7, 8), "t4": (1,),
                   "rtx4090": (1, 2, 3, 4, 5, 6, 7, 8)},
    "lambda": {
        "a10": (1,), "a100": (1, 2, 4, 8), "a100-80gb": (8,), "a6000": (1, 2, 4), "gh200": (1,),
        "h100": (1, 2, 4, 8), "rtx6000": (1,), "v100": (8,),
    },
    "runpod": {name: (1, 2, 4, 8) for name in (
        "a100-80gb", "a100-80gb-sxm", "a40", "b200", "h100", "h100-nvl", "h100-sxm", "h200-sxm",
        "l4", "l40", "l40s", "mi300x", "rtx3090", "rtx4000-ada", "rtx4090", "rtx6000-ada",
        "rtxa4000", "rtxa4500", "rtxa5000", "rtxa6000")},
}
CLOUD_SOURCE = {
    "gcp": "skypilot 0.14.1 sky/catalog/gcp_catalog.py, the counts it launches on GCP",
    "hyperbolic": "skypilot-org/skypilot-catalog catalogs/v7/hyperbolic/vms.csv at 9bbffbd5",
    "lambda": "skypilot-org/skypilot-catalog catalogs/v7/lambda/vms.csv at 11580132",
    "runpod": "skypilot-org/skypilot-catalog catalogs/v7/runpod/vms.csv at 0727c2bd",
}
CLOUD_TITLE = {"gcp": "GCP", "hyperbolic": "Hyperbolic", "lambda": "Lambda", "runpod": "RunPod"}
# machines of more GPUs than the GPU spec's gpus_per_node, by cloud and catalog GPU: the node
# a count fills (GCP's a2-megagpu-16g: 16 A100 40GB in one VM, gcp_catalog.py:96; the A2
# machine series in GCP's GPU machine types, https://cloud.google.com/compute/docs/gpus, as
# kvplan.check.instances holds it). The only cloud machine kvplan knows above its spec's 8.
BIG_NODES: dict[tuple[str, str, int], str] = {("gcp", "a100-40gb", 16): "a2-megagpu-16g"}

# lower-case name -> the clouds that list it (accelerators.csv at 03d79776)
CLOUDS: dict[str, tuple[str, ...]] = {
    "a10": ("Azure", "Lambda", "OCI", "Vast"),
    "a100": ("AWS", "Azure", "GCP", "Lambda", "OCI", "Vast"),
    "a100-80gb": ("AWS", "Azure", "GCP", "Lambda", "OCI", "Paperspace", "RunPod", "scp"),
    "a100-80gb-sxm": ("RunPod",), "a10g": ("AWS",), "a40": ("Cudo", "RunPod", "Vast"),
    "a6000": ("Lambda",), "b200": ("RunPod",),
    "h100": ("AWS", "Azure", "DO", "GCP", "Hyperbolic", "Lambda", "OCI", "Paperspace", "RunPod",
             "Vast", "nebius"),
    "h100-mega": ("GCP",), "h100-nvl": ("RunPod",), "h100-sxm": ("RunPod",),
    "h200": ("AWS", "GCP", "OCI", "Vast", "nebius"), "h200-sxm": ("RunPod",),
    "l4": ("AWS", "GCP", "RunPod"), "l40": ("RunPod",),
    "l40s": ("AWS", "OCI", "RunPod", "Vast", "nebius"), "mi300x": ("RunPod",),
    "rtx3090": ("RunPod", "Vast"), "rtx4000-ada": ("RunPod",),
    "rtx4090": ("Hyperbolic", "RunPod", "Vast"), "rtx5090": ("Vast",),
    "rtx6000-ada": ("RunPod", "Vast"), "rtxa6000": ("Cudo", "RunPod", "Vast"),
    "t4": ("AWS", "Azure", "GCP", "Hyperbolic"),
    "v100": ("AWS", "Azure", "Cudo", "GCP", "IBM", "Lambda", "OCI", "Paperspace", "Vast"),
    "v100-32gb": ("AWS", "Azure", "Paperspace", "scp"),
}
CLOUDS_SOURCE = "skypilot-org/skypilot-catalog catalogs/v7/common/accelerators.csv at 03d79776"


def cloud_of(resources: Any) -> str | None:
    """The cloud a resources mapping names, lower case: `cloud: gcp`, or `infra: gcp/us-central1`
    (SkyPilot 0.10's spelling, CLOUD[/REGION[/ZONE]]); None when it names none."""
    if not isinstance(resources, dict):
        return None
    for key in ("infra", "cloud"):
        value = resources.get(key)
        if isinstance(value, str) and value.strip() and value.strip() != "*":
            return value.strip().split("/", 1)[0].lower()
    return None


def _counts(counts: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in counts if n > 0)


def _held(key: str) -> list[tuple[str, tuple[int, ...]]]:
    """(cloud title, counts) of each cloud whose list kvplan holds and names GPU `key`."""
    return [(CLOUD_TITLE[c], t[key]) for c, t in CLOUD_COUNTS.items() if key in t]


def _not_held(key: str) -> list[str]:
    """The clouds that list GPU `key` (accelerators.csv) whose counts kvplan does not hold."""
    held = {c.lower() for c, t in CLOUD_COUNTS.items() if key in t}
    return [c for c in CLOUDS.get(key, ()) if c.lower() not in held]


def not_offered(name: str, count: int, cloud: str | None) -> str | None:
    """Why SkyPilot cannot put `count` GPUs of `name` on one node of `cloud` (None: any cloud):
    a count the cloud's list lacks, else one no cloud of the catalog offers; None when offered
    or when no list names the GPU."""
    key = name.lower()
    listed = CLOUD_COUNTS.get(cloud or "", {}).get(key)
    if listed is not None and count not in listed:
        title = CLOUD_TITLE.get(str(cloud), str(cloud))
        return (f"{name}:{count} is not launchable on {title}, whose {name} nodes hold "
                f"{_counts(listed)} ({CLOUD_SOURCE[str(cloud)]}); write one of those counts, and "
                "num_nodes for more GPUs")
    offered = ANY_CLOUD.get(key)
    if listed is None and offered is not None and count not in offered:
        fewer = [n for n in offered if 0 < n < count]
        hint = f"write {name}:{fewer[-1]}" if fewer else f"write {name}:{_counts(offered)}"
        held = _held(key)
        per = ("; per cloud: " + "; ".join(f"{c} {_counts(t)}" for c, t in held)
               if held else "")
        return (f"no cloud in SkyPilot's catalog offers {count} {name} on one node (the counts "
                f"offered are {_counts(offered)}: {ANY_SOURCE}{per}); accelerators is a count "
                f"per node: {hint} or another count offered, and num_nodes for more GPUs")
    return None


def offered_note(name: str, count: int, cloud: str | None) -> str | None:
    """Where SkyPilot may launch `count` `name` on one node: for a task that names no cloud, the
    clouds that list the GPU and the counts offered (some cloud's); None for a named cloud or
    a GPU no list holds."""
    key = name.lower()
    if cloud is not None or key not in ANY_CLOUD:
        return None
    clouds = CLOUDS.get(key)
    where = f" on {', '.join(clouds)} ({CLOUDS_SOURCE})" if clouds else ""
    held = _held(key)
    per = "".join(f"; {c} offers {_counts(t)}" for c, t in held)
    these = [c for c, t in held if count in t]
    if held and len(these) < len(held):  # a count some of the clouds kvplan holds lack
        per += (f": of these, {count} {name} on one node only on {', '.join(these)}" if these
                else f": none of these offers {count} {name} on one node")
    others = _not_held(key)
    if held and others:
        per += f" ({', '.join(others)}: their counts are not held by kvplan)"
    return (f"{name}:{count}: no cloud named, so any that offers {count} {name} on one node: "
            f"SkyPilot's catalog lists {name}{where}, in nodes of {_counts(ANY_CLOUD[key])} "
            f"({ANY_SOURCE}){per}")


def node_gpus(said: str, gpu: str, count: int, cloud: str | None,
              per_node: int) -> tuple[int, str] | None:
    """(GPUs one node holds, the note) where the node a launcher asks for holds more of catalog
    GPU `gpu` than its spec's `per_node`: a cloud that sells `count` of them in one machine
    (named, or the only one kvplan knows of when the file names no cloud); None otherwise, the
    spec's count standing (no other cloud is loosened). `said`: how the file asks for them."""
    if count <= per_node:
        return None
    for (c, big, n), machine in BIG_NODES.items():
        if big == gpu and n == count and cloud in (None, c):
            title = CLOUD_TITLE[c]
            how = "" if cloud else f" (no cloud named: {title}'s is the node that holds them)"
            return count, (f"{said}: one {title} node holds {count} {gpu} ({machine}, "
                           f"{CLOUD_SOURCE[c]}){how}, more than the GPU spec's {per_node} a "
                           "server: tensor parallelism up to that runs on one node")
    return None
