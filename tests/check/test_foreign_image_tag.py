"""An image whose repository names no engine does not give the engine's release by its tag:
`acme/llm-box:1.2` running `vllm serve` was planned as "vllm 1.2" in silence (task h72mix saw it),
and the corpus's runpod/pytorch:2.4.0-py3.10-rocm6.1.0-ubuntu22.04 was read as vLLM 2.4.0."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

ROOT = Path(__file__).resolve().parents[1] / "assets" / "check"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: box}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: s
        image: {image}
        command: ["bash", "-c", "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _check(tmp_path: Path, image: str) -> str:
    path = tmp_path / "box.yaml"
    path.write_text(DEPLOYMENT.format(image=image))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0, res.output
    return res.output


def test_a_tag_of_an_image_that_names_no_engine_is_not_its_release(tmp_path: Path) -> None:
    out = _check(tmp_path, "acme/llm-box:1.2")
    # vLLM's default profile: Llama-3-8B on one H100 at 8,192 tokens (the catalog's figure for
    # vllm 0.34.0, as tests/check/test_container_pip_pins.py reads it unpinned)
    assert "(llama-3-8b, vllm (default version))" in out, out
    assert "489,616 tokens in the pool" in out
    assert ("note: image acme/llm-box:1.2: its repository names no vllm, so its tag is that "
            "image's own version, not a vllm release; the vllm profile's default version is "
            "used") in out
    assert "vllm 1.2" not in out


@pytest.mark.parametrize(("image", "release"), [
    ("myorg/vllm-custom:0.8.5", "vllm 0.8.5"),  # the engine's word in the repository: read
    ("vllm/vllm-openai:v0.8.5", "vllm 0.8.5"),
])
def test_an_image_that_names_the_engine_keeps_its_tag(tmp_path: Path, image: str,
                                                      release: str) -> None:
    out = _check(tmp_path, image)
    assert f"(llama-3-8b, {release})" in out, out
    assert "its repository names no" not in out


def test_the_corpus_runpod_pytorch_tag_is_not_read_as_vllm() -> None:
    path = ROOT / "corpus" / "dstack" / "vllm-amd-service.dstack.yml"
    out = CliRunner().invoke(app, ["check", str(path)]).output
    assert ("note: image runpod/pytorch:2.4.0-py3.10-rocm6.1.0-ubuntu22.04: its repository names "
            "no vllm, so its tag is that image's own version") in out, out
    assert "vllm release 2.4.0" not in out


def test_amds_sglang_dev_image_still_gives_its_release() -> None:
    """rocm/sgl-dev carries SGLang's release in its tag (engine_traits image_words)."""
    out = CliRunner().invoke(app, ["check", str(ROOT / "corpus")]).output
    assert "sglang 0.5.10.post1)" in out
    assert "rocm/sgl-dev:v0.5.10.post1-rocm720-mi30x-20260427: its repository names no" not in out
