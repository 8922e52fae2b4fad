"""NGC's PyTorch container carries no serving engine (task h80shell): `docker run ...
nvcr.io/nvidia/pytorch:24.05-py3 vllm serve ...` was noted as "NGC's container release 24.05 ...
kvplan's table of NGC releases does not name the vllm release it carries", as if the container
carried one the table lacked; a pip pin in it was "installed over the vllm that image holds".
Now the note says what the image is. The release stays unnamed (the default profile), and a pin
is the release as before: Llama-3.1-8B at 8,192 on an H100 is 489,376 tokens on the default
profile, 420,288 on vLLM 0.8.5 with PyTorch's sort (tests/check/test_shell_arith_words.py,
test_base_image_docker_run.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.image_tag import read_image_tag
from kvplan.check.manifests.ngc_table import carries_no_engine
from tests.conftest import invoke

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
IMAGE = "nvcr.io/nvidia/pytorch:24.05-py3"


@pytest.mark.parametrize(("image", "what"), [
    (IMAGE, "NGC's PyTorch container"),
    ("nvcr.io/nvidia/pytorch:25.11-py3", "NGC's PyTorch container"),  # base-image/ assets' tag
    ("nvcr.io/nvidia/pytorch@sha256:" + "0" * 64, "NGC's PyTorch container"),
    ("nvcr.io/nvidia/vllm:26.05-py3", None),          # NVIDIA's vLLM container carries one
    ("nvcr.io/nvidia/tritonserver:25.05-vllm-python-py3", None),
    ("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime", None),  # a base image, said elsewhere
])
def test_which_images_carry_no_engine(image: str, what: str | None) -> None:
    assert carries_no_engine(image) == what


def test_the_tag_note_says_what_the_image_is() -> None:
    got = read_image_tag(IMAGE, "vllm")
    assert (got.version, got.unnamed) == (None, True)
    assert got.note == (
        f"image {IMAGE} is NGC's PyTorch container, which carries PyTorch and no vllm (NVIDIA "
        "ships its serving engines in containers of their own: nvcr.io/nvidia/vllm, "
        "tritonserver): the vllm this command runs is one installed into it, whose release the "
        "file does not name; the vllm profile's default version is used")
    assert "does not name the vllm release it carries" not in got.note


def _check(tmp_path: Path, runner: CliRunner, command: str) -> str:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\ndocker run --gpus 1 {IMAGE} {command}\n")
    result = invoke(runner, "check", str(script), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_a_server_in_the_pytorch_container(tmp_path: Path, runner: CliRunner) -> None:
    out = _check(tmp_path, runner, SERVE)
    assert "(489,376 tokens in the pool)" in out and "vllm (default version)" in out
    assert f"note: image {IMAGE} is NGC's PyTorch container, which carries PyTorch and no vllm" \
        in out
    assert "kvplan's table of NGC releases" not in out


def test_a_pin_in_the_pytorch_container_installs_into_it(tmp_path: Path,
                                                         runner: CliRunner) -> None:
    out = _check(tmp_path, runner, f'bash -c "pip install vllm==0.8.5 && {SERVE}"')
    assert "(420,288 tokens in the pool)" in out and "vllm 0.8.5)" in out
    assert ("installs vllm==0.8.5: vllm 0.8.5 (installed into image "
            f"{IMAGE}, NGC's PyTorch container, which carries no vllm)") in out
    assert "installed over the vllm" not in out
