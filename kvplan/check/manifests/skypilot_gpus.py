"""SkyPilot's accelerators (`resources.accelerators` / `gpus`, `any_of`, `ordered`) as the
candidate GPUs a task may be launched on, in kvplan's catalog names
(kvplan.check.manifests.skypilot reads the task)."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.skypilot_counts import ANY_CLOUD, cloud_of
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

# SkyPilot accelerator name (lower case) -> catalog GPU. SkyPilot's names and their memory:
# skypilot-org/skypilot docs/source/compute/show-gpus-all.txt (commit 1c9d60bd) and the catalog
# it reads (skypilot-org/skypilot-catalog): A100 is the 40 GB A100 (AWS p4d, GCP a2-highgpu),
# A100-80GB the 80 GB one; H100 is the 80 GB SXM part on AWS p5 / GCP a3 (some clouds' H100
# is the PCIe card: 84,943,044,608 B against 85,045,477,376 B, said in a note); V100 the 16 GB
# card, V100-32GB the 32 GB one.
SKYPILOT_GPUS: dict[str, str] = {
    "a10": "a10",
    "a10g": "a10g",
    "a100": "a100-40gb",
    "a100-80gb": "a100-80gb",
    "a100-80gb-sxm": "a100-80gb",
    "a40": "a40",
    "a6000": "rtx-a6000",
    "rtxa6000": "rtx-a6000",
    "a800": "a800-80gb",
    "b200": "b200",
    "b300": "b300",
    "gb200": "gb200",
    "h100": "h100-sxm-80gb",
    "h100-sxm": "h100-sxm-80gb",
    "h100-mega": "h100-sxm-80gb",
    "h100-nvl": "h100-nvl-94gb",
    "h200": "h200-141gb",
    "h200-sxm": "h200-141gb",
    "l4": "l4",
    "l40": "l40",
    "l40s": "l40s",
    "t4": "t4",
    "v100": "v100-sxm2-16gb",
    "v100-32gb": "v100-sxm2-32gb",
    "rtx3090": "rtx-3090",
    "rtx4090": "rtx-4090",
    "rtx5090": "rtx-5090",
    "rtx4000-ada": "rtx-4000-ada",
    "rtx6000-ada": "rtx-6000-ada",
    "mi300x": "mi300x",
}
# The most GPUs of a name one node offers on any cloud of SkyPilot's catalog (lower-case name ->
# count): the largest of `sky show-gpus -a`'s AVAILABLE_QUANTITIES, SkyPilot's own listing of
# its catalog (skypilot-org/skypilot-catalog, read by sky/catalog): skypilot-org/skypilot
# docs/source/compute/show-gpus-all.txt at commit 1c9d60bdd0c6b63c61a181bec951746c6a17de97 (the
# file SKYPILOT_GPUS' names come from). A100's 16 is GCP's a2-megagpu-16g (skypilot 0.14.1
# sky/catalog/gcp_catalog.py `_ACC_INSTANCE_TYPE_DICTS`: 16: ['a2-megagpu-16g']; the instance is
# in skypilot-catalog catalogs/v7/gcp/vms.csv at 017e2502), H100's 12 the largest H100 offer
# listed. B300, GB200 and H200-SXM are not in that listing: no ceiling is known for them.
SKYPILOT_MAX_PER_NODE: dict[str, int] = {k: max(v) for k, v in ANY_CLOUD.items()}
MAX_SOURCE = ("`sky show-gpus -a` of SkyPilot's catalog, skypilot-org/skypilot "
              "docs/source/compute/show-gpus-all.txt at 1c9d60bd")


# clouds whose nodes are the user's own machines, outside SkyPilot's catalog (a Kubernetes
# cluster, SSH node pools): only the largest count of any cloud is checked there, as before
OWN_MACHINES = ("kubernetes", "k8s", "ssh")


def over_node(c: Candidate) -> str | None:
    """Why SkyPilot cannot launch candidate `c` on one node: a count its cloud's list lacks
    (GCP: skypilot_counts.CLOUD_COUNTS), a cloud that does not list the GPU, or with no cloud
    named a count no cloud of SkyPilot's catalog offers (task h59nodes: `H200:4` passed, under
    the largest offer of 8, though H200 comes in 1, 2 or 8); on a Kubernetes or SSH cloud only
    a count above the most any cloud offers (task h58launch: `H100:1000` passed with a note).
    None when it can be launched or the catalog does not know the name."""
    from kvplan.check.manifests.skypilot_counts import CLOUDS, CLOUDS_SOURCE, not_offered

    key, count = c.name.lower(), int(c.count)
    if c.cloud in OWN_MACHINES:
        most = SKYPILOT_MAX_PER_NODE.get(key)
        if most is None or count <= most:
            return None
        return (f"no cloud in SkyPilot's catalog offers {c.count} {c.name} on one node "
                f"(the most is {most}: {MAX_SOURCE}); accelerators is a count per node: write "
                f"{c.name}:{most} or less, and num_nodes for more GPUs")
    listed = CLOUDS.get(key)
    if c.cloud is not None and listed and c.cloud not in {x.lower() for x in listed}:
        return (f"SkyPilot's catalog lists {c.name} on {', '.join(listed)} ({CLOUDS_SOURCE}), "
                f"not on {c.cloud}: name one of those clouds or another GPU")
    return not_offered(c.name, count, c.cloud)


class Candidate:
    """One GPU SkyPilot may launch: its name as written, count per node, catalog GPU."""

    def __init__(self, name: str, count: Any, line: int, where: str = ""):
        self.name, self.count, self.line = name, count, line
        self.gpu = SKYPILOT_GPUS.get(name.lower())
        self.where = where  # an any_of / ordered option that names no GPU: its place
        self.image: Any = None  # the option's own image_id (None: the top level's)
        self.cloud: str | None = None  # `cloud:` / `infra:` (skypilot_counts.cloud_of)
        self.own_cloud = False  # an any_of / ordered option's own cloud: named in the label

    @property
    def label(self) -> str:
        said = f"{self.where} (no accelerators)" if self.where else f"{self.name}:{self.count}"
        own = self.cloud is not None and self.own_cloud and not self.where
        said += f" on {self.cloud}" if own else ""
        return f"{said} ({self.image})" if self.image is not None else said


def _parse_one(text: str, line: int) -> Candidate:
    name, _, count = str(text).strip().partition(":")
    return Candidate(name.strip(), count.strip() or 1, line)


def _accelerators(value: Any, at: tuple[Any, ...], doc: Doc) -> list[Candidate]:
    line = doc.line(*at)
    if isinstance(value, dict):  # {L4:1, A10G:1} is YAML keys "L4:1" with null values
        return [_parse_one(str(k), doc.line(*at, k) or line) if v is None
                else Candidate(str(k), v, doc.line(*at, k) or line) for k, v in value.items()]
    if isinstance(value, list):
        return [_parse_one(str(v), doc.line(*at, i) or line) for i, v in enumerate(value)]
    text = str(value).strip()
    if text.startswith("{") and text.endswith("}"):  # a quoted set: "{L4:1, A10G:1}"
        return [_parse_one(p, line) for p in text[1:-1].split(",") if p.strip()]
    return [_parse_one(text, line)]


def _option_candidates(res: dict[str, Any], key: str, top: list[Candidate], doc: Doc,
                       ) -> tuple[list[Candidate], list[Problem]]:
    """The candidates of `any_of` / `ordered`: each option is the top-level resources with the
    option's fields over them (sky/resources.py `_override_resources`: the top level's config
    copied and `.update(option)`), so an option's own accelerators replace the top level's and
    an option without any keeps them, and an option's own `image_id` is that option's
    container, its candidates alone (task h58launch: it was not read); an option
    left with none is a machine without GPUs, named as a candidate kvplan cannot check (task
    h56review: the top level's were added beside every option's, and a GPU-less option was
    dropped in silence)."""
    options = res[key]
    top_image = res.get("image_id")
    if not isinstance(options, list):
        return [], [Problem(f"resources.{key}", f"{options!r} is not a list of resources",
                            doc.line("resources", key))]
    found: list[Candidate] = []
    for i, option in enumerate(options):
        at = ("resources", key, i)
        if not isinstance(option, dict):
            return [], [Problem(f"resources.{key}", f"option {i + 1}, {option!r}, is not a "
                                "mapping of resources (accelerators: ..., cloud: ...)",
                                doc.line(*at) or doc.line("resources", key))]
        own = [c for acc in ("accelerators", "gpus") if option.get(acc) is not None
               for c in _accelerators(option[acc], (*at, acc), doc)]
        if own:
            these = own
        elif top:
            these = [_copy(c) for c in top]
        else:
            these = [Candidate("", 0, doc.line(*at) or doc.line("resources", key),
                               where=f"resources.{key} option {i + 1}")]
        if option.get("image_id") is not None and option["image_id"] != top_image:
            for c in these:  # the option's image_id replaces the top level's, for it alone
                c.image = option["image_id"]
        own_cloud = cloud_of(option)
        for c in these:  # the option's cloud replaces the top level's, for it alone
            c.cloud = own_cloud or cloud_of(res)
            c.own_cloud = own_cloud is not None and own_cloud != cloud_of(res)
        found += these
    return found, []


def _copy(c: Candidate) -> Candidate:
    out = Candidate(c.name, c.count, c.line, c.where)
    out.image, out.cloud = c.image, c.cloud
    return out


def overridden(data: dict[str, Any]) -> str | None:
    """A note when every `any_of` / `ordered` option names its own accelerators, so the top
    level's are launched by none (SkyPilot's options replace them)."""
    res = data.get("resources")
    if not isinstance(res, dict):
        return None
    top = next((f"resources.{k} {res[k]}" for k in ("accelerators", "gpus")
                if res.get(k) is not None), None)
    key = next((k for k in ("any_of", "ordered") if isinstance(res.get(k), list)), None)
    if top is None or key is None or not all(
            isinstance(o, dict) and any(o.get(a) is not None for a in ("accelerators", "gpus"))
            for o in res[key]):
        return None
    return (f"top-level {top}: every resources.{key} option names its own accelerators, which "
            "replace it (SkyPilot lays each option over the top level), so it is launched by none: "
            "not checked")


def _cloud_types(res: dict[str, Any], at: tuple[Any, ...], doc: Doc) -> list[Problem]:
    """`infra` / `cloud` that is no string (SkyPilot's resources schema: strings): had been read
    as no cloud named, in silence (task h70hostile)."""
    from kvplan.check.manifests.shapes import mistyped

    return [mistyped((*at, key), str, res[key], doc, "SkyPilot's resources schema: infra "
                     "CLOUD[/REGION[/ZONE]], cloud NAME") for key in ("infra", "cloud")
            if res.get(key) is not None and not isinstance(res[key], str)]


def candidates(data: dict[str, Any], doc: Doc) -> tuple[list[Candidate], list[Problem]]:
    """The GPUs SkyPilot may launch the task on, in the file's order (duplicates dropped)."""
    res = data.get("resources")
    if res is None:
        return [], []
    if not isinstance(res, dict):
        return [], [Problem("resources", f"{res!r} is not a mapping (SkyPilot's resources: "
                            "accelerators, cpus, ...)", doc.line("resources"))]
    clouds = _cloud_types(res, ("resources",), doc)
    for i, option in enumerate(o for k in ("any_of", "ordered") if isinstance(res.get(k), list)
                               for o in res[k]):
        if isinstance(option, dict):
            key = "any_of" if isinstance(res.get("any_of"), list) else "ordered"
            clouds += _cloud_types(option, ("resources", key, i), doc)
    if clouds:
        return [], clouds
    found: list[Candidate] = []
    for key in ("accelerators", "gpus"):
        if res.get(key) is not None:
            found += _accelerators(res[key], ("resources", key), doc)
    for c in found:
        c.cloud = cloud_of(res)
    keys = [k for k in ("any_of", "ordered") if res.get(k) is not None]
    if len(keys) > 1:
        return [], [Problem("resources.ordered", "resources holds both any_of and ordered, "
                            "which SkyPilot refuses; keep one", doc.line("resources", "ordered"))]
    if keys:
        found, problems = _option_candidates(res, keys[0], found, doc)
        if problems:
            return [], problems
        if all(c.where for c in found):
            return [], []  # no option names a GPU: a task without accelerators
    out: list[Candidate] = []
    problems = []
    for c in found:
        if c.where:
            out.append(c)
            continue
        if any(o.label.lower() == c.label.lower() for o in out):
            continue
        try:
            n = float(str(c.count))
        except ValueError:
            n = float("nan")
        if not n >= 1 or n != int(n):
            why = ("asks for no GPU: state a count of 1 or more" if n <= 0 else
                   "is not a whole number of GPUs (a fraction shares a GPU with other tasks, "
                   "which kvplan does not model)" if n > 0 else "is not a number of GPUs")
            problems.append(Problem("resources.accelerators", f"{c.label!r}: {c.count!r} {why}",
                                    c.line))
            continue
        c.count = int(n)
        out.append(c)
    return out, problems
