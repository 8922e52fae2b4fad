"""A container whose command pip-installs the engine into a base image (`image: python:3.11`,
`sh -c "pip install vllm==0.8.5 && vllm serve ..."`) runs that release: its pin is read as the
shell-script reader reads one (launcher_sites.pip_pins, through
kvplan.check.manifests.container_pins; task h71left: task h70review found the release left
unknown). Golden pools: Llama-3-8B at 8,192 tokens on an H100 is 420,528 tokens on vLLM 0.8.5
and 489,616 on the newest profile (tests/check/test_script_pip_pins.py, the same server started
by a script)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

SERVE = "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"
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
          command: ["sh", "-c", {script!r}]
          env:
            - name: VLLM_VERSION
              value: "0.8.5"
          resources:
            limits:
              nvidia.com/gpu: 1
"""
COMPOSE = """services:
  vllm:
    image: python:3.11
    command: ["bash", "-c", "pip install vllm==0.8.5 && {serve}"]
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
"""


def _check(tmp_path: Path, script: str, image: str = "python:3.11") -> str:
    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOYMENT.format(image=image, script=script))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def test_a_pin_in_the_command_is_the_release(tmp_path: Path) -> None:
    out = _check(tmp_path, f"pip install vllm==0.8.5 && {SERVE}")
    assert "(llama-3-8b, vllm 0.8.5)" in out
    assert "(420,528 tokens in the pool)" in out
    assert "note: the container's sh -c script installs vllm==0.8.5: vllm 0.8.5" in out
    assert "a base image the container installs vllm into" not in out  # its release is known


def test_a_pin_through_the_container_s_env(tmp_path: Path) -> None:
    out = _check(tmp_path, f"pip install vllm==$VLLM_VERSION && {SERVE}")
    assert "(llama-3-8b, vllm 0.8.5)" in out


def test_a_compose_service_s_pin(tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.format(serve=SERVE))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    out = " ".join(res.output.split())
    assert res.exit_code == 0, out
    assert "(llama-3-8b, vllm 0.8.5)" in out and "(420,528 tokens in the pool)" in out


def test_what_is_no_release_stays_unknown(tmp_path: Path) -> None:
    for script, said in [
            (f"pip install 'vllm>=0.8' && {SERVE}", "installs vllm>=0.8: a range, not a release"),
            (f"echo pip install vllm==0.8.5 && {SERVE}", ""),
            (f"pip install sglang==0.4.6 && {SERVE}",
             "installs sglang==0.4.6: not the engine this server runs, so not its release"),
            (f"pip install vllm==0.8.5 vllm==0.9.0 && {SERVE}",
             "in one pip command: pip stops without installing either")]:
        out = _check(tmp_path, script)
        assert "(llama-3-8b, vllm (default version))" in out, script
        assert "(489,616 tokens in the pool)" in out, script
        assert said in out, (script, out)


def test_a_pin_over_an_engine_image_is_what_serves(tmp_path: Path) -> None:
    # pip replaces the vLLM the image holds before the server starts: the pin serves, said so.
    # The image still holds FlashInfer (vLLM's Dockerfile installs it in vllm/vllm-openai), so
    # 0.8.5's pool with FlashInfer's sampler: 442,576 tokens (420,528 with the sort, as above)
    out = _check(tmp_path, f"pip install vllm==0.8.5 && {SERVE}", "vllm/vllm-openai:v0.9.0")
    assert "(llama-3-8b, vllm 0.8.5)" in out and "(442,576 tokens in the pool)" in out
    assert "442,576 tokens in the pool, 420,528 with the sort" in out
    assert ("installs vllm==0.8.5: vllm 0.8.5 (installed over the vllm that image "
            "vllm/vllm-openai:v0.9.0 holds)") in out
    # without a pin, the image's tag, as before
    assert "(llama-3-8b, vllm 0.8.5)" in _check(tmp_path, SERVE, "vllm/vllm-openai:v0.8.5")
