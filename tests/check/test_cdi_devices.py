"""A `docker run` / `podman run` CDI device (task h82shell): `--device nvidia.com/gpu=all` hands
the container every GPU of the machine, as `--gpus all`; `--device nvidia.com/gpu=0` (an index,
or a GPU's UUID) one GPU each, so an index list is that many (the CDI device names `nvidia-ctk cdi
generate` writes: `nvidia.com/gpu=<index>`, `=<UUID>` and `=all`, docs.nvidia.com/datacenter/
cloud-native/container-toolkit/latest/cdi-support.html). Before, none was read: "the docker run
hands the container no GPU", a false ERROR, and said "the docker run" of a podman line too."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.shell_docker import read_docker_run
from tests.conftest import invoke

IMAGE = "vllm/vllm-openai:v0.8.5"
MODEL = "--model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
# vllm/vllm-openai:v0.8.5 on an H100, Llama-3.1-8B at 8,192 (test_docker_run_options.SAID)
SAID = "holds 53 sequences of 8,192 tokens per replica (442,336 tokens in the pool)"


def _check(tmp_path: Path, runner: CliRunner, line: str) -> str:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\n{line}\n")
    result = invoke(runner, "check", str(script), "--gpu", "h100")
    return result.output


@pytest.mark.parametrize(("devices", "count"), [
    ("--device nvidia.com/gpu=all", "all"),
    ("--device=nvidia.com/gpu=all", "all"),
    ("--device nvidia.com/gpu=0", 1),
    ("--device nvidia.com/gpu=0 --device nvidia.com/gpu=1", 2),
    ("--device nvidia.com/gpu=0,1,2,3", 4),
    ("--device nvidia.com/gpu=GPU-4a8b0c2e-1d3f-4e5a-9b6c-7d8e9f0a1b2c", 1),
    ("--device nvidia.com/gpu=1 --device nvidia.com/gpu=1", 1),  # the same GPU twice
    ("--device /dev/nvidia0", 0),  # a device node is not a GPU handed over (no driver mounts)
])
def test_a_cdi_device_counts_its_gpus(devices: str, count: object) -> None:
    for program in ("docker", "podman"):
        words = [program, "run", *devices.split(), IMAGE, *MODEL.split()]
        run = read_docker_run(words, [1] * len(words), {})
        assert run.count == count, (program, devices)
        if count:
            assert run.said == devices.replace("=nvidia", " nvidia"), run.said
            assert run.resource == "nvidia.com/gpu"
            assert not run.problems


def test_cdi_all_reads_as_gpus_all(tmp_path: Path, runner: CliRunner) -> None:
    gpus = _check(tmp_path, runner, f"podman run --gpus all {IMAGE} {MODEL}")
    cdi = _check(tmp_path, runner, f"podman run --device nvidia.com/gpu=all {IMAGE} {MODEL}")
    assert SAID in gpus and SAID in cdi
    assert "hands the container no GPU" not in cdi


def test_two_cdi_gpus_carry_tensor_parallel_two(tmp_path: Path, runner: CliRunner) -> None:
    out = _check(tmp_path, runner, "docker run --device nvidia.com/gpu=0 --device "
                 f"nvidia.com/gpu=1 {IMAGE} {MODEL} --tensor-parallel-size 2")
    assert "--device nvidia.com/gpu=0 --device nvidia.com/gpu=1: 2 GPU(s)" in out
    assert "1 PASS, 0 FAIL, 0 ERROR" in out


def test_the_no_gpu_error_names_the_command_as_written(tmp_path: Path,
                                                       runner: CliRunner) -> None:
    podman = _check(tmp_path, runner, f"podman run {IMAGE} {MODEL}")
    assert "the podman run hands the container no GPU" in podman
    docker = _check(tmp_path, runner, f"docker run {IMAGE} {MODEL}")
    assert "the docker run hands the container no GPU" in docker
