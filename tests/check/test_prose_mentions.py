"""A YAML that only mentions an engine in prose is no deployment (task h61pyleft): the notes file
tests/assets/check/python/round2/EXPECTED.yaml, whose `why:` says "TensorRT-LLM's test: ...", was
an ERROR "this document runs TensorRT-LLM, but it is not a Kubernetes object ..." in a folder walk,
because TensorRT-LLM's bare name counted as running it (vLLM's and SGLang's never did). Now a
string runs TensorRT-LLM by its image, its server command or its Python package imported or run
(kvplan.check.manifests.engine_mention.mentions_engine); a folder walk counts such a YAML among the files
without a deployment, as docs/check.md says of any YAML that runs no engine."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.check.manifests.engine_mention import mentions_engine
from kvplan.cli import app


def test_the_name_alone_is_prose_and_an_image_or_command_runs_it() -> None:
    for prose in ("TensorRT-LLM's test: ray.remote(LLM)", "see NVIDIA TensorRT-LLM: docs",
                  "tensorrt_llm is installed", "pip install tensorrt-llm"):
        assert mentions_engine({"why": prose}) is None, prose
    for runs in ("nvcr.io/nvidia/tensorrt-llm/release:1.0.0", "aibrix/tensorrt-llm:1.1.0",
                 "dstackai/tensorrt_llm:9b931c0", "python3 -m tensorrt_llm.commands.serve m",
                 "from tensorrt_llm import LLM", "trtllm-serve serve m"):
        assert mentions_engine({"image": runs}) == "TensorRT-LLM", runs


def test_a_folder_counts_a_notes_yaml_as_without_a_deployment(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text(
        "run.py:\n  verdicts: [WARN]\n  why: >-\n    TensorRT-LLM's test: LLM(model=...) with "
        "executor_type, a key kvplan does not read\n")
    (tmp_path / "app.yaml").write_text(
        "kind: Deployment\napiVersion: apps/v1\nmetadata: {name: x}\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - name: c\n        image: busybox\n")
    res = CliRunner().invoke(app, ["check", str(tmp_path)])
    assert res.exit_code == 2  # nothing checked: a gate is never green on it
    assert "runs TensorRT-LLM" not in res.output
    assert "2 YAML file(s) without a deployment skipped" in res.output
