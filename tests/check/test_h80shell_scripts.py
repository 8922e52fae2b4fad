"""Five public launch scripts gathered for task h80shell (tests/assets/check/scripts/h80shell:
SOURCES.md names each source, EXPECTED.md the verdicts written before kvplan read them, and
what it said). Tuning: zeuscsc, idx59686143008, idx743329648; held out: idx60740656321,
idx61187286933. Each test pins what kvplan says now, gaps included, so a change shows."""

from __future__ import annotations

import pytest

from kvplan.check import check_paths
from kvplan.check.manifests.shell_quotes import unclosed_quote
from tests.conftest import ASSETS

HERE = ASSETS / "check" / "scripts" / "h80shell"


def _one(name: str):  # noqa: ANN202 - an Outcome
    [outcome] = check_paths([str(HERE / name)]).outcomes
    return outcome


@pytest.mark.parametrize("path", sorted(HERE.glob("*.sh")), ids=lambda p: p.name)
def test_bash_closes_every_quote(path) -> None:  # noqa: ANN001
    assert unclosed_quote(path.read_text(encoding="utf-8")) is None  # `bash -n` passes on each


def test_the_ulimit_values_are_no_image() -> None:
    """`--ulimit memlock=-1 --ulimit stack=67108864` before vllm/vllm-openai:v0.7.2: the image is
    read (its entrypoint takes the options); the ERROR is the bitsandbytes weights', line 9."""
    o = _one("zeuscsc-start-vllm.sh")
    assert (o.verdict, o.kind, o.line) == ("ERROR", "docker_run", 9)
    assert o.problems[0].message.startswith("'bitsandbytes' weights are not modelled")


def test_the_cli_main_module_is_read_as_vllm_serve() -> None:
    """`python3 -m vllm.entrypoints.cli.main serve` is `vllm serve` (the `vllm` console script is
    vllm.entrypoints.cli.main:main, whose subcommand `serve` it runs; task h82shell). Before, a
    gap kept visible: "none of its commands starts a server kvplan reads" at line 1. Now the
    server is read, and refused for its model, set only by `source ./common_env.sh`."""
    o = _one("idx59686143008-dspark-serve.sh")
    assert (o.verdict, o.line) == ("ERROR", 15)
    assert ": the script does not set TARGET_MODEL; set it in the script" in o.problems[0].message


def test_a_server_in_a_function_with_arithmetic_is_refused_for_the_function() -> None:
    o = _one("idx743329648-function-start-server.sh")
    assert (o.verdict, o.line) == ("ERROR", 17)
    assert o.problems[0].message.startswith(
        "this `vllm serve` is inside the function `start_server` (line 12)")


def test_held_out_docker_run_with_ulimits_names_its_model() -> None:
    o = _one("idx60740656321-qwen36-docker-ulimit.sh")
    assert (o.verdict, o.kind, o.line) == ("ERROR", "docker_run", 2)
    assert "'Qwen/Qwen3.6-27B' is not in the catalog" in o.problems[0].message
    assert "--gpus all, CUDA_VISIBLE_DEVICES=0 in the container: 1 GPU(s)" in o.notes
    # `--disable-access-log-for-endpoints /health` takes its value (task h82shell; before, a
    # false "refused too": `/health` left over, on a command that ran)
    assert len(o.problems) == 1 and not any("/health" in p.message for p in o.problems)


def test_held_out_podman_cdi_device_hands_over_every_gpu() -> None:
    """`--device nvidia.com/gpu=all` hands over every GPU (task h82shell; before, a held-out gap
    reported and left: "the docker run hands the container no GPU"). The ERROR left is the one a
    correct reader gives: the weights' quantization, before the model path."""
    o = _one("idx61187286933-podman-voipmonitor.sh")
    assert (o.verdict, o.kind) == ("ERROR", "docker_run")
    assert all("no GPU" not in p.message for p in o.problems)
    assert o.problems[0].message.startswith("'compressed-tensors' weights are not modelled")
