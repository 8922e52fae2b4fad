"""A base image's tag is its own version, not the engine's (task h70review): a container that
runs `vllm serve` in `python:3.11`, `nvidia/cuda:12.4.1-devel-ubuntu22.04`, `ubuntu:22.04` or
`pytorch/pytorch:2.6.0-cuda12.4-cudnn9-runtime` (the engine pip-installed by its command) was
checked as 'vllm 3.11', 'vllm 12.4.1', 'vllm 22.04', 'vllm 2.6.0'
(kvplan.check.manifests.pods.base_image, workload._read_image)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 1
  selector:
    matchLabels: {{app: vllm}}
  template:
    metadata:
      labels: {{app: vllm}}
    spec:
      containers:
        - name: vllm
          image: {image}
          command: ["bash", "-c"]
          args:
            - pip install vllm && vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192
          resources:
            limits:
              nvidia.com/gpu: 1
"""


@pytest.mark.parametrize(("image", "base"), [
    ("python:3.11", "python"),
    ("docker.io/library/python:3.11-slim", "python"),
    ("nvidia/cuda:12.4.1-devel-ubuntu22.04", "nvidia/cuda"),
    ("ubuntu:22.04", "ubuntu"),
    ("pytorch/pytorch:2.6.0-cuda12.4-cudnn9-runtime", "pytorch/pytorch"),
])
def test_a_base_images_tag_names_no_engine_release(tmp_path: Path, image: str,
                                                   base: str) -> None:
    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOYMENT.format(image=image))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    out = " ".join(res.output.split())
    assert res.exit_code == 0, out
    # the newest vLLM's pool for Llama-3-8B at 8,192 on an H100 (tests/check/test_script_pip_pins)
    assert "(489,616 tokens in the pool)" in out
    assert "(llama-3-8b, vllm (default version))" in out
    assert (f"note: image {image}: {base}'s tag is its own version, not vllm's (a base image "
            "the container installs vllm into); the vllm profile's default version is used") \
        in out


def test_an_engine_image_still_names_its_release(tmp_path: Path) -> None:
    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOYMENT.format(image="vllm/vllm-openai:v0.8.5"))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert "(llama-3-8b, vllm 0.8.5)" in " ".join(res.output.split())
