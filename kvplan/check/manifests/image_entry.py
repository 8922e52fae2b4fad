"""The vllm/vllm-openai image's own entrypoint, by the release its tag names (task h61misc).

A container, compose service or `docker run` that passes the image only arguments (Kubernetes
`args:` with no `command:`, compose `command:` with no `entrypoint:`, the words after the image)
hands them to the image's ENTRYPOINT. vLLM's docker/Dockerfile (vllm-project/vllm, target
`vllm-openai`) sets it, as the release sdists on PyPI ship the file (read with `pip download
--no-deps --no-binary :all: vllm==X`):

- `ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]`: 0.6.6.post1
  (Dockerfile:250), 0.7.3 (Dockerfile:287), 0.8.5 (docker/Dockerfile:325), 0.9.2 (:527),
  0.10.0 (:526), 0.10.1.1 (:532), 0.10.2 (:535), 0.11.0 (:542);
- `ENTRYPOINT ["vllm", "serve"]`: 0.11.1 (docker/Dockerfile:500) and every release read after it
  (0.11.2, 0.12.0, 0.13.0, 0.20.0, 0.25.1, 0.34.0: docker/Dockerfile:1386).

The other Dockerfiles' images (`vllm-openai-cpu` and the like, matched by `runs_vllm_image` too)
switched in the same release: docker/Dockerfile.cpu:179 and Dockerfile.xpu:72 start the module in
0.11.0, Dockerfile.cpu:191 and Dockerfile.xpu:78 `vllm serve` in 0.11.1.

The OpenAI server module takes no positional word before 0.10.0 and never serves one from then
(kvplan.check.manifests.stray_words), where `vllm serve` serves its word as the model: so a model
written as the first argument works only from 0.11.1. An image whose tag names no release
(`latest`, `nightly`, no tag, a digest, a variable) is read as the newest release, `vllm serve`,
and where the arguments hold a word that reading serves, a note says so (`unnamed_note`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.check.argv import Invocation, Parsed

SERVE_SINCE = "0.11.1"  # the first release whose image starts `vllm serve`
SERVE = ("vllm", "serve")
OPENAI_SERVER = ("python3", "-m", "vllm.entrypoints.openai.api_server")
_DOCKERFILE = "its ENTRYPOINT in vLLM's docker/Dockerfile before 0.11.1; `vllm serve` from 0.11.1"


def runs_vllm_image(image: str) -> bool:
    """Whether `image` is read as vLLM's own image (its entrypoint starts the server)."""
    return "vllm-openai" in image


@dataclass(frozen=True)
class ImageEntry:
    """The words the image's ENTRYPOINT puts before the container's arguments, and whether the
    tag named the release they were chosen by."""

    words: tuple[str, ...]
    release_named: bool


def image_entry(image: str) -> ImageEntry:
    """The vllm/vllm-openai image's entrypoint for the release `image`'s tag names (the newest,
    `vllm serve`, where it names none)."""
    from kvplan.check.manifests.image_tag import read_image_tag
    from kvplan.engines.release import read_numbers

    name = image.rsplit("/", 1)[-1]
    version = None
    if ":" in name and "@" not in image and "$" not in image and "{{" not in image:
        version = read_image_tag(image, "vllm").version
    have = read_numbers(version) if version is not None else None
    if have is None:
        return ImageEntry(SERVE, False)
    first = read_numbers(SERVE_SINCE)
    assert first is not None
    return ImageEntry(SERVE if have >= first else OPENAI_SERVER, True)


def entry_said(inv: Invocation) -> str:
    """How a message names the entry point: the image's, where the file writes none."""
    if inv.from_image and inv.entry.startswith("python -m "):
        return (f"the {inv.from_image} image's entrypoint `{' '.join(OPENAI_SERVER)}` "
                f"({_DOCKERFILE})")
    return inv.entry


def unnamed_note(inv: Invocation, parsed: Parsed, release_named: bool) -> str | None:
    """A note where the image's entrypoint was read as the newest release's `vllm serve` for an
    image whose tag names no release, and the arguments hold a word that reading serves."""
    if not inv.from_image or release_named or not parsed.positional:
        return None
    word = parsed.positional[0]
    return (f"image {inv.from_image} names no vLLM release: its entrypoint is read as the "
            f"newest's, `vllm serve`, which serves `{word.text}` as the model; images before "
            f"{SERVE_SINCE} start `{' '.join(OPENAI_SERVER)}` (vLLM's docker/Dockerfile), which "
            "does not: pin a release tag to have it checked")
