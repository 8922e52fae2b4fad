"""A fix that adds GPUs says how the file asks for them: a pod's `nvidia.com/gpu` limit, a
compose service's device reservation, a script's visible devices. Llama-3.1-70B in bf16 (141 GB
of weights) does not start on one H100; at tensor parallelism 2 it does (vLLM 0.11.0, and the
default 0.34.0, whose extensible cache takes the whole GPU)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()


def _fix_line(path: Path) -> str:
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 1, res.output
    return next(x for x in res.stdout.splitlines() if "--tensor-parallel-size 1 -> " in x)


def test_a_script_asks_for_visible_devices(tmp_path: Path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nvllm serve meta-llama/Llama-3.1-70B-Instruct "
                    "--max-model-len 8192\n")
    assert "with 2 GPU(s) visible (CUDA_VISIBLE_DEVICES)" in _fix_line(path)


def test_a_docker_run_asks_for_gpus(tmp_path: Path):
    path = tmp_path / "run.sh"
    path.write_text("docker run --gpus 1 vllm/vllm-openai:v0.11.0 --model "
                    "meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192\n")
    assert "-> 2 with 2 GPU(s) given to the container (--gpus)" in _fix_line(path)


def test_a_compose_service_asks_for_a_device_reservation(tmp_path: Path):
    path = tmp_path / "compose.yaml"
    path.write_text("""services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192"]
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
""")
    assert "-> 2 with 2 GPU(s) in deploy.resources.reservations.devices" in _fix_line(path)
