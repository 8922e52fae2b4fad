"""Task readfix, item 1: an Ascend (Huawei NPU) LeaderWorkerSet's ERROR never said the device was
an NPU. tests/assets/check/corpus/lws/kthene-lws.yaml (Potabk/kthene, SOURCES.md) runs vLLM's
Ascend image with `sh -c "tail -f /dev/null"` on `huawei.com/ascend-1980: 1`: its only line was
"this LeaderWorkerSet runs vLLM, but not through a server command kvplan reads". The resource is
now named as an NPU kvplan has no profile for, with what to do, first; and `kvplan.io/skip`, the
annotation that line points to, leaves such a workload out (it was the same ERROR)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.check.no_ci import _not_in_ci  # noqa: F401 - autouse: no folding at 80 columns
from tests.conftest import invoke

CORPUS = Path(__file__).parents[1] / "assets" / "check" / "corpus"
LWS = CORPUS / "lws" / "kthene-lws.yaml"
TODO = ("kvplan cannot check this deployment: plan the model on a GPU kvplan models (kvplan size "
        'MODEL --gpu GPU), or leave the workload out with the annotation kvplan.io/skip: "true"')


def _lws(tmp_path: Path, resource: str, command: str, skip: bool = False) -> Path:
    """The kthene file with its resource and leader command replaced (and a skip annotation)."""
    text = LWS.read_text().replace("huawei.com/ascend-1980", resource)
    text = text.replace("              - sh\n              - -c\n              - |\n"
                        "                tail -f /dev/null\n", command, 1)
    if skip:
        text = text.replace("  namespace: vllm-project\n", "  namespace: vllm-project\n"
                            "  annotations:\n    kvplan.io/skip: \"true\"\n", 1)
    f = tmp_path / "lws.yaml"
    f.write_text(text)
    return f


SERVE = "              - vllm\n              - serve\n              - Qwen/Qwen3-8B\n"
TAIL = "              - sh\n              - -c\n              - |\n                tail -f /dev/null\n"


def test_the_kthene_lws_names_its_npu(runner: CliRunner) -> None:
    res = invoke(runner, "check", str(LWS))
    assert res.exit_code == 2
    lines = res.output.splitlines()
    assert lines[1] == (
        "ERROR line 41: huawei.com/ascend-1980: huawei.com/ascend-1980 is a Huawei Ascend NPU, "
        "which kvplan has no profile for (it sizes NVIDIA and AMD GPUs; this server asks for "
        f"huawei.com/ascend-1980: 1); {TODO}")
    assert lines[2].startswith("ERROR line 1: command: this LeaderWorkerSet runs vLLM, but not "
                               "through a server command kvplan reads")
    assert lines[3] == "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR"


def test_the_device_plugins_ascend910_served_or_not(runner: CliRunner, tmp_path: Path) -> None:
    for command, at in ((SERVE, 40), (TAIL, 41)):
        f = _lws(tmp_path, "huawei.com/Ascend910", command)
        [r] = json.loads(invoke(runner, "check", str(f), "-f", "json").output)["results"]
        assert r["verdict"] == "ERROR"
        first = r["errors"][0]
        assert (first["field"], first["line"]) == ("huawei.com/Ascend910", at)
        assert first["message"].startswith("huawei.com/Ascend910 is a Huawei Ascend NPU, which "
                                           "kvplan has no profile for")


def test_skip_leaves_the_workload_out(runner: CliRunner, tmp_path: Path) -> None:
    """A folder walk counts a skipped workload's file among those without a deployment; before,
    the workload came back as "runs vLLM, but not through a server command kvplan reads", read
    server or not (on NVIDIA GPUs too). Beside it the kthene file itself (its ERROR), so the
    folder has one result and the gate reads it."""
    (tmp_path / "other.yaml").write_text((CORPUS / "lws" / "kthene-lws.yaml").read_text())
    for resource in ("huawei.com/Ascend910", "nvidia.com/gpu"):
        for command in (SERVE, TAIL):
            _lws(tmp_path, resource, command, skip=True)
            res = invoke(runner, "check", str(tmp_path))
            assert res.output.splitlines()[-1] == (
                "1 checked in 1 file(s): 0 PASS, 0 FAIL, 1 ERROR; 1 YAML file(s) without a "
                "deployment skipped"), res.output
            assert "lws.yaml" not in res.output.replace("other.yaml", "")
