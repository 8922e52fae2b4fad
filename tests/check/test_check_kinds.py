"""The JSON `kind` of each outcome says what kind of file it was read from (task h42script):
`kvplan` (a kvplan/v1 document), `kubernetes` (a Kubernetes object or chart values), `compose`
(a docker-compose service), `script` (a server a shell script starts on its machine) and
`docker_run` (a `docker run` line of a script); before, all three of the last were
`kubernetes`. Each kind's messages are in its own words: no node label, annotation, pod or
nvidia.com/gpu limit where the file has none."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci, flat  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import ASSETS, invoke

CHECK = ASSETS / "check"


def rows(runner: CliRunner, *paths: Path | str, args: tuple[str, ...] = ()) -> list[dict]:
    result = invoke(runner, "check", *map(str, paths), "-f", "json", *args)
    return json.loads(result.output)["results"]


def text(runner: CliRunner, path: Path, *args: str) -> str:
    return flat(invoke(runner, "check", str(path), *args)).output


def test_each_kind_of_file_has_its_own_kind(runner: CliRunner) -> None:
    got = rows(runner, CHECK / "kvplan" / "fail-max-num-seqs.yaml",
               CHECK / "k8s" / "tp-exceeds-gpus.yaml",
               CHECK / "qa" / "selfhost-vllm-compose.yml",
               CHECK / "scripts" / "synthetic" / "loop-and-function.sh",
               CHECK / "scripts" / "synthetic" / "docker-devices.sh")
    assert [(Path(r["file"]).name, r["line"], r["kind"]) for r in got] == [
        ("fail-max-num-seqs.yaml", 7, "kvplan"),
        ("tp-exceeds-gpus.yaml", 23, "kubernetes"),
        ("selfhost-vllm-compose.yml", 26, "compose"),
        ("loop-and-function.sh", 5, "script"),  # `vllm serve` in a for loop: refused
        ("loop-and-function.sh", 9, "docker_run"),  # `docker run` in a function: refused
        ("docker-devices.sh", 4, "docker_run"),
    ]


def test_a_script_short_of_gpus_names_cuda_visible_devices(runner: CliRunner,
                                                          tmp_path: Path) -> None:
    """TP 2 x PP 1 = 2 GPUs; CUDA_VISIBLE_DEVICES=0 lists 1. It read `nvidia.com/gpu: ... (
    nvidia.com/gpu 1 x 1 pod(s))`, a pod's limit the script does not have."""
    path = tmp_path / "serve.sh"
    path.write_text("export CUDA_VISIBLE_DEVICES=0\n"
                    "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n")
    (row,) = rows(runner, path)
    assert row["kind"] == "script" and row["verdict"] == "ERROR"
    assert row["errors"] == [{"field": "CUDA_VISIBLE_DEVICES", "line": 2, "message":
                              "tensor 2 needs 2 GPUs but the engine has 1 "
                              "(CUDA_VISIBLE_DEVICES=0)"}]


def test_docker_run_and_compose_short_of_gpus_in_their_words(runner: CliRunner,
                                                             tmp_path: Path) -> None:
    """The same TP 2 on 1 GPU: `--gpus 1` for docker run, a reservation of count 1 for compose."""
    script = tmp_path / "run.sh"
    script.write_text("docker run --gpus 1 vllm/vllm-openai:v0.8.5 --model "
                      "Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n")
    (row,) = rows(runner, script)
    assert (row["kind"], row["errors"][0]["field"], row["errors"][0]["message"]) == (
        "docker_run", "--gpus", "tensor 2 needs 2 GPUs but the engine has 1 (--gpus 1)")
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  a:\n    image: vllm/vllm-openai:v0.8.5\n"
        "    command: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, "
        "capabilities: [gpu]}]}}}\n")
    (row,) = rows(runner, compose)
    assert (row["kind"], row["errors"][0]["field"], row["errors"][0]["message"]) == (
        "compose", "deploy", "tensor 2 needs 2 GPUs but the engine has 1 (count 1 in "
        "deploy.resources.reservations.devices)")


def test_no_gpu_named_advice_fits_the_kind(runner: CliRunner) -> None:
    """A script or compose file has no node label: the WARN says --gpu or the side file."""
    out = text(runner, CHECK / "scripts" / "synthetic" / "docker-devices.sh")
    assert "(name one with --gpu, or `gpu:` in a side file docker-devices.kvplan.yaml)" in out
    assert "node label" not in out
    # docker run asks for NVIDIA GPUs with --gpus, not nvidia.com/gpu or a compose reservation
    assert "note: starts on lists NVIDIA GPUs only: the container asks for NVIDIA GPUs (--gpus)" \
        in out
    out = text(runner, CHECK / "qa" / "warehouse-mistral-compose.yml")
    assert "(name one with --gpu, or `gpu:` in a side file warehouse-mistral-compose.kvplan.yaml)" \
        in out
    assert ("starts on lists NVIDIA GPUs only: the service asks for NVIDIA GPUs (a device "
            "reservation, `gpus:` or runtime: nvidia)") in out
    (row,) = rows(runner, CHECK / "scripts" / "synthetic" / "docker-devices.sh")
    # JSON carries the WARN's phrase, and no GPU: the file names none (it read h100-sxm-80gb,
    # the placeholder it is planned on, for a FAIL before the arithmetic)
    assert row["summary"].startswith("no GPU named; starts on: ") and row["gpu"] is None


def test_a_pip_scripts_unknown_option_speaks_of_the_installed_release(runner: CliRunner) -> None:
    """rare-deploy-llama31-8b.sh runs `python3 -m vllm.entrypoints.openai.api_server` outside a
    container: there is no image, so the note says the script does not name the release."""
    out = text(runner, CHECK / "scripts" / "rare-deploy-llama31-8b.sh")
    assert ("note: vLLM 0.34.0 has no option --swap-space; the script does not name the "
            "installed vLLM release: not checked") in out
    assert "the image" not in out


def test_compose_model_advice_names_the_side_file_not_an_annotation(runner: CliRunner) -> None:
    """taoari/docker-compose's jsincn/phi-3-mini-128k-instruct-awq is not in the catalog; a compose
    file has no annotations, so the way to name the model is `model:` in its side file."""
    (row,) = rows(runner, CHECK / "qa" / "phi3-awq-vllm-compose.yml")
    message = row["errors"][0]["message"]
    assert "or set `model:` in a side file phi3-awq-vllm-compose.kvplan.yaml to a catalog name" \
        in message
    assert "annotation" not in message


def test_a_refused_fail_carries_its_reasons_in_json(runner: CliRunner) -> None:
    """misspelled.sh: vLLM refuses --gpu-memory-utilisation before any arithmetic; the JSON
    said FAIL with no numbers, no fixes and no reason."""
    (row,) = rows(runner, CHECK / "scripts" / "synthetic" / "misspelled.sh")
    assert row["verdict"] == "FAIL" and row["kind"] == "docker_run"
    assert row["reasons"] == ["the engine refuses it: vLLM has no option "
                              "--gpu-memory-utilisation; did you mean --gpu-memory-utilization? "
                              "(a letter or two from it: no release accepts that spelling)"]
    assert row["gpu"] is None  # no GPU named: not the placeholder it is planned on


SIDE = ("traffic:\n  peak_concurrent_users: 400\n  context_tokens: {mean: 4000}\n")


def test_more_replicas_in_a_scripts_words(runner: CliRunner, tmp_path: Path) -> None:
    """A script starts one server: more replicas are more servers like it, not `replicas:` (a
    field the script does not have). Qwen2.5-7B on one L4 holds 23 users (the verdict line; 24
    until task h51blocks booked vLLM 0.21+'s torch blocks, 0.097 GiB more weights); 400
    required: ceil(400 / 23) = 18 servers, 18 x 23 = 414 users on 18 GPUs."""
    (tmp_path / "cap.sh").write_text("export CUDA_VISIBLE_DEVICES=0\nvllm serve "
                                     "Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    (tmp_path / "cap.kvplan.yaml").write_text(SIDE)
    out = text(runner, tmp_path / "cap.sh", "--gpu", "l4")
    assert "holds 23 users < 400 required" in out
    assert ("1 -> 18 servers like this one (each on its own CUDA_VISIBLE_DEVICES) (holds "
            "414 users on 18 GPU(s))") in out
    assert "replicas:" not in out


def test_more_replicas_in_compose_and_docker_run_words(runner: CliRunner, tmp_path: Path) -> None:
    """The same server and load (26 users a replica, 16 replicas for 400): compose scales with
    deploy.replicas, a `docker run` line with more containers."""
    (tmp_path / "run.sh").write_text("docker run --gpus 1 vllm/vllm-openai:v0.8.5 --model "
                                     "Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    (tmp_path / "run.kvplan.yaml").write_text(SIDE)
    (row,) = rows(runner, tmp_path / "run.sh", args=("--gpu", "l4"))
    per = row["users_per_replica"]
    n = -(-400 // per)  # ceil
    (more,) = [f for f in row["fixes"] if f["change"] == "more_gpus"]
    assert more["text"] == (f"1 -> {n} containers like this one (each with its own "
                                       f"--gpus) (holds {n * per:,} users on {n} GPU(s))")
    (tmp_path / "compose.yaml").write_text(
        "services:\n  a:\n    image: vllm/vllm-openai:v0.8.5\n"
        "    command: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '8192']\n"
        "    deploy: {resources: {reservations: {devices: [{driver: nvidia, count: 1, "
        "capabilities: [gpu]}]}}}\n")
    (tmp_path / "compose.kvplan.yaml").write_text(SIDE)
    (row,) = rows(runner, tmp_path / "compose.yaml", args=("--gpu", "l4"))
    per = row["users_per_replica"]
    n = -(-400 // per)
    (more,) = [f for f in row["fixes"] if f["change"] == "more_gpus"]
    assert more["text"] == (f"deploy.replicas: 1 -> {n} (holds {n * per:,} users on "
                                       f"{n} GPU(s))")


def test_a_compose_file_whose_server_is_in_its_image_says_so(runner: CliRunner) -> None:
    """Given by name, a compose file whose vLLM service kvplan cannot read read "nothing that
    runs vLLM, SGLang or TensorRT-LLM in this file", though its service is named for vLLM.
    MichaelMcCulloch/WikiDex builds its image and gives no command; scilifelab's voxtral service
    passes only `--config FILE` to a locally built image."""
    out = text(runner, CHECK / "qa" / "wikidex-vllm-compose.yml")
    assert ("wikidex-vllm-compose.yml:1: service vllm_inference_server looks like vLLM (its "
            "name or image) but has no `command:` or `entrypoint:`: its server starts from the "
            "entrypoint and CMD of the image (built from `.`), which kvplan cannot see.") in out
    out = text(runner, CHECK / "config-file" / "scilifelab-voxtral" / "compose.yaml")
    assert ("service voxtral-small-24b looks like vLLM (its name or image) but its command "
            "`--config /app/vllm-config.yaml` names no model and no server kvplan reads, and the "
            "entrypoint of image vllm-voxtral:latest (built from `.`), which would start the "
            "server, is not in this file") in out
    assert "nothing that runs" not in out
