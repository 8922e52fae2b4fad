"""NGC monthly container tags -> the engine release NVIDIA says each carries (task h43ngc).

`nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3` is Triton's 25.05 container, which ships
TensorRT-LLM 0.19.0 by Triton's release compatibility matrix (triton-inference-server/server
docs/introduction/compatibility.md at 4b5445910791, row 25.05, column "TensorRT-LLM version":
"0.19.0"); `nvcr.io/nvidia/vllm:26.05-py3` ships vLLM 0.20.1 by NVIDIA's vLLM release notes
(rel-26-05.html: "vLLM: 0.20.1"). The table is kvplan/check/ngc_releases.tsv; the tags are the
real ones of tests/assets/image_tags/TAGS.tsv (each with its source there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check.manifests.image_tag import read_image_tag
from kvplan.check.manifests.ngc_table import TABLE, rows
from kvplan.engines.release import read_release
from tests.check.check_cli_run import check_words
from tests.check.test_image_tags import _ngc_rows

ASSETS = Path(__file__).resolve().parents[1] / "assets"

# Hand-read from the sources (the text as written -> its PEP 440 release), one per kind of cell:
# a plain release, a `.postN`, NVIDIA's four-part 1.0.3.2510, a local version `+...`, a release
# written with a space ("0.4.0 post1"), an rc with a local version, the vLLM release notes' line.
HAND = {
    "nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3": "0.19.0",
    "nvcr.io/nvidia/tritonserver:25.02-trtllm-python-py3": "0.17.0.post1",
    "nvcr.io/nvidia/tritonserver:25.11-trtllm-python-py3": "1.0.3.2510",
    "nvcr.io/nvidia/tritonserver:25.09-vllm-python-py3": "0.10.1.1",  # 0.10.1.1+381074ae.nv25.9.cu130
    "nvcr.io/nvidia/tritonserver:24.04-vllm-python-py3": "0.4.0.post1",  # "0.4.0 post1"
    "nvcr.io/nvidia/tritonserver:25.07-vllm-python-py3": "0.9.0rc1",  # 0.9.0rc1+1958ee56...
    "nvcr.io/nvidia/vllm:26.05-py3": "0.20.1",  # "vLLM: 0.20.1"
    # not in the table: 24.12-trtllm and 26.05-vllm (their sources disagree), nvidia/vllm 25.09
    # (no NVIDIA release notes found)
    "nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3": None,
    "nvcr.io/nvidia/tritonserver:26.05-vllm-python-py3": None,
    "nvcr.io/nvidia/vllm:25.09-py3": None,
}


def _row_for(image: str) -> str | None:
    """The table's release for `image`, matched on the whole tag the table's row spells."""
    found = [r.release for r in rows() if f"{r.image}:{r.container}-{r.flavour}" == image]
    assert len(found) <= 1
    return found[0] if found else None


def test_the_table_is_58_cited_rows() -> None:
    """27 trtllm + 26 vllm rows of Triton's matrix (28 each, less 24.12-trtllm, 24.08-vllm and
    26.05-vllm, left out as their sources disagree) and 5 of NVIDIA's vLLM container (4 from its
    release notes; 26.01 from the container's own start-up banner in a public log, whose release
    notes disagree: outcomes round 9, task h80outcomes); each cites a commit or a URL, and no
    container is listed twice."""
    table = rows()
    assert len(table) == 58
    assert sum(r.image.endswith("tritonserver") and r.engine == "trtllm" for r in table) == 27
    assert sum(r.image.endswith("tritonserver") and r.engine == "vllm" for r in table) == 26
    assert sum(r.image == "nvcr.io/nvidia/vllm" for r in table) == 5
    assert all("@4b5445910791" in r.source or r.source.startswith("https://docs.nvidia.com/")
               for r in table if r.container != "26.01" or r.image != "nvcr.io/nvidia/vllm")
    [banner] = [r for r in table if (r.image, r.container) == ("nvcr.io/nvidia/vllm", "26.01")]
    assert banner.source.startswith("guardkit/guardkit:docs/reviews/graphiti-qwen3/run-2.md@c3facfe8")
    assert len({(r.image, r.flavour, r.container) for r in table}) == 58
    assert TABLE.name == "ngc_releases.tsv" and TABLE.parent.name == "check"


def test_each_release_is_the_text_as_written_in_pep_440() -> None:
    """The release column is the public part of the cited text: the label `vLLM: ` and a local
    version `+...` dropped, NVIDIA's `0.5.0 post1` read as 0.5.0.post1."""
    for r in rows():
        text = r.as_written.removeprefix("vLLM: ").split("+", 1)[0].replace(" post", ".post")
        read = read_release(text)
        assert read is not None and read.suffix == "" and str(read) == r.release, r


def test_every_row_but_one_has_a_real_tag_gathered() -> None:
    """TAGS.tsv holds a real tag for each row but nvidia/vllm 26.10 (no public file found
    writing it), and three tags the table does not map."""
    gathered = {image for image, _ in _ngc_rows()}
    spelled = {f"{r.image}:{r.container}-{r.flavour}" for r in rows()}
    assert spelled - gathered == {"nvcr.io/nvidia/vllm:26.10-py3"}
    assert gathered - spelled == {"nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3",
                                  "nvcr.io/nvidia/tritonserver:26.05-vllm-python-py3",
                                  "nvcr.io/nvidia/vllm:25.09-py3"}
    assert set(HAND) <= gathered


@pytest.mark.parametrize(("image", "engine"), _ngc_rows())
def test_a_real_ngc_tag_reads_the_tables_release(image: str, engine: str) -> None:
    """Each gathered NGC tag reads the release its table row gives (the hand-read value where
    HAND has one), with a note naming the container release and the source; a container the
    table does not hold keeps the default version, unnamed."""
    got = read_image_tag(image, engine)
    expected = _row_for(image)
    if image in HAND:
        assert expected == HAND[image]
    tag = image.rsplit(":", 1)[1]
    month = tag.split("-", 1)[0]
    assert got.note is not None
    if expected is None:
        assert got.version is None and got.unnamed
        assert got.note == (f"image tag {tag!r} is NGC's container release {month} (year.month), "
                            f"not a {engine} release; kvplan's table of NGC releases "
                            "(kvplan/check/ngc_releases.tsv) does not name the "
                            f"{engine} release it carries: the {engine} profile's default "
                            "version is used")
    else:
        assert got.version == expected and not got.unnamed
        assert got.note.startswith(f"image tag {tag!r} is NGC's container release {month}: ")
        assert got.note.endswith(f"; {engine} release {expected} is used")


def test_the_note_names_container_engine_release_and_source() -> None:
    got = read_image_tag("nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3", "trtllm")
    assert got.note == ("image tag '25.05-trtllm-python-py3' is NGC's container release 25.05: "
                        "Triton 25.05 ships TensorRT-LLM 0.19.0 (Triton's release compatibility "
                        "matrix); trtllm release 0.19.0 is used")
    spaced = read_image_tag("nvcr.io/nvidia/tritonserver:24.04-vllm-python-py3", "vllm")
    assert spaced.note == ("image tag '24.04-vllm-python-py3' is NGC's container release 24.04: "
                           "Triton 24.04 ships vLLM 0.4.0.post1 (Triton's release compatibility "
                           "matrix, written '0.4.0 post1'); vllm release 0.4.0.post1 is used")


def test_a_container_of_another_engine_is_not_read_as_this_one() -> None:
    """Triton's trtllm container checked as a vllm server, and an nvidia/vllm tag with another
    flavour: not in the table for that engine, so the release stays unknown."""
    assert read_image_tag("nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3",
                          "vllm").version is None
    assert read_image_tag("nvcr.io/nvidia/tritonserver:25.05-py3", "trtllm").version is None
    assert read_image_tag("nvcr.io/nvidia/vllm:26.05-py3-igpu", "vllm").version is None


TRT = ASSETS / "check" / "trtllm-options" / "llama8b-fp8-options.yaml"
TRT_ARGS = 'args: ["--extra_llm_api_options", "/config/agg.yaml"]'


def test_cli_triton_trtllm_container_is_trtllm_0_19(tmp_path: Path) -> None:
    """The trtllm-serve Deployment of test_trtllm_table_release.py in Triton's 25.05 container
    with an option the option table lacks (--max_attention_window). Before the table, 25.05
    was an unknown release (noted, default version). Now it is TensorRT-LLM 0.19.0, which is
    below 1.2.0rc2, the last release older than the option table (test_trtllm_table_release):
    the option is noted as for any older release, and the plan stands as before (61 users >= 45
    required: PASS, exit 0; the figure of the release:1.2.0 image and of the default version
    this tag was checked with before the table)."""
    text = TRT.read_text().replace("nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                                   "nvcr.io/nvidia/tritonserver:25.05-trtllm-python-py3")
    text = text.replace(TRT_ARGS, 'args: ["--max_attention_window", "4096", '
                        '"--extra_llm_api_options", "/config/agg.yaml"]')
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    code, out = check_words(path, "--no-color")
    assert code == 0, out
    assert ("note: image tag '25.05-trtllm-python-py3' is NGC's container release 25.05: Triton "
            "25.05 ships TensorRT-LLM 0.19.0 (Triton's release compatibility matrix); trtllm "
            "release 0.19.0 is used") in out
    assert ("the image is trtllm 0.19.0, older than the option table: not checked") in out
    assert "holds 61 users >= 45 required" in out


def _no_traffic(tmp_path: Path, image: str) -> str:
    text = (ASSETS / "check" / "k8s" / "no-traffic.yaml").read_text()
    path = tmp_path / f"{image.replace('/', '_').replace(':', '_')}.yaml"
    path.write_text(text.replace("vllm/vllm-openai:v0.6.3", image))
    return check_words(path, "--no-color")[1]


def test_cli_nvidia_vllm_container_plans_as_its_vllm_release(tmp_path: Path) -> None:
    """tests/assets/check/k8s/no-traffic.yaml (PASS) in nvcr.io/nvidia/vllm:26.05-py3: the
    headline shows vLLM 0.20.1 and the numbers are those of vllm/vllm-openai:v0.20.1 (the same
    release, so the same plan); NGC's 25.09, which the table does not map, keeps the default
    version with today's note."""
    ngc = _no_traffic(tmp_path, "nvcr.io/nvidia/vllm:26.05-py3")
    upstream = _no_traffic(tmp_path, "vllm/vllm-openai:v0.20.1")
    assert "(llama-3-8b, vllm 0.20.1)" in ngc
    assert ("note: image tag '26.05-py3' is NGC's container release 26.05: NVIDIA's vLLM "
            "container 26.05 ships vLLM 0.20.1 (NVIDIA's vLLM container release notes); vllm "
            "release 0.20.1 is used") in ngc
    head = ngc.split(" note:")[0].split("PASS", 1)[1]
    assert head == upstream.split("PASS", 1)[1].split(" 1 checked")[0]
    unmapped = _no_traffic(tmp_path, "nvcr.io/nvidia/vllm:25.09-py3")
    assert "(llama-3-8b, vllm (default version))" in unmapped
    assert "does not name the vllm release it carries" in unmapped


def test_cli_an_old_triton_container_is_older_than_the_pytorch_sizing(tmp_path: Path) -> None:
    """The same Deployment (its options file says `backend: pytorch`) in Triton's 24.09 container:
    TensorRT-LLM 0.13.0 by the matrix (row 24.09), below 0.17, the first release whose PyTorch
    backend sizing kvplan has read; an ERROR naming the release (before the table, the default
    version was used and the plan passed)."""
    text = TRT.read_text().replace("nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                                   "nvcr.io/nvidia/tritonserver:24.09-trtllm-python-py3")
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    code, out = check_words(path, "--no-color")
    assert code == 2, out
    # an ERROR line carries no notes: the release it names (0.13.0) is the table's
    assert ("backend: TensorRT-LLM 0.13.0 predates the PyTorch backend sizing kvplan has read "
            "(0.17 on, tensorrt_llm/_torch/pyexecutor)") in out
