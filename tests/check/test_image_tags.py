"""The engine release an image tag names (kvplan.check.manifests.image_tag, task h43tables).

A tag keeps its release as PEP 440 writes it and drops the build after it, naming it in a note:
`lmsysorg/sglang:v0.5.5.post3-cu129-amd64` is SGLang 0.5.5.post3 (a post-release: `.post3` is
part of the release), `-cu129-amd64` the image's build. A tag that names no release says so and
which default is used. An NGC monthly container tag (YY.MM) is no engine release: its tags
are tested against kvplan/check/ngc_releases.tsv in tests/check/test_ngc_tags.py (task h43ngc).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check.manifests.image_tag import read_image_tag
from kvplan.engines.release import read_release
from tests.check.check_cli_run import check_words

ASSETS = Path(__file__).resolve().parents[1] / "assets"
TAGS = ASSETS / "image_tags" / "TAGS.tsv"

# The real tags of tests/assets/image_tags/TAGS.tsv (each with its source there): image ->
# (the release, by hand: the tag's leading vX.Y.Z[preN][.postN]; the note's dropped text).
REAL: dict[str, tuple[str | None, str]] = {
    "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64": ("0.5.5.post3", "-cu129-amd64"),
    "lmsysorg/sglang:v0.4.1.post4-rocm620": ("0.4.1.post4", "-rocm620"),
    "lmsysorg/sglang:v0.4.9.post1-rocm630-srt": ("0.4.9.post1", "-rocm630-srt"),
    "lmsysorg/sglang:v0.4.4.post1-cu125": ("0.4.4.post1", "-cu125"),
    "lmsysorg/sglang:v0.5.0rc0-cu126": ("0.5.0rc0", "-cu126"),
    "kvcache-container-image-hb2-cn-beijing.cr.volces.com/aibrix/vllm-openai:"
    "v0.10.0-cu128-nixl-v0.4.1-lmcache-0.3.2": ("0.10.0", "-cu128-nixl-v0.4.1-lmcache-0.3.2"),
    # `.self` is no PEP 440 segment, so the `.post1` after it is not the release's either
    "aibrix/vllm-openai:v0.7.3.self.post1": ("0.7.3", ".self.post1"),
    "vllm/vllm-openai:v0.24.0-x86_64-ubuntu2404": ("0.24.0", "-x86_64-ubuntu2404"),
    "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc20": ("1.3.0rc20", ""),
    "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6": ("1.2.0rc6", ""),
    "vllm/vllm-openai:gemma4-0505-cu130": (None, ""),
}


NGC = ("nvcr.io/nvidia/tritonserver:", "nvcr.io/nvidia/vllm:")


def _all_asset_rows() -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in TAGS.read_text().splitlines()
            if line and not line.startswith("#")]
    return [(row[0], row[1]) for row in rows]


def _asset_rows() -> list[tuple[str, str]]:
    """The gathered tags that name their release (NGC's monthly tags are tested below)."""
    return [(image, engine) for image, engine in _all_asset_rows() if not image.startswith(NGC)]


def _ngc_rows() -> list[tuple[str, str]]:
    return [(image, engine) for image, engine in _all_asset_rows() if image.startswith(NGC)]


def test_every_gathered_tag_has_a_hand_written_release() -> None:
    """The asset's non-NGC tags and the table above are the same 11 (8 with a build suffix)."""
    rows = _asset_rows()
    assert sorted(image for image, _ in rows) == sorted(REAL)
    assert sum(1 for release, dropped in REAL.values() if release and dropped) == 8


@pytest.mark.parametrize(("image", "engine"), _asset_rows())
def test_a_real_tag_reads_its_release(image: str, engine: str) -> None:
    """Each gathered tag's release, and the note naming what was dropped (none where the whole
    tag is the release); a tag that names no release leaves the version unset, with a note."""
    release, dropped = REAL[image]
    got = read_image_tag(image, engine)
    assert got.version == release
    tag = image.rsplit(":", 1)[1]
    if release is None:
        assert got.note is not None and f"image tag {tag!r}" in got.note
        assert f"the {engine} profile's default version is used" in got.note
        assert got.unnamed
    elif dropped:
        assert got.note == (f"image tag {tag!r}: {engine} release {release} (PEP 440); "
                            f"{dropped!r} after it is no part of a release and is dropped")
        assert not got.unnamed
    else:
        assert got.note is None and not got.unnamed


@pytest.mark.parametrize(("tag", "expected"), [
    ("v0.8.5", ("0.8.5", "")),
    ("0.10.2-fix", ("0.10.2", "-fix")),
    ("v0.4.9.post6-cu126", ("0.4.9.post6", "-cu126")),
    # PEP 440 spellings, normalised: `-rc4` -> rc4, `c` -> rc, `alpha` -> a, `-post` -> .post,
    # a bare `.post` -> .post0, `.dev` -> .dev0
    ("1.0.0-rc4", ("1.0.0rc4", "")),
    ("1.2.0c1", ("1.2.0rc1", "")),
    ("2.0.0alpha2", ("2.0.0a2", "")),
    ("1.2.0rc2.post2", ("1.2.0rc2.post2", "")),
    ("0.6.3-post1-cu121", ("0.6.3.post1", "-cu121")),
    ("0.6.3.post", ("0.6.3.post0", "")),
    ("0.7.0.dev", ("0.7.0.dev0", "")),
    # the `c` of -cu124, the `r` of -rocm630, the `dev` of -devel are no PEP 440 segment
    ("v0.4.1-cu124", ("0.4.1", "-cu124")),
    ("v0.5.14-rocm720-mi30x-20260707", ("0.5.14", "-rocm720-mi30x-20260707")),
    ("v0.6.0-devel", ("0.6.0", "-devel")),
    # PEP 440's implicit post-release (1.0-1) is not read: a build number in a tag
    ("0.9.0-1", ("0.9.0", "-1")),
    # no MAJOR.MINOR release first: a date, a word, a number run into letters
    ("20250312_0916_RC01", None), ("2025-04-18", None), ("latest", None), ("0.10x", None),
    ("nightly-20250101", None),
])
def test_read_release(tag: str, expected: tuple[str, str] | None) -> None:
    read = read_release(tag)
    assert (read if read is None else (str(read), read.suffix)) == expected


def test_latest_is_the_newest_release_and_a_word_is_unknown() -> None:
    """`latest` names no number but is the newest release, which the option table is (not
    unnamed: an option the table lacks stays refused); another word is an unknown release."""
    latest = read_image_tag("vllm/vllm-openai:latest", "vllm")
    assert latest.version is None and not latest.unnamed
    assert latest.note == ("image tag 'latest' names no version: the vllm profile's default "
                           "version is used")
    word = read_image_tag("vllm/vllm-openai:gemma4-0505-cu130", "vllm")
    assert word.version is None and word.unnamed


def test_rocm_vllm_tag_names_the_release_after_vllm_() -> None:
    got = read_image_tag("rocm/vllm:rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6", "vllm")
    assert got.version == "0.6.6" and not got.unnamed
    assert got.note == ("image tag 'rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6': vllm release "
                        "0.6.6, read after `vllm_` (AMD's rocm/vllm tags); the rest of the tag "
                        "names the ROCm build")


def test_cli_sglang_tag_keeps_its_post_release(tmp_path: Path) -> None:
    """The OME runtime of tests/assets/check/corpus/ome (image
    docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64): the headline shows SGLang 0.5.5.post3
    (it showed 0.5.5.post3-cu129-amd64 before) and a note names the dropped build."""
    _, out = check_words(ASSETS / "check" / "corpus" / "ome" / "srt-qwen3-8b-rt.yaml", "--no-color")
    assert "(qwen3-8b, sglang 0.5.5.post3)" in out
    assert ("note: image tag 'v0.5.5.post3-cu129-amd64': sglang release 0.5.5.post3 (PEP 440); "
            "'-cu129-amd64' after it is no part of a release and is dropped") in out


def test_cli_unparseable_tag_says_the_default_is_used(tmp_path: Path) -> None:
    """tests/assets/check/k8s/no-traffic.yaml (vllm/vllm-openai:v0.6.3, PASS) in
    vllm/vllm-openai:gemma4-0505-cu130, which names no release: the note says so and which
    default is used (the vllm profile's), and the headline shows the default version."""
    text = (ASSETS / "check" / "k8s" / "no-traffic.yaml").read_text()
    text = text.replace("vllm/vllm-openai:v0.6.3", "vllm/vllm-openai:gemma4-0505-cu130")
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    _, out = check_words(path, "--no-color")
    assert ("note: image tag 'gemma4-0505-cu130' names no version: the vllm profile's default "
            "version is used") in out
    assert "(llama-3-8b, vllm (default version))" in out
