"""A replica's GPUs over its nodes (task h59nodes): TP 8 x PP 2 = 16 GPUs stated on 3 nodes of 8
was accepted everywhere. The engines place tp x pp / nodes ranks on each node and refuse an
uneven split: vLLM 0.29.0 vllm/engine/arg_utils.py:2179 ("`--nnodes N` must evenly divide the
total world size"), SGLang 0.5.23 srt/arg_groups/validation_hook.py:179 (`assert (cfg.tp_size *
cfg.pp_size) % cfg.nnodes == 0, "tp_size must be divisible by number of nodes"`); vLLM over Ray
(no --nnodes) packs the ranks on whole nodes (vllm 0.29.0 vllm/v1/executor/ray_utils.py:655-656,
strategy="PACK"), so a pod of the group holds none. The LeaderWorkerSets are the corpus's
lws-vllm-gpu.yaml and lws-basic-sglang.yaml (sources in tests/assets/check/corpus/SOURCES.md)
with the group size (and the SGLang one's layout) changed here."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kvplan.capacity.parallel import check_parallelism
from kvplan.check import check_paths
from kvplan.errors import InputError
from kvplan.specs import load_model
from tests.conftest import ASSETS, invoke

LWS = ASSETS / "check" / "corpus" / "lws"
SGLANG_RULE = ("SGLang asserts (tp_size * pp_size) % nnodes == 0, 'tp_size must be divisible by "
               "number of nodes' (srt/arg_groups/validation_hook.py:179 in 0.5.23)")
VLLM_RULE = ("vLLM refuses it: `--nnodes` must evenly divide the total world size, data x "
             "pipeline x tensor parallel (vllm/engine/arg_utils.py:2179 in 0.29.0)")
UNEVEN = ("a replica of 16 GPUs (tensor parallelism 8 x pipeline parallelism 2) does not split "
          "evenly over 3 nodes: vLLM refuses --nnodes 3 (it must evenly divide the world size, "
          "vllm/engine/arg_utils.py:2179 in 0.29.0) and SGLang asserts (tp_size * pp_size) % "
          "nnodes == 0 (srt/arg_groups/validation_hook.py:179 in 0.5.23); over Ray the ranks fill "
          "whole nodes and GPUs of the rest hold none; state 2 nodes (8 GPUs each), or a tensor x "
          "pipeline size that 3 divides")


def _one(path: Path, gpu: str | None = "h100") -> object:
    [outcome] = check_paths([str(path)], default_gpu=gpu).outcomes
    return outcome


def test_the_core_rule_refuses_a_replica_its_nodes_do_not_divide() -> None:
    model = load_model("llama-3.1-405b")
    with pytest.raises(InputError) as err:
        check_parallelism(model, 8, pp=2, nodes=3)
    assert str(err.value) == UNEVEN
    check_parallelism(model, 8, pp=2, nodes=2)  # 8 a node
    check_parallelism(model, 8, pp=2, nodes=4)  # 4 a node: even, accepted
    # TP 2 x PP 3 on 4 nodes of 4: the fewest nodes that divide 6 with at most 4 a node is 2
    with pytest.raises(InputError, match=r"over 4 nodes: .* state 2 nodes \(3 GPUs each\)"):
        check_parallelism(model, 2, pp=3, nodes=4, gpus_per_node=4)


def test_size_with_tp_8_pp_2_on_3_nodes_exits_2(runner: CliRunner) -> None:
    args = ["size", "llama-3.1-405b", "--gpu", "h100-sxm-80gb", "--tp", "8", "--pp", "2",
            "--max-model-len", "8192"]
    bad = invoke(runner, *args, "--nodes", "3")
    assert bad.exit_code == 2
    assert bad.output.replace("\n", "") == f"error: command line: parallel.nodes (--nodes): {UNEVEN}"
    assert invoke(runner, *args, "--nodes", "2").exit_code == 0


def test_a_kvplan_file_is_refused_on_its_nodes_line(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("apiVersion: kvplan/v1\nname: big\nmodel: llama-3.1-405b\nhardware:\n"
                    "  gpu: h100-sxm-80gb\n  count: 48\nparallel:\n  tensor: 8\n  pipeline: 2\n"
                    "  nodes: 3\nengine:\n  name: vllm\n  max_model_len: 8192\ntraffic:\n"
                    "  peak_concurrent_users: 10\n")
    out = _one(path, None)
    assert (out.verdict, out.line) == ("ERROR", 10)
    assert [(p.field, p.message) for p in out.problems] == [("parallel.nodes", UNEVEN)]
    path.write_text(path.read_text().replace("nodes: 3", "nodes: 2"))
    assert _one(path, None).verdict == "PASS"


@pytest.mark.parametrize(("serve", "rule"), [
    ("vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 "
     "--pipeline-parallel-size 2 --nnodes {n} --node-rank 0 --max-model-len 8192", VLLM_RULE),
    ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-405B-Instruct --tp 8 "
     "--pp-size 2 --nnodes {n} --node-rank 0 --context-length 8192", SGLANG_RULE),
])
def test_a_scripts_nnodes_3_under_16_gpus_is_the_engines_refusal(tmp_path: Path, serve: str,
                                                                 rule: str) -> None:
    path = tmp_path / "serve.sh"
    path.write_text(serve.format(n=3) + "\n")
    out = _one(path)
    assert (out.verdict, out.line) == ("FAIL", 1)
    assert out.reasons == [
        "the engine refuses it: --nnodes 3 does not divide the engine's 16 GPUs (tensor 8 x "
        f"pipeline 2): {rule}; --nnodes 2, 4, 8 or 16 divides them"]
    path.write_text(serve.format(n=2) + "\n")
    assert _one(path).verdict == "PASS"


def test_an_sglang_group_of_3_pods_for_16_gpus_fails(tmp_path: Path) -> None:
    """lws-basic-sglang.yaml at size 3, TP 8 x PP 2 on pods of 8 GPUs: LWS sets
    $(LWS_GROUP_SIZE) to 3, and SGLang asserts 16 % 3 == 0."""
    text = (LWS / "lws-basic-sglang.yaml").read_text()
    text = text.replace("size: 2", "size: 3").replace('nvidia.com/gpu: "1"', 'nvidia.com/gpu: "8"')
    text = text.replace('- "2" # Size of Tensor Parallelism',
                        '- "8"\n              - --pp-size\n              - "2"')
    text = text.replace("Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-405B-Instruct")
    path = tmp_path / "lws.yaml"
    path.write_text(text)
    out = _one(path)
    assert (out.verdict, out.line) == ("FAIL", 39)  # the leader's --nnodes
    assert out.reasons == [
        "the engine refuses it: --nnodes 3 does not divide the engine's 16 GPUs (tensor 8 x "
        f"pipeline 2): {SGLANG_RULE}; --nnodes 2, 4, 8 or 16 divides them"]
    path.write_text(text.replace("size: 3", "size: 2"))
    assert _one(path).verdict == "PASS"


def test_a_vllm_ray_group_of_3_pods_for_16_gpus_says_a_pod_holds_no_rank(tmp_path: Path) -> None:
    """lws-vllm-gpu.yaml (vLLM over Ray, TP 8 x PP 2 on pods of 8) at size 3: Ray packs the 16
    ranks on 2 pods; it starts, with the third pod's 8 GPUs idle, said."""
    path = tmp_path / "lws.yaml"
    path.write_text((LWS / "lws-vllm-gpu.yaml").read_text().replace("size: 2", "size: 3"))
    out = _one(path)
    assert out.verdict == "PASS"
    assert "8 of 24 GPUs per engine unused" in out.notes
    assert ("a group of 3 pods of 8 GPUs runs one engine of 16 GPUs (tensor 8 x pipeline 2): "
            "Ray places its ranks on 2 of them, and 1 pod(s) hold no rank") in out.notes
