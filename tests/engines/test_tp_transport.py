"""The tensor-parallel transport as an input (issue #13): vLLM's TP non-torch term by transport.

nvlink books the term fitted on logs 62 and 75; pcie-p2p the PCIe term with its low end from
NCCL's P2P receive buffers (init.cc: LL 524,288 + LL128 4,915,200 + SIMPLE 4,194,304 B per
channel and peer, 2 channels at least) and custom all-reduce's two 8 MiB buffers at TP 2
(vLLM 0.10.1.1 custom_all_reduce.py); host the one-GPU growth (NCCL's SHM and net buffers in
host memory, custom all-reduce off). Unset keeps the GPU label's choice.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from kvplan.calibrate.compare import calibrate_files, headline
from kvplan.calibrate.parse import parse_file
from kvplan.calibrate.resolve import vllm_transport
from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_nontorch import (
    CUSTOM_AR_BYTES,
    NCCL_P2P_CONN_BYTES,
    NON_TORCH_V1_TP_PCIE_P2P,
    non_torch,
)
from kvplan.engines.vllm_series import flavour
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, MIB, DType
from tests.conftest import explain_steps, invoke

LOGS = Path(__file__).parent.parent / "assets" / "logs"
V1 = flavour("0.10.1.1")
NVLINK_BEST = 2_233_382_993  # floor(2.08 x 2^30), logs 62 and 75
# log 128's run: Qwen2-7B, TP 2, A100 80GB (SXM4 spec), vLLM 0.10.1.1, 16,384 tokens, 0.25
RUN_128 = ("size", "qwen2-7b", "--gpu", "a100-80gb", "--tp", "2", "--engine", "vllm",
           "--engine-version", "0.10.1.1", "--context", "16384", "--memory-utilization", "0.25",
           "-f", "json")


def test_the_source_constants() -> None:
    # NCCL init.cc DEFAULT_LL_BUFFSIZE + DEFAULT_LL128_BUFFSIZE + DEFAULT_BUFFSIZE
    assert NCCL_P2P_CONN_BYTES == 9_633_792
    # custom all-reduce: meta (meta_size + 8 MiB) and the IPC buffer (8 MiB), meta_size not counted
    assert CUSTOM_AR_BYTES == 16 * MIB
    # pcie-p2p: 20 MiB (one-GPU low) + 2 channels x 9,633,792 = 40,239,104 B; best and high log 24
    assert NON_TORCH_V1_TP_PCIE_P2P == (GIB, 40_239_104, 2 * GIB)


@pytest.mark.parametrize(("transport", "tp", "custom_ar", "want"), [
    (None, 2, True, (NVLINK_BEST, 3 * GIB // 2, 5 * GIB // 2)),  # the label's NVLink term
    ("nvlink", 2, True, (NVLINK_BEST, 3 * GIB // 2, 5 * GIB // 2)),
    # fitted with custom all-reduce on: less 16,777,216 B
    ("nvlink", 2, False, (2_216_605_777, 1_593_835_520, 2_667_577_344)),
    (None, 2, False, (2_216_605_777, 1_593_835_520, 2_667_577_344)),
    # PCIe at TP 2 runs custom all-reduce: + 16 MiB (1,090,519,040; 57,016,320; 2,164,260,864)
    ("pcie-p2p", 2, True, (1_090_519_040, 57_016_320, 2_164_260_864)),
    ("pcie-p2p", 2, False, (GIB, 40_239_104, 2 * GIB)),
    ("pcie-p2p", 4, True, (GIB, 40_239_104, 2 * GIB)),  # "more than two PCIe-only GPUs": off
    ("host", 2, True, (70 * MIB, 20 * MIB, GIB // 2)),  # the one-GPU growth
    ("host", 8, False, (70 * MIB, 20 * MIB, GIB // 2)),
])
def test_the_term_by_transport(transport, tp, custom_ar, want) -> None:  # noqa: ANN001
    nt, how = non_torch(V1, tp, 0, False, nvlink=True, transport=transport, custom_ar=custom_ar)
    assert (nt.best, nt.low, nt.high) == want
    if transport is None:
        assert "transport not stated" in how
    else:
        assert f"over {transport} (stated: " in how


def test_the_words_explain_prints_for_each_case() -> None:
    _, unset_pcie = non_torch(V1, 2, 0, False, nvlink=False)
    assert "not stated: give --tp-transport" in unset_pcie
    _, host_off = non_torch(V1, 2, 0, False, transport="host", custom_ar=False)
    assert "custom all-reduce books nothing here anyway" in host_off
    _, one = non_torch(V1, 1, 0, False, transport="host")
    assert one.endswith("(tp_transport host: no tensor parallelism, so no TP buffers)")
    # V0 before 0.6.5 (0.6.6 books V1's TP table by transport since task h39v066)
    v0, v0_how = non_torch(flavour("0.6.4"), 2, 0, False, transport="host")
    assert v0.best == GIB // 2 and "not modelled for V0" in v0_how
    _, v0_off = non_torch(flavour("0.6.4"), 2, 0, False, custom_ar=False)
    assert v0_off.endswith("with TP buffers (--disable-custom-all-reduce not modelled for V0)")


def test_the_pool_moves_by_the_term_difference() -> None:
    # log 128's run: the NVLink term (label) against host: 2,233,382,993 - 73,400,320 =
    # 2,159,982,673 B more KV; Qwen2-7B at TP 2 holds 28 layers x 2 KV heads x 128 x 2 x 2 B =
    # 28,672 B a token, 458,752 B a 16-token block: floor(2,159,982,673 / 458,752) = 4,708 blocks
    # (the two pools' own floors may add one), 75,328 tokens. Task h39rope books vLLM's rotary
    # cos/sin cache with the weights of both (32,768 positions x 128 x 2 B = 8,388,608 B, 18.3
    # blocks): 451,824 and 376,480 tokens, 4,709 blocks apart (the floors add one)
    model, gpu = load_model("qwen2-7b"), load_hardware("a100-80gb")
    req = SizeRequest(model=model, gpu=gpu, context_tokens=16384, kv_dtype=DType.bf16, tp=2)
    out = {}
    for t in (None, "host"):  # log 128's source samples with FlashInfer (its line 28)
        s = EngineSettings(engine=Engine.vllm, version="0.10.1.1",
                           memory_fraction=Fraction(1, 4), tp_transport=t,
                           topk_topp_sampler="flashinfer")
        out[t] = run_engine(req, s)
    assert out[None].non_torch_bytes - out["host"].non_torch_bytes == 2_159_982_673
    assert (out["host"].kv_cache_tokens, out[None].kv_cache_tokens) == (451_824, 376_480)
    assert (out["host"].kv_cache_tokens - out[None].kv_cache_tokens) // 16 == 4_709


def test_cli_sets_the_transport(runner) -> None:  # noqa: ANN001
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 422,240 -> 421,952
    rows = {}
    for extra in ((), ("--tp-transport", "host"), ("--tp-transport", "nvlink"),
                  ("--tp-transport", "pcie-p2p"),
                  ("--tp-transport", "pcie-p2p", "--disable-custom-all-reduce")):
        res = invoke(runner, *RUN_128, *extra)
        assert res.exit_code == 0, res.output
        rows[extra] = json.loads(res.stdout)["results"][0]
    assert rows[()]["kv_cache_tokens"] == rows[("--tp-transport", "nvlink")]["kv_cache_tokens"]
    # log 128: 450,192 (452,112 with its FlashInfer sampler, as calibrate reads it); the CLI
    # takes a 0.10 release as pip installs it, without FlashInfer: the profiling sampler's sort,
    # 22 B a logit more over 256 x 152,064 logits = 856,424,448 B, 29,872 tokens less
    # (kvplan.engines.vllm_sort_sampler)
    assert rows[("--tp-transport", "host")]["kv_cache_tokens"] == 421_952
    assert rows[("--tp-transport", "pcie-p2p")]["non_torch_bytes"] == 1_090_519_040
    assert rows[("--tp-transport", "pcie-p2p", "--disable-custom-all-reduce")][
        "non_torch_bytes"] == GIB


def test_a_v1_file_sets_the_same(tmp_path: Path, runner) -> None:  # noqa: ANN001
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 422,240 -> 421,952
    doc = {"apiVersion": "kvplan/v1", "name": "no-p2p", "model": "qwen2-7b",
           "hardware": {"gpu": "a100-80gb"}, "parallel": {"tensor": 2},
           "engine": {"name": "vllm", "version": "0.10.1.1", "max_model_len": 16384,
                      "gpu_memory_utilization": 0.25, "tp_transport": "host"},
           "traffic": {"peak_concurrent_users": 10, "context_tokens": {"mean": 2000}}}
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(doc))
    res = invoke(runner, "size", str(path), "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["results"][0]["kv_cache_tokens"] == 421_952  # pip: the sort
    doc["engine"]["tp_transport"] = "infiniband"
    path.write_text(yaml.safe_dump(doc))
    bad = invoke(runner, "size", str(path))
    assert bad.exit_code == 2 and "engine.tp_transport" in bad.output
    assert "'nvlink', 'pcie-p2p' or 'host'" in bad.output
    doc["engine"].update(name="sglang", tp_transport="host")
    doc["engine"].pop("version")
    path.write_text(yaml.safe_dump(doc))
    sg = invoke(runner, "size", str(path))
    assert sg.exit_code == 2
    assert "tp_transport host applies only to vllm, not sglang: kvplan's SGLang profile picks " \
        "its TP start-up term by the GPU label's NVLink form factor" in " ".join(sg.output.split())


@pytest.mark.parametrize(("engine", "why"), [
    ("sglang", "kvplan's SGLang profile picks its TP start-up term by the GPU label's NVLink "
               "form factor, not by transport"),
    ("trtllm", "its pool is a share of the free memory after start-up"),
    ("transformers", "it runs one process without NCCL"),
])
def test_other_engines_refuse_it_with_a_reason(runner, engine, why) -> None:  # noqa: ANN001
    res = invoke(runner, "size", "qwen2-7b", "--tp", "2", "--engine", engine,
                 "--tp-transport", "host")
    assert res.exit_code == 2
    line = " ".join(res.output.split())
    assert f"(--tp-transport): only vllm reads it, not {engine}: {why}" in line
    assert "Traceback" not in res.output
    with pytest.raises(InputError, match=f"applies only to vllm, not {engine}"):
        EngineSettings(engine=Engine(engine), tp_transport="host").check()
    with pytest.raises(InputError, match="tp_transport must be one of nvlink, pcie-p2p, host"):
        EngineSettings(engine=Engine.vllm, tp_transport="ib").check()


def test_a_flag_that_cannot_move_the_plan_is_refused(runner) -> None:  # noqa: ANN001
    one = invoke(runner, "size", "qwen2-7b", "--engine", "vllm", "--tp-transport", "host")
    assert one.exit_code == 2 and "tensor parallelism 1" in " ".join(one.output.split())
    host = invoke(runner, "size", "qwen2-7b", "--engine", "vllm", "--tp", "2",
                  "--tp-transport", "host", "--disable-custom-all-reduce")
    assert host.exit_code == 2
    assert "already runs without custom all-reduce" in " ".join(host.output.split())


def test_explain_names_the_transport_and_why(runner) -> None:  # noqa: ANN001
    base = ("qwen2-7b", "--gpu", "a100-80gb", "--tp", "2", "--engine", "vllm",
            "--engine-version", "0.10.1.1")

    def step(*extra: str) -> dict:
        steps = explain_steps(*base, *extra)
        return next(s for s in steps if s["label"] == "non-torch memory")

    unset, host = step(), step("--tp-transport", "host")
    assert unset["value"] == NVLINK_BEST and host["value"] == 70 * MIB
    assert "transport not stated: an NVLink module by the GPU label" in unset["formula"]
    assert "with TP buffers over host (stated: NCCL's buffers in host memory" in host["formula"]


def test_a_manifest_states_it_by_annotation_and_flag(tmp_path: Path) -> None:
    from tests.check.check_api import one_target
    from tests.check.test_check_engine_flags import vllm

    path = vllm(tmp_path, "--tensor-parallel-size", "2", "--disable-custom-all-reduce", gpus=2)
    path.write_text(path.read_text().replace(
        "  annotations:\n", "  annotations:\n    kvplan.io/tp-transport: pcie-p2p\n"))
    t = one_target(path)
    assert t.deployment.engine.tp_transport == "pcie-p2p"
    assert t.deployment.engine.disable_custom_all_reduce is True
    assert t.field_name("engine.tp_transport") == "kvplan.io/tp-transport"
    plain = one_target(vllm(tmp_path, "--tensor-parallel-size", "2", gpus=2))
    assert plain.deployment.engine.tp_transport is None
    assert plain.deployment.engine.disable_custom_all_reduce is None


def test_calibrate_reads_the_transport_from_the_log() -> None:
    # 128, 129: "lacks GPU P2P capability" (one node); 130: "spans across nodes", no GPUDirect
    runs = {p.name[:3]: parse_file(p).runs[0] for p in sorted(LOGS.glob("1[23][089]-vllm-*.log"))}
    assert vllm_transport(runs["128"]) == ("host", "the log prints vLLM's no-P2P warning")
    assert vllm_transport(runs["129"])[0] == "host"
    assert vllm_transport(runs["130"]) == ("host", "across nodes, no GPUDirect RDMA in the log")
    reports = {r.label[:3]: r for r in calibrate_files(
        [LOGS / n for n in sorted(p.name for p in LOGS.glob("1[23][0-9]-vllm-qwen2-7b-tp2-*"))])}
    # before the transport: -16.31%, -6.16%, -9.82% (the NVLink term of the SXM4 label); 130
    # +8.42% until vLLM 0.10's profiling sort was booked (its source prints the native fallback;
    # 128 and 129 print FlashInfer's line and keep the V1 sampler)
    got = {k: round(headline(r, "shapes").error_pct, 2) for k, r in reports.items()}
    # 0.43, 0.17, 1.19 before task h39rope booked the rotary cos/sin cache (8 MiB a GPU)
    assert got == {"128": 0.36, "129": 0.14, "130": 1.12}
    assert any("tp transport host (the log prints vLLM's no-P2P warning)" in " ".join(n.split())
               for n in reports["128"].notes)


def test_the_parser_rule_applies_to_any_log(tmp_path: Path) -> None:
    head = ("# source: synthetic (test)\n# kvplan: spec=qwen2-7b gpu=a100-80gb tp=2{extra}\n"
            "INFO [core.py:74] Initializing a V1 LLM engine (v0.10.1.1) with config: "
            "tensor_parallel_size=2, disable_custom_all_reduce={dcar}, enforce_eager=False\n")
    gdr = "NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
    cases = {("", "False", ""): (None, None), (" nodes=2", "False", ""): ("host", None),
             (" nodes=2", "True", gdr): (None, True), ("", "True", ""): (None, True)}
    for (extra, dcar, lines), (transport, off) in cases.items():
        path = tmp_path / "x.log"
        path.write_text(head.format(extra=extra, dcar=dcar) + lines)
        run = parse_file(path).runs[0]
        assert vllm_transport(run)[0] == transport, (extra, lines)
        from kvplan.calibrate.resolve import _settings

        s = _settings(run, Engine.vllm, "0.10.1.1")
        assert (s.tp_transport, s.disable_custom_all_reduce) == (transport, off)
