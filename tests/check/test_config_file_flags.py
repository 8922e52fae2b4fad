"""vLLM's and SGLang's `--config FILE` (options read from a YAML inside the container) are named in
a note, never passed over silently: kvplan does not read the file, so options set only there are
not checked (TensorRT-LLM's --config / --extra_llm_api_options file is read: test_cov_trtllm_config)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.cli import app

COMPOSE = """services:
  srv:
    image: {image}
    command: [{argv}]
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: 1, capabilities: [gpu]}}]
"""


@pytest.mark.parametrize(("image", "argv", "words"), [
    ("vllm/vllm-openai:v0.11.0",
     '"--model", "meta-llama/Llama-3.1-8B-Instruct", "--config", "/cfg/config.yaml"',
     "--config: vLLM reads more options from this YAML file"),
    ("lmsysorg/sglang:v0.5.21",
     '"python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", '
     '"--config", "/cfg/config.yaml"',
     "--config: SGLang reads more server arguments from this YAML file"),
])
def test_a_config_file_the_gate_cannot_read_is_named(tmp_path: Path, image: str, argv: str,
                                                      words: str) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(COMPOSE.format(image=image, argv=argv))
    res = CliRunner().invoke(app, ["check", str(path), "--gpu", "h100"])
    out = " ".join(res.output.split())
    assert words in out, out
    assert "is not checked: give the pool's" in out
