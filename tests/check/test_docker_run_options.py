"""`docker run` / `podman run` options that take a value, from each CLI's source (task h80shell,
kvplan.check.manifests.docker_options): the word after one is its value, never the image.
`docker run --gpus all --detach-keys ctrl-x vllm/vllm-openai:v0.8.5 ...` was read as image
`ctrl-x` and the server never read ("mentions vLLM, but none of its commands starts a server")."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.check.manifests.docker_options import (
    DOCKER_FLAG,
    DOCKER_VALUE,
    PODMAN_FLAG,
    PODMAN_VALUE,
    split_option,
)
from tests.conftest import invoke

MODEL = "--model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
# vllm/vllm-openai:v0.8.5 on an H100, Llama-3.1-8B at 8,192 with FlashInfer's sampler (the image
# installs it): 442,336 tokens in the pool, 53 sequences (442,336 / 8,192 = 53.99); the same
# line with no option kvplan passes over gives the same (test below)
SAID = "holds 53 sequences of 8,192 tokens per replica (442,336 tokens in the pool)"


def test_the_tables_are_the_clis_own() -> None:
    """docker/cli 28f75608: opts.go addFlags, run.go and create.go define 92 options that take a
    value and 15 that take none; podman c6580b4a run (create.go CreateMode, netflags.go, run.go,
    root.go's persistent options) 152 and 28."""
    assert (len(DOCKER_VALUE), len(DOCKER_FLAG), len(PODMAN_VALUE), len(PODMAN_FLAG)) == \
        (92, 15, 152, 28)
    for name in ("--detach-keys", "--log-opt", "--ulimit", "--cpuset-cpus", "--cpu-rt-runtime",
                 "--memory-swappiness", "--volume-driver", "--gpus", "--platform", "--pull"):
        assert name in DOCKER_VALUE, name
    for name in ("--rm", "--init", "--privileged", "--sig-proxy", "--use-api-socket"):
        assert name in DOCKER_FLAG, name
    for name in ("--pod", "--secret", "--timeout", "--runtime", "--uidmap", "--tz"):
        assert name in PODMAN_VALUE, name
    for name in ("--rmi", "--replace", "--tls-verify", "--env-host"):
        assert name in PODMAN_FLAG and name not in DOCKER_FLAG, name
    assert "--pod" not in DOCKER_VALUE and "--link" not in PODMAN_VALUE
    assert not (DOCKER_VALUE & DOCKER_FLAG) and not (PODMAN_VALUE & PODMAN_FLAG)


@pytest.mark.parametrize(("word", "program", "want"), [
    ("-it", "docker", (["--interactive", "--tty"], None, False)),
    ("-itv", "docker", (["--interactive", "--tty", "--volume"], None, True)),  # -itv /a:/b
    ("-p8000:8000", "docker", (["--publish"], "8000:8000", False)),
    ("-eHF_TOKEN=x", "docker", (["--env"], "HF_TOKEN=x", False)),
    ("--detach-keys", "docker", (["--detach-keys"], None, True)),
    ("--log-opt=max-size=10m", "docker", (["--log-opt"], "max-size=10m", False)),
    ("--net", "podman", (["--network"], None, True)),       # podman's alias
    ("--kvplan-unknown", "docker", (["--kvplan-unknown"], None, False)),
    ("-x", "docker", (["-x"], None, False)),
])
def test_an_option_word_as_pflag_reads_it(word: str, program: str,
                                          want: tuple[list[str], str | None, bool]) -> None:
    assert split_option(word, program) == want


def _check(tmp_path: Path, runner: CliRunner, line: str, name: str) -> str:
    script = tmp_path / name
    script.write_text(f"#!/bin/bash\n{line}\n")
    result = invoke(runner, "check", str(script), "--gpu", "h100")
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("options", [
    "--detach-keys ctrl-x",
    "--log-opt max-size=10m --ulimit memlock=-1 --cpuset-cpus 0-7",
    "--memory-swappiness 0 --volume-driver local --cpu-rt-runtime 950000",
    "-itv /data:/data --health-start-interval 5s",
])
def test_a_docker_value_option_keeps_its_word(tmp_path: Path, runner: CliRunner,
                                             options: str) -> None:
    bare = _check(tmp_path, runner, f"docker run --gpus all vllm/vllm-openai:v0.8.5 {MODEL}",
                  "bare.sh")
    out = _check(tmp_path, runner,
                 f"docker run --gpus all {options} vllm/vllm-openai:v0.8.5 {MODEL}", "serve.sh")
    assert SAID in bare and SAID in out
    assert "has no such option" not in out


def test_a_podman_value_option_keeps_its_word(tmp_path: Path, runner: CliRunner) -> None:
    out = _check(tmp_path, runner, "podman run --gpus all --pod llm --secret hf --timeout 600 "
                 f"--rmi vllm/vllm-openai:v0.8.5 {MODEL}", "serve.sh")
    assert SAID in out
    assert "has no such option" not in out
    # docker has no --pod (nor --rmi): each is named
    out = _check(tmp_path, runner, "docker run --gpus all --pod=llm --rmi "
                 f"vllm/vllm-openai:v0.8.5 {MODEL}", "docker.sh")
    assert SAID in out
    assert ("docker run option --pod: docker run has no such option (docker refuses it: "
            "'unknown flag'), passed over") in out
    assert ("docker run option --rmi: docker run has no such option (docker refuses it: "
            "'unknown flag'), read as taking no value, so a word after it is taken for the "
            "image") in out
