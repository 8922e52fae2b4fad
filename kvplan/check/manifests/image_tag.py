"""The engine release an image's tag names (task h43tables).

Engine images tag a release with the build after it: `lmsysorg/sglang:v0.5.5.post3-cu129-amd64`
(SGLang 0.5.5.post3, CUDA 12.9, amd64), `aibrix/vllm-openai:v0.10.0-cu128-nixl-v0.4.1-lmcache-0.3.2`
(vLLM 0.10.0 with NIXL and LMCache), `nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc5`. The release is
read as PEP 440 writes one, by the engines' release reader (kvplan.engines.release.read_release:
its grammar, and why `-cu128`, `-rocm620` and a bare `-N` are no part of a release, are said
there). Whatever follows the release is dropped and named in a note. AMD's rocm/vllm tags name
the release after `vllm_` (task h42:
rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6). NVIDIA's NGC containers (`nvcr.io/nvidia/...`)
other than TensorRT-LLM's release image are tagged by their monthly release, YY.MM
(`tritonserver:25.10-trtllm-python-py3`), which is no engine release: the engine release such a
container carries is read from NVIDIA's documents (kvplan/check/ngc_releases.tsv, task h43ngc:
Triton 25.05's trtllm container ships TensorRT-LLM 0.19.0), and where that table does not name
it, the engine's default version is used, and said. NGC's PyTorch container carries no engine
(ngc_table.NO_ENGINE): said as what it is, the engine one installed into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvplan.engine_traits import traits

_NGC_MONTH = re.compile(r"(\d{2}\.(?:0[1-9]|1[0-2]))(?=-|$)")


@dataclass(frozen=True)
class TagReading:
    """What an image's tag says: the release (None: none read), the note that says how it was
    read (None: the whole tag is the release), and whether the release is unknown (a tag that
    names none, where the option table may be newer than the image)."""

    version: str | None
    note: str | None
    unnamed: bool


def read_image_tag(image: str, engine: str) -> TagReading:
    """The engine release `image`'s tag names (the image has a tag: `name:tag`)."""
    tag = image.rsplit(":", 1)[-1]
    pattern = traits(engine).rocm_release_tag
    rocm = pattern.search(tag) if pattern is not None else None
    if rocm:
        return TagReading(rocm[1], f"image tag {tag!r}: {engine} release {rocm[1]}, read after "
                          "`vllm_` (AMD's rocm/vllm tags); the rest of the tag names the ROCm "
                          "build", False)
    month = _NGC_MONTH.match(tag) if image.startswith("nvcr.io/nvidia/") and \
        "/tensorrt-llm/" not in image else None
    if month:
        from kvplan.check.manifests.ngc_table import lookup, no_engine_note

        framework = no_engine_note(image, engine)  # NGC's PyTorch container: no engine in it
        if framework is not None:
            return TagReading(None, framework, True)
        row = lookup(image, engine)
        if row is not None:
            return TagReading(row.release, row.note(tag), False)
        return TagReading(None, f"image tag {tag!r} is NGC's container release {month[1]} "
                          f"(year.month), not a {engine} release; kvplan's table of NGC "
                          f"releases (kvplan/check/ngc_releases.tsv) does not name the {engine} "
                          f"release it carries: the {engine} profile's default version is used",
                          True)
    from kvplan.engines.release import read_release

    read = read_release(tag)
    if read is None:
        # `latest` / `nightly` are the newest release, which the option table is
        return TagReading(None, f"image tag {tag!r} names no version: the {engine} profile's "
                          "default version is used",
                          not tag.lower().startswith(("latest", "nightly")))
    note = (f"image tag {tag!r}: {engine} release {read} (PEP 440); {read.suffix!r} "
            "after it is no part of a release and is dropped" if read.suffix else None)
    return TagReading(str(read), note, False)
