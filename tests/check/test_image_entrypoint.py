"""The vllm/vllm-openai image's own entrypoint follows the release its tag names (task h61misc).

Source: vLLM's docker/Dockerfile, target vllm-openai, as the release sdists on PyPI ship it
(`pip download --no-deps --no-binary :all: vllm==X`, read for this task):
`ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]` in 0.6.6.post1, 0.7.3,
0.8.5, 0.9.2, 0.10.0, 0.10.1.1, 0.10.2 and 0.11.0; `ENTRYPOINT ["vllm", "serve"]` from 0.11.1
(docker/Dockerfile:500) in every release read after it. A model given as the first argument to
the image is served from 0.11.1 only: the OpenAI server module has no place for it before 0.10.0
and never reads it from 0.10.0 (tests/check/test_launch_model_words.py). Inputs are synthetic,
written inline: the public corpus holds no image-only container that gives the model as a word
to an image before 0.11.1 (the corpus's verdicts did not move)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.image_entry import OPENAI_SERVER, SERVE, image_entry
from kvplan.cli import app
from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns

Q = "Qwen/Qwen3-8B"
ENTRY = ("image's entrypoint `python3 -m vllm.entrypoints.openai.api_server` (its ENTRYPOINT in "
         "vLLM's docker/Dockerfile before 0.11.1; `vllm serve` from 0.11.1)")


def _rows(path: Path) -> list[dict]:
    res = CliRunner().invoke(app, ["check", str(path), "-f", "json", "--gpu", "h100"])
    return list(json.loads(res.output)["results"])


def _said(row: dict) -> str:
    return " ".join(" ".join(str(v) for v in row.get(k) or []) for k in
                    ("notes", "problems", "reasons", "errors"))


def _pod(tmp: Path, image: str, args: str) -> dict:
    path = tmp / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n"
                    "  template:\n    spec:\n      containers:\n        - name: vllm\n"
                    f"          image: {image}\n          args: [{args}]\n"
                    "          resources: {limits: {nvidia.com/gpu: 1}}\n")
    (row,) = _rows(path)
    return row


@pytest.mark.parametrize(("image", "words", "named"), [
    ("vllm/vllm-openai:v0.8.5", OPENAI_SERVER, True),
    ("vllm/vllm-openai:v0.10.1.1", OPENAI_SERVER, True),
    ("vllm/vllm-openai:v0.11.0", OPENAI_SERVER, True),
    ("vllm/vllm-openai:v0.11.1", SERVE, True),
    ("vllm/vllm-openai:v0.10.2-cu129", OPENAI_SERVER, True),  # the build after it is dropped
    ("vllm/vllm-openai:v0.30.0-cu129", SERVE, True),
    ("vllm/vllm-openai:latest", SERVE, False),
    ("vllm/vllm-openai:nightly", SERVE, False),
    ("vllm/vllm-openai", SERVE, False),
    ("vllm/vllm-openai@sha256:bfb0403010061e61b692e337945fb9694baefb03b0725d62adab9cca6139ea62",
     SERVE, False),
    ("vllm/vllm-openai:${VLLM_TAG}", SERVE, False),
])
def test_the_entrypoint_by_the_tag_s_release(image: str, words: tuple[str, ...],
                                             named: bool) -> None:
    got = image_entry(image)
    assert (got.words, got.release_named) == (words, named)


def test_a_model_word_to_an_image_before_0_10_stops_argparse(tmp_path: Path) -> None:
    row = _pod(tmp_path, "vllm/vllm-openai:v0.8.5", f"{Q}, --max-model-len, '8192'")
    assert (row["verdict"], row["line"]) == ("FAIL", 10)
    assert (f"the engine refuses it: the vllm/vllm-openai:v0.8.5 {ENTRY} takes no positional "
            f"word (model_tag came to its parser in 0.10.0); `{Q}` is left over: argparse stops "
            f"(\"unrecognized arguments: {Q}\"); write it as --model {Q}") in _said(row)


def test_a_model_word_to_a_0_11_0_image_is_not_served(tmp_path: Path) -> None:
    row = _pod(tmp_path, "vllm/vllm-openai:v0.11.0", f"{Q}, --max-model-len, '8192'")
    assert (row["verdict"], row["line"]) == ("FAIL", 10)
    assert (f"`{Q}` is not served: the vllm/vllm-openai:v0.11.0 {ENTRY} takes one positional "
            "word (model_tag, in its parser since 0.10.0) and never reads it (only `vllm serve` "
            "copies it to --model, entrypoints/cli/serve.py), so the server loads the default "
            "--model (ModelConfig.model, Qwen/Qwen3-0.6B in vLLM 0.34.0's config/model.py:161); "
            f"write it as --model {Q}") in _said(row)


def test_a_model_word_to_a_0_11_1_image_is_the_model(tmp_path: Path) -> None:
    row = _pod(tmp_path, "vllm/vllm-openai:v0.11.1", f"{Q}, --max-model-len, '8192'")
    assert (row["verdict"], row["model"]) == ("PASS", "qwen3-8b")
    assert "names no vLLM release" not in _said(row)


def test_an_image_that_names_no_release_is_read_as_the_newest_with_a_note(tmp_path: Path) -> None:
    row = _pod(tmp_path, "vllm/vllm-openai:latest", f"{Q}, --max-model-len, '8192'")
    assert (row["verdict"], row["model"]) == ("PASS", "qwen3-8b")
    assert (f"image vllm/vllm-openai:latest names no vLLM release: its entrypoint is read as the "
            f"newest's, `vllm serve`, which serves `{Q}` as the model; images before 0.11.1 start "
            "`python3 -m vllm.entrypoints.openai.api_server` (vLLM's docker/Dockerfile), which "
            "does not: pin a release tag to have it checked") in row["notes"]


def test_options_only_need_no_note(tmp_path: Path) -> None:
    """--model is the OpenAI server module's option too: nothing to say, whatever the tag."""
    row = _pod(tmp_path, "vllm/vllm-openai:latest", f"--model, {Q}, --max-model-len, '8192'")
    assert row["verdict"] == "PASS" and "names no vLLM release" not in _said(row)


def test_compose_and_docker_run_follow_the_tag_too(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text(f"services:\n  vllm:\n    image: vllm/vllm-openai:v0.9.2\n"
                       f"    command: [\"{Q}\", \"--max-model-len\", \"8192\"]\n"
                       "    deploy: {resources: {reservations: {devices: [{driver: nvidia, "
                       "count: 1, capabilities: [gpu]}]}}}\n")
    (row,) = _rows(compose)
    assert row["verdict"] == "FAIL"
    assert f"the vllm/vllm-openai:v0.9.2 {ENTRY} takes no positional word" in _said(row)
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/sh\ndocker run --gpus all vllm/vllm-openai:v0.10.0 {Q}\n"
                      f"docker run --gpus all vllm/vllm-openai:v0.12.0 {Q}\n")
    old, new = _rows(script)
    assert (old["verdict"], old["line"]) == ("FAIL", 2)
    assert f"`{Q}` is not served: the vllm/vllm-openai:v0.10.0 {ENTRY}" in _said(old)
    assert (new["verdict"], new["model"]) == ("PASS", "qwen3-8b")


def test_a_program_after_an_old_image_names_that_image_s_entrypoint(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/sh\ndocker run --gpus all vllm/vllm-openai:v0.9.2 vllm serve {Q}\n")
    (row,) = _rows(script)
    assert ("the vllm/vllm-openai image's entrypoint already starts the server (`python3 -m "
            "vllm.entrypoints.openai.api_server`), and docker run appends the arguments after "
            "the image to it: `vllm ...` reaches vLLM") in _said(row)
