"""NGC monthly containers -> the engine release each carries (task h43ngc).

NVIDIA's NGC containers other than TensorRT-LLM's release image are tagged by their monthly
release, YY.MM: `nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3` is Triton 25.05 with
TensorRT-LLM inside, `nvcr.io/nvidia/vllm:25.10-py3` NVIDIA's vLLM container 25.10. Which engine
release a container carries is NVIDIA's to say: kvplan/check/ngc_releases.tsv holds each row
NVIDIA's documents name (Triton's release compatibility matrix, NVIDIA's vLLM container release
notes), with its source and the text as written. The table is read on first use only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kvplan.engine_traits import traits

TABLE = Path(__file__).resolve().parents[1] / "ngc_releases.tsv"
_LABEL = {"nvcr.io/nvidia/tritonserver": "Triton", "nvcr.io/nvidia/vllm": "NVIDIA's vLLM container"}


# NGC framework containers that carry no serving engine (task h80shell): NVIDIA's PyTorch
# container holds PyTorch ("This container image contains the complete source of the version of
# PyTorch in /opt/pytorch", Contents of the PyTorch container, docs.nvidia.com/deeplearning/
# frameworks/pytorch-release-notes/rel-25-12.html); NVIDIA ships vLLM in a container of its own
# (nvcr.io/nvidia/vllm, the table below), and users pip-install vLLM into the PyTorch one
# (vllm-project/vllm#1781 on nvcr.io/nvidia/pytorch:23.10-py3, #445 on 22.12-py3). Its tag was
# noted as a release "kvplan's NGC table does not name", as if the container carried one.
NO_ENGINE = {"nvcr.io/nvidia/pytorch": "NGC's PyTorch container"}


def carries_no_engine(image: str) -> str | None:
    """What `image` is when it is an NGC container that carries no serving engine (its words for
    a note: "NGC's PyTorch container"), else None."""
    name = image.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    return NO_ENGINE.get(name.lower())


def no_engine_note(image: str, engine: str) -> str | None:
    """The note for an engine run in such a container: what the image is, and that the engine's
    release is the one installed into it, which the file does not name."""
    what = carries_no_engine(image)
    if what is None:
        return None
    return (f"image {image} is {what}, which carries PyTorch and no {engine} (NVIDIA ships its "
            "serving engines in containers of their own: nvcr.io/nvidia/vllm, tritonserver): the "
            f"{engine} this command runs is one installed into it, whose release the file does "
            f"not name; the {engine} profile's default version is used")


@dataclass(frozen=True)
class NgcRow:
    """One container release: the engine release it carries, and where that is written."""

    image: str
    flavour: str
    container: str
    engine: str
    release: str
    as_written: str
    source: str
    cited_as: str

    def note(self, tag: str) -> str:
        """'image tag '25.05-trtllm-python-py3' is NGC's container release 25.05: Triton 25.05
        ships TensorRT-LLM 0.19.0 (Triton's release compatibility matrix); ...'"""
        # the text as written where the release is not in it verbatim ('0.5.0 post1')
        written = "" if self.release in self.as_written else f", written {self.as_written!r}"
        return (f"image tag {tag!r} is NGC's container release {self.container}: "
                f"{_LABEL.get(self.image, self.image)} {self.container} ships "
                f"{traits(self.engine).said} {self.release} ({self.cited_as}"
                f"{written}); {self.engine} release {self.release} is used")


@cache
def rows() -> tuple[NgcRow, ...]:
    """The table's rows (comment lines and the header skipped)."""
    lines = [line for line in TABLE.read_text().splitlines() if line and not line.startswith("#")]
    return tuple(NgcRow(*line.split("\t")) for line in lines[1:])


@cache
def _index() -> dict[tuple[str, str, str], NgcRow]:
    return {(r.image, r.flavour, r.container): r for r in rows()}


def lookup(image: str, engine: str) -> NgcRow | None:
    """The row for `image` (`repository:YY.MM-flavour`, docker.io-less NGC path) if the table
    holds its container release and it carries `engine`; None otherwise."""
    name, _, tag = image.rpartition(":")
    container, dash, flavour = tag.partition("-")
    if not dash:
        return None
    row = _index().get((name, flavour, container))
    return row if row is not None and row.engine == engine else None
