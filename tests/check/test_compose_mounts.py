"""An option file a compose service mounts into its container is read from the mount's source:
`--config /etc/vllm/config.yaml` with `volumes: ["./cfg/serve.yaml:/etc/vllm/config.yaml"]`
reads ./cfg/serve.yaml beside the compose file (compose resolves a relative source against the
compose file's folder). Llama-3.1-70B in bf16 is 141 GB of weights: on one H100 (85 GB) it
cannot start, at `tensor-parallel-size: 4` from the mounted file it does."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()

COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--config", "{ref}"]
    volumes:
{volumes}
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]
volumes:
  hf-cache: {{}}
"""


def _check(tmp: Path, ref: str, volumes: str) -> tuple[int, str]:
    (tmp / "cfg").mkdir()
    (tmp / "cfg" / "serve.yaml").write_text("tensor-parallel-size: 4\nmax-model-len: 8192\n")
    path = tmp / "compose.yaml"
    path.write_text(COMPOSE.format(ref=ref, volumes=volumes))
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, " ".join(res.stdout.split())


def test_a_file_bind_mount_is_read_from_its_source(tmp_path: Path):
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       "      - ./cfg/serve.yaml:/etc/vllm/config.yaml:ro\n"
                       "      - hf-cache:/root/.cache/huggingface")
    assert code == 0, out
    assert "PASS" in out and "serve.yaml (mounted at /etc/vllm/config.yaml)" in out


def test_a_folder_mount_in_the_long_syntax_is_read(tmp_path: Path):
    code, out = _check(tmp_path, "/configs/serve.yaml",
                       "      - {type: bind, source: ./cfg, target: /configs/}")
    assert code == 0, out
    assert "serve.yaml (mounted at /configs/serve.yaml)" in out


def test_a_named_volume_is_not_followed(tmp_path: Path):
    """A named volume's content is not on this machine: the file is named as not read, and the
    70B model at TP 1 on one H100 FAILs (its weights alone exceed the GPU)."""
    code, out = _check(tmp_path, "/etc/vllm/config.yaml",
                       "      - hf-cache:/etc/vllm")
    assert code == 1, out
    assert "FAIL" in out and "mounted at" not in out
