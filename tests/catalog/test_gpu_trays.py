"""GB200 / GB300 NVL72: a compute tray (one host) holds 4 GPUs, the rack's NVLink domain joins 72
(task h55gaps; the citations are in hardware_specs/gb200.yaml and gb300.yaml). Tensor
parallelism past one tray is refused without a node count, as on any GPU, and the refusal says
that the tray holds 4 and that the NVLink domain lets it span trays with one."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.parallel import check_parallelism
from kvplan.cli import app
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.specs.validators import HardwareSpec as HardwareModel

TRAY_8 = ("tensor parallelism 8 spans more than one node of 4 GPUs: one compute tray (one host) "
          "holds 4 GPUs, and the NVLink domain of 72 GPUs lets tensor parallelism span 2 trays "
          "as one multi-node engine; state the node count (2), or use --tp 4 or less with more "
          "replicas")


@pytest.mark.parametrize("name", ["gb200", "gb300"])
def test_a_tray_holds_four_gpus_of_a_72_gpu_nvlink_domain(name: str) -> None:
    gpu = load_hardware(name)
    assert (gpu.gpus_per_node, gpu.nvlink_domain_gpus) == (4, 72)
    llama = load_model("llama-3.1-70b")  # 64 heads, 8 KV heads: TP 8 shards it
    with pytest.raises(InputError) as err:
        size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8))
    assert str(err.value) == TRAY_8
    # 2 trays of 4 hold TP 8; TP 4 is one tray
    two = size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8, nodes=2))
    one = size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=4))
    assert (two.request.gpus_per_replica, one.request.gpus_per_replica) == (8, 4)
    assert two.users_per_replica > one.users_per_replica > 0
    # one tray stated for TP 8: ceil(8 / 4) = 2 needed
    with pytest.raises(InputError, match="^tensor parallelism 8 needs more than 1 node of 4 GPUs; "
                                         "state 2 nodes, or use --tp 4 or less$"):
        size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8, nodes=1))


def test_past_the_nvlink_domain_the_plain_refusal_stays() -> None:
    # TP 128 > 72: beyond the NVLink domain the message is the one every GPU gets
    llama = load_model("llama-3.1-405b")  # 128 heads, 8 KV heads
    with pytest.raises(InputError) as err:
        check_parallelism(llama, 128, gpus_per_node=4, nvlink_domain=72)
    assert str(err.value) == ("tensor parallelism 128 spans more than one node of 4 GPUs; state "
                              "the node count, or use --tp 4 or less with more replicas")
    # and a GPU without a domain beyond the server is unchanged
    with pytest.raises(InputError, match="^tensor parallelism 16 spans more than one node of 8 "
                                         "GPUs; state the node count"):
        check_parallelism(llama, 16)


def test_the_cli_says_what_to_do() -> None:
    res = CliRunner().invoke(app, ["size", "llama-3.1-70b", "--gpu", "gb200", "--tp", "8"])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: command line: parallel.tensor (--tp): {TRAY_8}"
    res = CliRunner().invoke(app, ["size", "llama-3.1-70b", "--gpu", "gb300", "--tp", "8",
                                   "--nodes", "2", "--context", "8192"])
    assert res.exit_code == 0, res.output
    assert "TP 8" in res.output


def test_a_domain_no_larger_than_the_server_is_refused() -> None:
    base = load_hardware("gb200").model_dump()
    with pytest.raises(ValidationError, match=r"nvlink_domain_gpus \(4\) must exceed "
                                              r"gpus_per_node \(4\)"):
        HardwareModel.model_validate({**base, "nvlink_domain_gpus": 4})
    assert HardwareModel.model_validate({**base, "nvlink_domain_gpus": 8}).nvlink_domain_gpus == 8


def test_the_tray_hint_counts_the_replica_tensor_times_pipeline() -> None:
    """--nodes is the servers one replica spans (cli/options.py: "servers one replica spans";
    kvplan.check.startup places gpus_per_replica / nodes GPUs on each server): TP 8 x PP 2 is a
    replica of 16 GPUs, 4 trays of 4, where the hint said 2 (task h58launch; 2 trays would put 8
    GPUs on a host of 4). TP alone is unchanged (2), and 4 trays stated plan the replica."""
    llama = load_model("llama-3.1-70b")
    gpu = load_hardware("gb200")
    with pytest.raises(InputError) as err:
        size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8, pp=2))
    assert str(err.value) == (
        "tensor parallelism 8 spans more than one node of 4 GPUs: one compute tray (one host) "
        "holds 4 GPUs, and the NVLink domain of 72 GPUs lets tensor parallelism span 2 trays as "
        "one multi-node engine; with pipeline parallelism 2 a replica of 16 GPUs spans 4 trays; "
        "state the node count (4), or use --tp 4 or less with more replicas")
    with pytest.raises(InputError, match="^tensor parallelism 8 needs more than 1 node of 4 GPUs; "
                                         "state 4 nodes, or use --tp 4 or less$"):
        size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8, pp=2, nodes=1))
    four = size(SizeRequest(model=llama, gpu=gpu, context_tokens=8192, tp=8, pp=2, nodes=4))
    assert four.request.gpus_per_replica == 16 and four.users_per_replica > 0


def test_a_stated_node_count_must_hold_the_whole_replica() -> None:
    """TP 8 x PP 2 is 16 GPUs: one H100 server of 8 cannot hold it, two can; the refusal is
    reported on --nodes, the count that is short."""
    args = ["size", "llama-3.1-405b", "--gpu", "h100", "--tp", "8", "--pp", "2"]
    res = CliRunner().invoke(app, [*args, "--nodes", "1"])
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: command line: parallel.nodes (--nodes): a replica of 16 GPUs (tensor "
        "parallelism 8 x pipeline parallelism 2) needs more than 1 node of 8 GPUs; state 2 "
        "nodes, or use fewer GPUs a replica")
    ok = CliRunner().invoke(app, [*args, "--nodes", "2"])
    assert ok.exit_code == 0, ok.output
    assert "TP 8 x PP 2" in ok.output
