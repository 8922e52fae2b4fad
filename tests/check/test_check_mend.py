"""What `kvplan check` mis-read in compose files and launch scripts, mended (task h42mend): a
broken compose document's kind, a compose service's unrendered `deploy.replicas` named as
compose spells it, the option files a `docker run` mounts and a script's `cd` before a relative
`--config`. Each test asserts the exact message."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.check.check_cli_run import check_flat, results
from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns

_COMPOSE_DEVICES = """      resources:
        reservations:
          devices: [{driver: nvidia, count: 1, capabilities: [gpu]}]
"""


# ---- compose: the kind of a broken document, the name of deploy.replicas -------------------

def test_a_compose_document_yaml_cannot_read_is_reported_as_compose(runner: CliRunner,
                                                                    tmp_path: Path) -> None:
    """An unclosed flow list on line 4 (`[... "${MODEL}"` with no `]`): the parser stops at line
    5. The document has a top-level `services:` and no `kind:`, so it is a compose file: kind
    compose (it said kubernetes), and its unrendered value is said in compose's words (.env)."""
    path = tmp_path / "serve.yaml"
    path.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n'
                    '    command: ["--model", "${MODEL}"\n    deploy:\n' + _COMPOSE_DEVICES)
    [row] = results(runner, path, "--gpu", "h100")
    assert (row["kind"], row["line"], row["verdict"]) == ("compose", 5, "ERROR")
    assert row["errors"] == [{"field": "", "line": 5, "message": (
        "unrendered template: set it in .env beside the compose file (compose reads that "
        "file), or render first (docker compose config)")}]


def test_a_broken_document_beside_a_compose_one_takes_its_kind(runner: CliRunner,
                                                               tmp_path: Path) -> None:
    """docker-compose.yml: the second document (line 6 on) is broken YAML that runs vLLM; the
    first one is a compose file, so the broken one is reported as compose too."""
    path = tmp_path / "docker-compose.yml"
    path.write_text("services:\n  web:\n    image: nginx\n---\n# the engine\n"
                    "x: [vllm/vllm-openai:v0.11.0\n")
    [row] = results(runner, path)
    assert (row["kind"], row["verdict"]) == ("compose", "ERROR")
    assert row["errors"][0]["message"].startswith("malformed YAML")


def test_a_kubernetes_document_yaml_cannot_read_stays_kubernetes(runner: CliRunner,
                                                                 tmp_path: Path) -> None:
    """The same broken flow list under `kind: Deployment` is no compose file."""
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n"
                    "      containers:\n      - image: vllm/vllm-openai:v0.11.0\n"
                    '        args: ["--model", "x"\n        name: a\n')
    [row] = results(runner, path)
    assert (row["kind"], row["verdict"]) == ("kubernetes", "ERROR")


def test_an_unrendered_compose_replicas_is_named_deploy_replicas(runner: CliRunner,
                                                                 tmp_path: Path) -> None:
    """`deploy.replicas: ${REPLICAS}` with no .env: the field is deploy.replicas (it said
    `replicas`, a Kubernetes spec field), at line 6 where it is written."""
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
                    '    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]\n'
                    "    deploy:\n      replicas: ${REPLICAS}\n" + _COMPOSE_DEVICES)
    code, out = check_flat(runner, path, "--gpu", "h100")
    assert code == 2
    assert ("compose.yaml:6: deploy.replicas: '${REPLICAS}': set it in .env beside the compose "
            "file (compose reads that file), or render first (docker compose config)") in out
    [row] = results(runner, path, "--gpu", "h100")
    assert [e["field"] for e in row["errors"]] == ["deploy.replicas"]


def test_a_zero_compose_replicas_is_named_deploy_replicas(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
                    '    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]\n'
                    "    deploy:\n      replicas: 0\n" + _COMPOSE_DEVICES)
    code, out = check_flat(runner, path, "--gpu", "h100")
    assert code == 2
    assert "compose.yaml:6: deploy.replicas: 0 replicas hold no users" in out


# ---- a docker run's mounts, for the option files the server names --------------------------
# Llama-3.1-70B-Instruct in bf16 is 70.6e9 x 2 B = 141 GB of weights: at tensor-parallel 1 it
# cannot start on one H100 (80 GB); at `tensor-parallel-size: 4`, read from the mounted file,
# each of the 4 GPUs holds 35 GB and it starts. The verdict says whether the file was read.

SERVE = "tensor-parallel-size: 4\nmax-model-len: 8192\n"
VLLM_70B = "vllm/vllm-openai:v0.11.0 --model meta-llama/Llama-3.1-70B-Instruct"
UNCHECKED = ("the options set only there (gpu-memory-utilization, max-model-len, max-num-seqs, "
             "kv-cache-dtype ...) are not checked: give the pool's options as flags, or ")
ASSUMED = ("looked for relative to the script's folder; a relative path is resolved against the "
           "directory the script is run from, which the script does not set (no `cd \"$(dirname "
           "\"$0\")\"` or `cd /absolute/dir` before it): run from elsewhere, the server opens "
           "another file")


def _script(tmp: Path, body: str) -> Path:
    (tmp / "cfg").mkdir(exist_ok=True)
    (tmp / "cfg" / "serve.yaml").write_text(SERVE)
    path = tmp / "serve.sh"
    path.write_text("#!/bin/bash\n" + body + "\n")
    return path


def _row(runner: CliRunner, path: Path) -> dict:
    [row] = results(runner, path, "--gpu", "h100")
    return row


def test_a_docker_run_volume_is_read_from_its_source(runner: CliRunner, tmp_path: Path) -> None:
    """`-v ./cfg:/etc/vllm` and `--config /etc/vllm/serve.yaml`: ./cfg/serve.yaml, relative to
    the script's folder (no `cd`: the assumption is said), gives TP 4 on `--gpus 4`: PASS (it
    looked for serve.yaml beside the script and, with none there, ran TP 1: FAIL)."""
    path = _script(tmp_path, f"docker run --gpus 4 -v ./cfg:/etc/vllm {VLLM_70B} "
                   "--config /etc/vllm/serve.yaml")
    row = _row(runner, path)
    assert (row["kind"], row["verdict"]) == ("docker_run", "PASS"), row
    assert f"the docker run's mount source ./cfg: {ASSUMED}" in row["notes"]
    assert ("--config /etc/vllm/serve.yaml: 2 option(s) read from serve.yaml (mounted at "
            "/etc/vllm/serve.yaml); an option the command line also gives is taken from the "
            "command line, as the engine does") in row["notes"]


def test_a_docker_run_bind_mount_at_an_absolute_path_is_read_and_noted(runner: CliRunner,
                                                                       tmp_path: Path) -> None:
    """`--mount type=bind,source=<tmp>/cfg,target=/etc/vllm,readonly`: an absolute host path
    that exists on this machine is read (PASS at TP 4), with the caution that the machine that
    runs the script must hold the same file."""
    src = tmp_path / "cfg"
    path = _script(tmp_path, f"docker run --gpus 4 --mount type=bind,source={src},"
                   f"target=/etc/vllm,readonly {VLLM_70B} --config /etc/vllm/serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "PASS", row
    assert (f"{src}/serve.yaml is the host path the docker run of line 2 mounts at "
            "/etc/vllm/serve.yaml, read on this machine (the one running kvplan): the machine "
            "that runs the script must hold the same file") in row["notes"]


def test_a_docker_run_mount_not_on_this_machine_is_named(runner: CliRunner,
                                                         tmp_path: Path) -> None:
    """`-v /srv/h42mend-absent:/etc/vllm`: not a file here, so --config is not read: TP 1, and
    141 GB of weights on one H100 FAIL; the note names the mount and why."""
    path = _script(tmp_path, f"docker run --gpus 4 -v /srv/h42mend-absent:/etc/vllm {VLLM_70B} "
                   "--config /etc/vllm/serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "FAIL", row
    assert ("--config /etc/vllm/serve.yaml: mounted from the host path /srv/h42mend-absent (the "
            "docker run of line 2), and /srv/h42mend-absent/serve.yaml is not a file on this "
            "machine (the one running kvplan), only perhaps on the machine that runs the script; "
            + UNCHECKED + "bind-mount the file from beside the script (-v ./FILE:PATH)"
            ) in row["notes"]


def test_a_docker_run_named_volume_is_not_followed(runner: CliRunner, tmp_path: Path) -> None:
    path = _script(tmp_path, f"docker run --gpus 4 -v vllm-cfg:/etc/vllm {VLLM_70B} "
                   "--config /etc/vllm/serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "FAIL", row
    assert ("--config /etc/vllm/serve.yaml: mounted from the named volume vllm-cfg (the docker "
            "run of line 2), whose content is in Docker's volume store on the machine that runs "
            "the script, not a file kvplan can read; " + UNCHECKED + "bind-mount the file from "
            "beside the script (-v ./FILE:PATH)") in row["notes"]


def test_a_file_mount_from_pwd_after_cd_to_the_script_folder(runner: CliRunner,
                                                              tmp_path: Path) -> None:
    """`cd "$(dirname "$0")"` then `-v "$(pwd)/cfg/serve.yaml:/c.yaml:ro"`: $(pwd) is the
    script's folder, exactly (no assumption note); the file mount is read: PASS."""
    path = _script(tmp_path, 'cd "$(dirname "$0")"\ndocker run --gpus 4 -v '
                   f'"$(pwd)/cfg/serve.yaml:/c.yaml:ro" {VLLM_70B} --config /c.yaml')
    row = _row(runner, path)
    assert row["verdict"] == "PASS", row
    assert ("--config /c.yaml: 2 option(s) read from serve.yaml (mounted at /c.yaml); an option "
            "the command line also gives is taken from the command line, as the engine does"
            ) in row["notes"]
    assert not any("looked for relative" in n for n in row["notes"])


def test_trtllm_options_file_mounted_by_a_docker_run(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "extra.yaml").write_text("max_batch_size: 16\n")
    path = tmp_path / "serve.sh"
    path.write_text("docker run --gpus 1 -v ./cfg:/cfg --entrypoint trtllm-serve "
                    "nvcr.io/nvidia/tensorrt-llm/release:1.0.0 meta-llama/Llama-3.1-8B-Instruct "
                    "--extra_llm_api_options /cfg/extra.yaml\n")
    row = _row(runner, path)
    assert ("--extra_llm_api_options /cfg/extra.yaml: limits read from extra.yaml (mounted at "
            "/cfg/extra.yaml)") in row["notes"]


def test_a_path_no_docker_run_mount_covers_is_named_so(runner: CliRunner,
                                                      tmp_path: Path) -> None:
    """`-v ./cfg:/cfg` covers /cfg only: /etc/vllm/serve.yaml (vLLM) and /opt/extra.yaml
    (trtllm-serve) are in no mount, and the notes say so in the docker run's terms (they said
    "not beside the script" only)."""
    path = _script(tmp_path, f"docker run --gpus 4 -v ./cfg:/cfg {VLLM_70B} "
                   "--config /etc/vllm/serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "FAIL", row
    assert ("--config: vLLM reads more options from this YAML file (its keys are the long option "
            "names); kvplan reads it only beside the script or in a file a -v / --mount of the "
            "docker run puts there, and no mount of it covers this path, so an option set only "
            "there (gpu-memory-utilization, max-model-len, max-num-seqs, kv-cache-dtype ...) is "
            "not checked: give the pool's options as flags, or put the file beside the script"
            ) in row["notes"]
    path.write_text("docker run --gpus 1 -v ./cfg:/cfg nvcr.io/nvidia/tensorrt-llm/release:1.0.0 "
                    "trtllm-serve meta-llama/Llama-3.1-8B-Instruct --extra_llm_api_options "
                    "/opt/extra.yaml\n")
    row = _row(runner, path)
    assert ("--extra_llm_api_options /opt/extra.yaml: a file inside the container, neither beside "
            "the script nor mounted by a -v / --mount of the docker run; its limits "
            "(max_batch_size, max_num_tokens, max_seq_len, kv_cache_config) and settings (the "
            "cache dtype, the parallel layout, the backend) are not read") in row["notes"]


# ---- a script's `cd` before a relative --config ---------------------------------------------

def test_no_cd_looks_beside_the_script_and_says_so(runner: CliRunner) -> None:
    """phatvo9/benchmark_gpu's start_config1.sh lives in tuning/tensorrt_llm/deepseek-r1/mtp/
    and names ./tuning/tensorrt_llm/.../trt_bench_mtp.yaml: written to run from the repository's
    root, which the script does not say. kvplan looks relative to the script's folder, says that
    assumption, and names the file as not there."""
    from tests.conftest import ASSETS

    script = ASSETS / "check" / "scripts" / "phatvo9-trtllm-start-config1.sh"
    [row] = results(runner, script)
    ref = "./tuning/tensorrt_llm/deepseek-r1/mtp/trt_bench_mtp.yaml"
    assert f"{ref}: {ASSUMED}" in row["notes"]
    assert (f"--extra_llm_api_options {ref}: a path on the machine that runs the script, relative "
            f"to the script's folder, and {script.parent / ref} is not a file on this machine "
            "(the one running kvplan); its limits (max_batch_size, max_num_tokens, max_seq_len, "
            "kv_cache_config) and settings are not read") in row["notes"]


@pytest.mark.parametrize("cd", ['cd "$(dirname "$0")/run"', "cd $(dirname $0)/run",
                                'cd "$(dirname "${BASH_SOURCE[0]}")"/run', 'cd "${0%/*}/run"'])
def test_cd_to_the_script_folder_then_below_it(runner: CliRunner, tmp_path: Path,
                                               cd: str) -> None:
    """`cd "$(dirname "$0")/run"` (and its other spellings): the file is run/serve.yaml below the
    script's folder, exactly; cfg/serve.yaml beside the script is not it. TP 4 from
    run/serve.yaml on CUDA_VISIBLE_DEVICES=0,1,2,3: PASS."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "serve.yaml").write_text(SERVE)
    path = _script(tmp_path, f"{cd}\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve "
                   "meta-llama/Llama-3.1-70B-Instruct --config serve.yaml")
    (tmp_path / "cfg" / "serve.yaml").unlink()
    row = _row(runner, path)
    assert (row["kind"], row["verdict"]) == ("script", "PASS"), row
    assert ("--config serve.yaml: 2 option(s) read from run/serve.yaml; an option the command "
            "line also gives is taken from the command line, as the engine does") in row["notes"]
    assert not any("looked for relative" in n for n in row["notes"])


def test_a_relative_cd_with_no_start_is_taken_from_the_script_folder(runner: CliRunner,
                                                                      tmp_path: Path) -> None:
    path = _script(tmp_path, "cd cfg\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve "
                   "meta-llama/Llama-3.1-70B-Instruct --config serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "PASS", row
    assert ("serve.yaml: looked for relative to the script's folder, and its `cd cfg` (line 2) "
            "taken from there; " + ASSUMED.split("; ", 1)[1]) in row["notes"]
    assert any(n.startswith("--config serve.yaml: 2 option(s) read from cfg/serve.yaml")
               for n in row["notes"])


def test_cd_to_an_absolute_folder(runner: CliRunner, tmp_path: Path) -> None:
    """`cd <tmp>/cfg` (absolute, on this machine): read there, noted; `cd /srv/h42mend-absent`:
    not a file here, named, and the server at TP 1 FAILs."""
    cfg = tmp_path / "cfg"
    path = _script(tmp_path, f"cd {cfg}\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve "
                   "meta-llama/Llama-3.1-70B-Instruct --config serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "PASS", row
    assert (f"{cfg}/serve.yaml (relative to the script's `cd {cfg}` (line 2)) read on this "
            "machine (the one running kvplan): the machine that runs the script must hold the "
            "same file") in row["notes"]
    path.write_text("cd /srv/h42mend-absent\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve "
                    "meta-llama/Llama-3.1-70B-Instruct --config serve.yaml\n")
    row = _row(runner, path)
    assert row["verdict"] == "FAIL", row
    assert ("--config serve.yaml: a path on the machine that runs the script, relative to the "
            "script's `cd /srv/h42mend-absent` (line 1), and /srv/h42mend-absent/serve.yaml is "
            "not a file on this machine (the one running kvplan); " + UNCHECKED + "run kvplan "
            "where the file is") in row["notes"]


def test_cd_to_a_directory_kvplan_cannot_name(runner: CliRunner, tmp_path: Path) -> None:
    """`cd $SERVE_DIR` (unset in the script): the file is not looked for beside the script."""
    path = _script(tmp_path, "cd $SERVE_DIR\nCUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve "
                   "meta-llama/Llama-3.1-70B-Instruct --config cfg/serve.yaml")
    row = _row(runner, path)
    assert row["verdict"] == "FAIL", row
    assert ("--config cfg/serve.yaml: a path on the machine that runs the script, relative to the "
            "directory the script's `cd $SERVE_DIR` (line 2) goes to, which kvplan does not know; "
            + UNCHECKED + "run kvplan where the file is") in row["notes"]
