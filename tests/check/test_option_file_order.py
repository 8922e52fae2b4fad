"""One order for an option file a server in a container names (`--config`,
`--extra_llm_api_options`), in a compose file and in a script's `docker run` alike (task
h43scripts, kvplan/check/manifests/option_files.py): the mount that covers the container path
first, since the server opens the container path and the mount puts its source there, hiding
the image's file; only when no mount covers it, the file beside the compose file / script, with
a note that says so. Before, compose took a file beside the compose file over the mounted one.

The arithmetic that tells the two files apart: Llama-3.1-70B in bf16 is 70.6e9 x 2 B = 141 GB
of weights, so at `tensor-parallel-size: 1` one H100 (85 GB) cannot hold them (FAIL, exit 1)
and at `tensor-parallel-size: 4` (35 GB a GPU) it starts (PASS, exit 0). The mounted file says
4, the file beside says 1."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kvplan.cli import app

runner = CliRunner()
TP4 = "tensor-parallel-size: 4\nmax-model-len: 8192\n"
TP1 = "tensor-parallel-size: 1\nmax-model-len: 8192\n"

SERVICE = """  {name}:
    image: vllm/vllm-openai:v0.11.0
    command: ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--config", "{ref}"]
{extra}    volumes:
{volumes}
    deploy:
      resources:
        reservations:
          devices: [{{driver: nvidia, count: 4, capabilities: [gpu]}}]
"""


def _run(path: Path) -> tuple[int, str]:
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    return res.exit_code, " ".join(res.stdout.split())


def _tree(tmp: Path) -> None:
    """cfg/serve.yaml (TP 4) is what the volumes mount; etc/vllm/config.yaml and serve.yaml
    beside the file (TP 1) are what a look beside the file finds for /etc/vllm/config.yaml and
    /configs/serve.yaml."""
    (tmp / "cfg").mkdir()
    (tmp / "cfg" / "serve.yaml").write_text(TP4)
    (tmp / "etc" / "vllm").mkdir(parents=True)
    (tmp / "etc" / "vllm" / "config.yaml").write_text(TP1)
    (tmp / "serve.yaml").write_text(TP1)


def _compose(tmp: Path, volumes: str, ref: str = "/etc/vllm/config.yaml", extra: str = "",
             more: str = "") -> Path:
    path = tmp / "compose.yaml"
    path.write_text("services:\n" + SERVICE.format(name="vllm", ref=ref, volumes=volumes,
                                                   extra=extra) + more)
    return path


def test_compose_reads_the_mounted_file_over_the_one_beside(tmp_path: Path):
    """Both exist and differ: the mount's cfg/serve.yaml (TP 4) is read, PASS; main read
    etc/vllm/config.yaml beside the compose file (TP 1) and FAILed."""
    _tree(tmp_path)
    code, out = _run(_compose(tmp_path, "      - ./cfg/serve.yaml:/etc/vllm/config.yaml:ro"))
    assert code == 0, out
    assert ("note: /etc/vllm/config.yaml: read from cfg/serve.yaml, which a mount puts at the "
            "path the server opens (hiding the image's file there); etc/vllm/config.yaml beside "
            "the compose file (other options) is not what the server reads") in out
    assert "2 option(s) read from serve.yaml (mounted at /etc/vllm/config.yaml)" in out


def test_compose_same_text_beside_is_said_to_be_the_same(tmp_path: Path):
    _tree(tmp_path)
    (tmp_path / "etc" / "vllm" / "config.yaml").write_text(TP4)
    code, out = _run(_compose(tmp_path, "      - ./cfg/serve.yaml:/etc/vllm/config.yaml"))
    assert code == 0, out
    assert "etc/vllm/config.yaml beside the compose file (the same text)" in out


def test_compose_without_a_covering_mount_reads_the_file_beside_and_says_so(tmp_path: Path):
    """No volume at /etc/vllm: the file beside (TP 1) stands in for the image's, noted: FAIL."""
    _tree(tmp_path)
    code, out = _run(_compose(tmp_path, "      - hf:/root/.cache/huggingface"))
    assert code == 1, out
    assert ("note: /etc/vllm/config.yaml: no volume of service vllm covers this path, so the "
            "server reads the image's own file there; kvplan read etc/vllm/config.yaml beside "
            "the compose file in its place, which the image must hold at that path") in out


def test_compose_a_covering_mount_kvplan_cannot_read_is_not_replaced_by_the_file_beside(
        tmp_path: Path):
    """A named volume at /etc/vllm: the server reads the volume's file, which kvplan cannot;
    the file beside (TP 1) is not read in its place (it was, before): the options are unread,
    named, and the command line's TP 1 FAILs."""
    _tree(tmp_path)
    code, out = _run(_compose(tmp_path, "      - hf:/etc/vllm"))
    assert code == 1, out
    assert ("--config /etc/vllm/config.yaml: mounted from the named volume hf (service vllm), "
            "whose content is in Docker's volume store") in out
    assert "option(s) read from" not in out


def test_compose_the_longest_target_of_the_service_wins(tmp_path: Path):
    """./etc/vllm (whose config.yaml says TP 1) at /etc/vllm, listed first, and
    ./cfg/serve.yaml (TP 4) at /etc/vllm/config.yaml: the deeper target hides the shallower
    one's file at that path, as Docker stacks mounts: TP 4, PASS (the first readable volume,
    the rule before, gave TP 1 and a FAIL)."""
    _tree(tmp_path)
    code, out = _run(_compose(tmp_path, "      - ./etc/vllm:/etc/vllm\n"
                                        "      - ./cfg/serve.yaml:/etc/vllm/config.yaml"))
    assert code == 0, out


def test_compose_each_service_reads_its_own_volume(tmp_path: Path):
    """Two services mount different files at the same container path: `big` mounts
    cfg/serve.yaml (TP 4, PASS), `small` mounts etc/vllm/config.yaml (TP 1, FAIL). Before,
    every service took the first volume of the file that covered the path (both PASS)."""
    _tree(tmp_path)
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n" + SERVICE.format(
        name="big", ref="/etc/vllm/config.yaml", extra="",
        volumes="      - ./cfg/serve.yaml:/etc/vllm/config.yaml") + SERVICE.format(
        name="small", ref="/etc/vllm/config.yaml", extra="",
        volumes="      - ./etc/vllm/config.yaml:/etc/vllm/config.yaml"))
    res = runner.invoke(app, ["check", str(path), "--gpu", "h100"])
    verdicts = [(line.split()[0], line.split()[3]) for line in res.stdout.splitlines()
                if line.startswith(("PASS", "FAIL"))]
    assert verdicts == [("PASS", "big:"), ("FAIL", "small:")], res.stdout


def test_compose_a_relative_path_is_below_the_services_working_dir(tmp_path: Path):
    """`--config serve.yaml` with working_dir /configs and ./cfg mounted at /configs: the
    container opens /configs/serve.yaml, the mount's cfg/serve.yaml (TP 4): PASS, though
    serve.yaml (TP 1) lies beside the compose file."""
    _tree(tmp_path)
    code, out = _run(_compose(tmp_path, "      - ./cfg:/configs", ref="serve.yaml",
                              extra="    working_dir: /configs\n"))
    assert code == 0, out
    assert ("serve.yaml: read from cfg/serve.yaml, which a mount puts at the path the server "
            "opens") in out


DOCKER = """#!/bin/bash
cd "$(dirname "$0")"
docker run --gpus 4 {mount} vllm/vllm-openai:v0.11.0 \\
  --model meta-llama/Llama-3.1-70B-Instruct --config /configs/serve.yaml
"""


def test_docker_run_reads_the_mounted_file_over_the_one_beside(tmp_path: Path):
    """-v ./cfg:/configs puts cfg/serve.yaml (TP 4) at /configs/serve.yaml; serve.yaml
    beside the script (TP 1) is not read: PASS."""
    _tree(tmp_path)
    (tmp_path / "run.sh").write_text(DOCKER.format(mount="-v ./cfg:/configs"))
    code, out = _run(tmp_path / "run.sh")
    assert code == 0, out
    assert ("note: /configs/serve.yaml: read from cfg/serve.yaml, which a mount puts at the path "
            "the server opens (hiding the image's file there); serve.yaml beside the script "
            "(other options) is not what the server reads") in out


def test_docker_run_without_a_covering_mount_reads_the_file_beside_and_says_so(
        tmp_path: Path):
    _tree(tmp_path)
    (tmp_path / "run.sh").write_text(DOCKER.format(mount="-v hf:/root/.cache"))
    code, out = _run(tmp_path / "run.sh")
    assert code == 1, out
    assert ("note: /configs/serve.yaml: no -v / --mount of the docker run covers this path, so "
            "the server reads the image's own file there; kvplan read serve.yaml beside the "
            "script in its place, which the image must hold at that path") in out
