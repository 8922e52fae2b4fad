"""Task h56review: defects found by running the SkyPilot task reader on odd inputs
(tests/assets/check/synthetic/skypilot, synthetic files written for each defect)."""

from __future__ import annotations

from pathlib import Path

from kvplan.check import check_paths
from kvplan.check.formats import verdict_lines

SYN = Path(__file__).parents[1] / "assets" / "check" / "synthetic" / "skypilot"


def _lines(path: Path) -> list[str]:
    report = check_paths([str(path)])
    return [line for o in report.outcomes for line in verdict_lines(o, path=False)]


def test_a_docker_run_is_on_the_tasks_accelerators() -> None:
    """`docker run --gpus all vllm/vllm-openai ... --tensor-parallel-size 2` in `run` on H100:1:
    first read as a GPU named nowhere (WARN listing every catalog GPU, 'name one with --gpu');
    the GPU is the candidate's and `all` is the node's 1 GPU, too few for TP 2."""
    assert _lines(SYN / "docker-run.yaml") == [
        "ERROR line 7: --gpus: tensor 2 needs 2 GPUs but the engine has 1 (--gpus all)"]
