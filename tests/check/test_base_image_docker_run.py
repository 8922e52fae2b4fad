"""`docker run <base image> bash -c "pip install vllm==X && vllm serve ..."` in a shell script
(task h72mix). The docker-run reader took a container as an engine's only when its image was an
engine's (vllm/vllm-openai, lmsysorg/sglang, ...) or its command started one directly; a base
image (python, ubuntu, debian, nvidia/cuda, pytorch/pytorch: pods.BASE_IMAGES) whose shell -c
installs and starts the engine was "this file mentions vLLM, but none of its commands starts a
server". It is now read as a Kubernetes container's `sh -c` is (task h71left), the pip pin the
release (kvplan.check.manifests.container_pins).

Golden figures, from `kvplan explain` of the same flags (independent of the readers):
- `explain llama-3-8b --engine vllm --engine-version 0.8.5 -c 8192 -g h100`: GPU KV cache size
  420,528 tokens (as commit 9fea1ffc measured for the Kubernetes container);
- `explain llama-3-8b --engine sglang --engine-version 0.4.6 -c 8192 -g h100`:
  max_total_num_tokens 445,123;
- `explain llama-3.1-8b --engine vllm -c 4096 -g h100 --enforce-eager`: 494,304 tokens, 120.68x.
Real inputs: tests/assets/check/base-image (SOURCES.md, EXPECTED.md written first).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.check import check_paths
from kvplan.check.formats import summary_text
from kvplan.check.manifests.shell_lex import read_script
from tests.conftest import ASSETS

BASE = ASSETS / "check" / "base-image"
SERVE = "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-model-len 8192"


def _one(tmp_path: Path, line: str, gpu: str | None = "h100") -> object:
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\n" + line + "\n")
    [outcome] = check_paths([str(script)], default_gpu=gpu).outcomes
    return outcome


@pytest.mark.parametrize("image", ["python:3.11", "ubuntu:22.04", "debian:bookworm",
                                   "nvidia/cuda:12.4.1-devel-ubuntu22.04",
                                   "pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime"])
def test_a_base_image_that_pip_installs_vllm_is_read_with_its_pin(
        tmp_path: Path, image: str) -> None:
    o = _one(tmp_path, f'docker run --gpus 1 -p 8000:8000 {image} bash -c '
                       f'"pip install vllm==0.8.5 && {SERVE}"')
    assert (o.verdict, o.engine, o.engine_version, o.kind) == ("PASS", "vllm", "0.8.5",
                                                               "docker_run")
    assert "(420,528 tokens in the pool)" in summary_text(o)
    # the shell as the line writes it (said `sh -c` until task h80shell)
    assert "the container's bash -c script installs vllm==0.8.5: vllm 0.8.5" in o.notes
    assert "--gpus 1: 1 GPU(s)" in o.notes


def test_sglang_in_a_python_image(tmp_path: Path) -> None:
    o = _one(tmp_path, "docker run --gpus 1 --ipc=host python:3.11 bash -c \"pip install "
                       "'sglang[all]==0.4.6' && python3 -m sglang.launch_server --model-path "
                       "meta-llama/Meta-Llama-3-8B-Instruct --context-length 8192\"")
    assert (o.verdict, o.engine, o.engine_version) == ("PASS", "sglang", "0.4.6")
    assert "(445,123 tokens in the pool)" in summary_text(o)


def test_an_unpinned_install_is_the_profile_default_said(tmp_path: Path) -> None:
    o = _one(tmp_path, f'docker run --gpus all python:3 bash -c "pip install vllm && {SERVE}"')
    assert o.verdict == "PASS" and o.engine_version is None
    assert ("image python:3: python's tag is its own version, not vllm's (a base image the "
            "container installs vllm into); the vllm profile's default version is used") in o.notes


def test_a_base_image_whose_script_starts_no_engine_is_not_read(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text('#!/bin/bash\ndocker run --gpus 1 python:3.11 bash -c "pip install vllm '
                      '&& python train.py"\n')
    report = check_paths([str(script)])
    assert report.outcomes[0].verdict == "ERROR"
    assert "nothing that runs vLLM, SGLang or TensorRT-LLM" in report.outcomes[0].problems[0].message


def test_an_engine_image_with_bash_after_it_is_still_refused(tmp_path: Path) -> None:
    """No --entrypoint: the vllm image's entrypoint receives `bash -c ...` (as before)."""
    o = _one(tmp_path, f'docker run --gpus 1 vllm/vllm-openai:v0.9.0 bash -c '
                       f'"pip install vllm==0.8.5 && {SERVE}"')
    assert o.verdict == "ERROR"
    assert o.problems[0].message.startswith("the vllm/vllm-openai image's entrypoint already "
                                            "starts the server")


def test_a_quote_across_continued_lines_stays_one_word() -> None:
    """`bash -c "pip install vllm && python -m ... \\` over lines: the shell joins the lines inside
    the quotes; kvplan split each line at spaces, and the server after && was read as started
    outside the container with the word `bfloat16"` (its --dtype refused)."""
    text = ('docker run --gpus all nvcr.io/nvidia/pytorch:25.11-py3 \\\n'
            '    bash -c "pip install vllm && python -m vllm.entrypoints.openai.api_server \\\n'
            '        --max-model-len 4096 \\\n'
            '        --dtype bfloat16"\n')
    [(cmd, _, _)] = read_script(text).commands
    assert len(cmd.words) == 8  # docker run --gpus all IMAGE bash -c SCRIPT
    assert cmd.words[-1].split() == ["pip", "install", "vllm", "&&", "python", "-m",
                                     "vllm.entrypoints.openai.api_server", "--max-model-len",
                                     "4096", "--dtype", "bfloat16"]


def test_the_stored_base_image_inputs() -> None:
    """EXPECTED.md's rows (written before the reader read them)."""
    def run(name: str, gpu: str | None = None) -> list:
        return check_paths([str(BASE / name)], default_gpu=gpu).outcomes

    [llama] = run("idx12045337218-dgx-spark-llama31.sh", "h100")
    assert (llama.verdict, llama.kind, llama.model) == ("PASS", "docker_run", "llama-3.1-8b")
    assert ("holds 120 sequences of 4,096 tokens per replica (494,304 tokens in the pool)"
            in summary_text(llama))
    [warn] = run("idx12045337218-dgx-spark-llama31.sh")
    assert warn.verdict == "WARN"
    [hermes] = run("idx67567102783-thor-hermes.sh")
    # an ERROR at line 6 ('NousResearch/Hermes-2-Pro-Llama-3-8B' is not in the catalog) until
    # task h91catalog added the spec: 8,030,523,392 x 2 B = 16.06 GB of weights, no GPU named,
    # so a WARN over the catalog's GPUs, the 16 GB ones (T4, V100 16 GB) not starting
    assert (hermes.verdict, hermes.kind, hermes.model) == ("WARN", "docker_run",
                                                           "hermes-2-pro-llama-3-8b")
    assert "would not start on: t4, v100-sxm2-16gb" in summary_text(hermes)
    [whisper] = run("idx12428721734-whisper-small.sh")
    assert "'openai/whisper-small' is not in the catalog" in whisper.problems[0].message


def test_the_held_out_base_image_inputs() -> None:
    """Held out (SOURCES.md): not used to shape the reader; EXPECTED.md's rows."""
    bare, docker = check_paths([str(BASE / "idx51805296900-medix-r1.sh")]).outcomes
    assert (bare.kind, docker.kind) == ("script", "docker_run")
    assert all("'MBZUAI/MediX-R1-30B' is not in the catalog" in o.problems[0].message
               for o in (bare, docker))
    assert not any(n.startswith("started outside a container") for n in docker.notes)
    [qwen] = check_paths([str(BASE / "idx11954336090-dgx-spark-qwen3.sh")]).outcomes
    assert qwen.kind == "docker_run"
    assert "'Qwen/Qwen3-8B-Instruct' is not in the catalog" in qwen.problems[0].message
    [o] = check_paths([str(BASE / "idx40371570682-python311-migrations.sh")]).outcomes
    assert o.verdict == "ERROR" and o.kind != "docker_run"
    assert "nothing that runs vLLM, SGLang or TensorRT-LLM" in o.problems[0].message
    # its quotes do not close (as in the source): bash refuses it, "line 6: unexpected EOF while
    # looking for matching `''", and so does kvplan since task h80shell
    [o] = check_paths([str(BASE / "idx24527511236-echoed-python312.sh")]).outcomes
    assert o.verdict == "ERROR" and o.kind != "docker_run" and o.line == 6
    assert "a ' quote opened on this line is never closed" in o.problems[0].message
