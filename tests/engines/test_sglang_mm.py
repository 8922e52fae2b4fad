"""SGLang's multimodal runtime reservation (task h81sglmm; kvplan/engines/sglang_mm.py).

From 0.5.18 `_profile_available_bytes` takes rest = free now - slack - mm_runtime_reservation_gb
(mem_cache/kv_cache_configurator.py :1789 in the 0.5.18 wheel, :3038 in 0.5.23): a multimodal
model's SGLANG_VLM_CACHE_SIZE_MB (100 MiB) plus SGLANG_MM_FEATURE_CACHE_MB (1,024 MiB) when
--mm-feature-transport is cuda_ipc or cuda_vmm; from 0.5.20 Qwen3-VL on a Hopper GPU of 60 GiB
or more drops the embedding cache and picks cuda_ipc (qwen3_vl.py
_qwen3vl_hopper_serving_overrides), 3,072 MiB at --max-running-requests 400 or more. Pools by
hand below; every figure is integer arithmetic on the catalog's shapes.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from kvplan.check import check_paths, read_targets
from kvplan.cli import app
from tests.conftest import size_record, step_values

MIB = 1 << 20
# One H100 SXM (hardware_specs/h100-sxm-80gb.yaml: 85,045,477,376 B, nvidia-smi 81,559 MiB),
# start-up use 400 MiB: free before weights = 85,045,477,376 - 419,430,400 = 84,626,046,976
FREE_BEFORE = 84_626_046_976
# Qwen3-VL-8B (model_specs/qwen3-vl-8b.yaml, model_type qwen3_vl): 8,767,123,696 params x 2 B
#   + 64 MiB of load-time buffers = 17,601,356,256; free after = 67,024,690,720
#   cell = 36 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 147,456 B
Q3_AFTER, Q3_CELL = 67_024_690_720, 147_456
# Qwen2.5-VL-7B (model_type qwen2_5_vl): 8,292,166,656 x 2 + 64 MiB = 16,651,442,176;
#   free after = 67,974,604,800; cell = 28 layers x 4 x 128 x 2 x 2 B = 57,344 B
Q25_AFTER, Q25_CELL = 67_974_604_800, 57_344
# default mem_fraction_static 0.835 (60-90 GiB tier; no prefill graphs for a multimodal model):
#   held = floor(84,626,046,976 x 0.165) = 13,963,297,751; at 0.85 floor(x 0.15) = 12,693,907,046
HELD_DEFAULT, HELD_085 = 13_963_297_751, 12_693_907_046
Q3 = ("qwen3-vl-8b", "--gpu", "h100", "--engine", "sglang", "--context", "8192")


def test_hand_arithmetic() -> None:
    assert FREE_BEFORE * 165 // 1000 == HELD_DEFAULT and FREE_BEFORE * 15 // 100 == HELD_085
    # no reservation: (67,024,690,720 - 13,963,297,751) // 147,456 = 359,845
    assert (Q3_AFTER - HELD_DEFAULT) // Q3_CELL == 359_845
    # 1,024 MiB: 51,987,651,145 // 147,456 = 352,563; 100 MiB: 359,134; 3,072 MiB: 338,000
    assert (Q3_AFTER - HELD_DEFAULT - 1024 * MIB) // Q3_CELL == 352_563
    assert (Q3_AFTER - HELD_DEFAULT - 100 * MIB) // Q3_CELL == 359_134
    assert (Q3_AFTER - HELD_DEFAULT - 3072 * MIB) // Q3_CELL == 338_000


def test_qwen3_vl_on_hopper_reserves_the_ipc_pool() -> None:
    # 0.5.23 (and 0.5.20 on): embedding cache 0, transport unset on one node -> cuda_ipc, so
    # 1,024 MiB; --mm-feature-transport cpu reserves nothing
    got = size_record(*Q3, "--engine-version", "0.5.23")
    assert got["kv_cache_tokens"] == 352_563
    assert any("multimodal reservation 1,024 MiB" in a and "cuda_ipc" in a
               for a in got["assumptions"])
    assert size_record(*Q3, "--engine-version", "0.5.20")["kv_cache_tokens"] == 352_563
    cpu = size_record(*Q3, "--engine-version", "0.5.23", "--mm-feature-transport", "cpu")
    assert cpu["kv_cache_tokens"] == 359_845
    assert any(a.startswith("--mm-feature-transport cpu: multimodal reservation 0 MiB")
               for a in cpu["assumptions"])
    # 400 running requests or more: SGLANG_MM_FEATURE_CACHE_MB set to 3,072
    many = size_record(*Q3, "--engine-version", "0.5.23", "--max-running-requests", "400")
    assert many["kv_cache_tokens"] == 338_000
    # 0.5.18-0.5.19 have no Qwen3-VL override: the 100 MiB embedding cache, cpu transport
    assert size_record(*Q3, "--engine-version", "0.5.19")["kv_cache_tokens"] == 359_134
    assert size_record(*Q3, "--engine-version", "0.5.18")["kv_cache_tokens"] == 359_134
    # 0.5.17 has no reservation at all
    old = size_record(*Q3, "--engine-version", "0.5.17")
    assert old["kv_cache_tokens"] == 359_845
    assert not any("multimodal reservation" in a for a in old["assumptions"])


def test_other_multimodal_models_and_text_models() -> None:
    base = ("qwen2.5-vl-7b", "--gpu", "h100", "--engine", "sglang", "--context", "8192",
            "--memory-utilization", "0.85", "--engine-version", "0.5.23")
    # rest = 67,974,604,800 - 12,693,907,046 = 55,280,697,754
    rest = Q25_AFTER - HELD_085
    assert rest == 55_280_697_754
    # 100 MiB (cpu): 55,175,840,154 // 57,344 = 962,190; cuda_ipc 1,124 MiB: 943,465
    assert (rest - 100 * MIB) // Q25_CELL == 962_190
    assert (rest - 1124 * MIB) // Q25_CELL == 943_465
    assert size_record(*base)["kv_cache_tokens"] == 962_190
    for transport in ("cuda_ipc", "cuda_vmm"):
        assert size_record(*base, "--mm-feature-transport", transport)["kv_cache_tokens"] == \
            943_465
    assert size_record(*base, "--mm-feature-transport", "cpu")["kv_cache_tokens"] == 962_190
    # a text-only model reserves nothing, and the stated transport says so
    text = ("llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--context", "8192",
            "--engine-version", "0.5.23")
    plain = size_record(*text)
    ipc = size_record(*text, "--mm-feature-transport", "cuda_ipc")
    assert plain["kv_cache_tokens"] == ipc["kv_cache_tokens"]
    assert any("a text-only model reserves nothing" in a for a in ipc["assumptions"])


def test_explain_steps() -> None:
    res = CliRunner().invoke(app, ["explain", *Q3, "--engine-version", "0.5.23", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    steps = step_values(row)
    assert steps["multimodal reservation"] == 1024 * MIB
    assert steps["KV cache memory"] == Q3_AFTER - HELD_DEFAULT - 1024 * MIB == 51_987_651_145
    assert steps["max_total_num_tokens"] == 352_563


def test_refusals() -> None:
    runner = CliRunner()
    for args, why in (
            (("qwen2.5-vl-7b", "--gpu", "mi300x", "--engine", "sglang", "--mm-feature-transport",
              "cuda_ipc"), "--mm-feature-transport=cuda_ipc requires NVIDIA CUDA"),
            (("qwen2.5-vl-7b", "--gpu", "h100", "--engine", "sglang", "--mm-feature-transport",
              "shm"), "engine.mm_feature_transport (--mm-feature-transport): Input should be 'cpu', "
              "'cuda_ipc' or 'cuda_vmm' (got 'shm')"),
            (("qwen2.5-vl-7b", "--gpu", "h100", "--engine", "vllm", "--mm-feature-transport",
              "cpu"), "only sglang reads it, not vllm")):
        res = runner.invoke(app, ["size", *args])
        assert res.exit_code == 2, res.output
        assert why in res.output, res.output
        assert "Traceback" not in res.output
    # on an AMD GPU the default (cpu) transport starts: 100 MiB
    #   MI300X: free before 206,141,652,992 - 419,430,400; weights 16,651,442,176; fraction 0.85
    before = 206_141_652_992 - 419_430_400
    want = (before - 16_651_442_176 - before * 15 // 100 - 100 * MIB) // Q25_CELL
    assert want == 2_757_177
    assert size_record("qwen2.5-vl-7b", "--gpu", "mi300x", "--engine", "sglang",
                       "--memory-utilization", "0.85", "--engine-version", "0.5.23",
                       "--context", "8192")["kv_cache_tokens"] == want


def test_kvplan_v1_key(tmp_path: Path) -> None:
    data = {"apiVersion": "kvplan/v1", "name": "vl", "model": "qwen2.5-vl-7b",
            "hardware": {"gpu": "h100"},
            "engine": {"name": "sglang", "version": "0.5.23", "max_model_len": 8192,
                       "gpu_memory_utilization": 0.85, "mm_feature_transport": "cuda_ipc"},
            "traffic": {"peak_concurrent_users": 10, "context_tokens": {"mean": 4000}}}
    path = tmp_path / "vl.yaml"
    path.write_text(yaml.safe_dump(data))
    assert size_record(str(path))["kv_cache_tokens"] == 943_465
    assert size_record(str(path), "--mm-feature-transport", "cpu")["kv_cache_tokens"] == 962_190
    data["engine"]["mm_feature_transport"] = "shm"
    path.write_text(yaml.safe_dump(data))
    res = CliRunner().invoke(app, ["size", str(path)])
    assert res.exit_code == 2 and "engine.mm_feature_transport" in res.output, res.output


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-vl
  annotations:
    kvplan.io/peak-concurrent-users: "10"
    kvplan.io/context-tokens-mean: "4000"
spec:
  replicas: 1
  selector:
    matchLabels: {{app: x}}
  template:
    metadata:
      labels: {{app: x}}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server"]
          args: {args}
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_manifest_flag_is_read(tmp_path: Path) -> None:
    got = {}
    for transport in ("cuda_ipc", "cpu", None):
        args = ["--model-path", "Qwen/Qwen2.5-VL-7B-Instruct", "--context-length", "8192",
                "--mem-fraction-static", "0.85"]
        if transport:
            args += ["--mm-feature-transport", transport]
        path = tmp_path / f"{transport}.yaml"
        path.write_text(POD.format(args=json.dumps(args)))
        [target] = read_targets(path, {})
        assert target.deployment is not None, target.problems
        assert target.deployment.engine.mm_feature_transport == transport
        [o] = check_paths([str(path)]).outcomes
        assert o.verdict == "PASS", (o.reasons, o.problems)
        got[transport] = o.numbers.kv_pool_bytes
    assert got["cuda_ipc"] == 943_465 * Q25_CELL
    assert got["cpu"] == got[None] == 962_190 * Q25_CELL


def test_settings_backstop_and_manifest_refusal(tmp_path: Path) -> None:
    import pytest

    from kvplan.engines import Engine, EngineSettings
    from kvplan.errors import InputError

    with pytest.raises(InputError, match="mm_feature_transport must be one of cpu, cuda_ipc"):
        EngineSettings(engine=Engine.sglang, mm_feature_transport="shm").check()
    # SGLang refuses cuda_ipc off NVIDIA CUDA (serving_hook.py :913 in 0.5.23): check says so
    args = ["--model-path", "Qwen/Qwen2.5-VL-7B-Instruct", "--context-length", "8192",
            "--mm-feature-transport", "cuda_ipc"]
    path = tmp_path / "amd.yaml"
    path.write_text(POD.format(args=json.dumps(args)).replace(
        "nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3",
        "amd.com/gpu.product-name: AMD_Instinct_MI300X").replace("nvidia.com/gpu: 1",
                                                                  "amd.com/gpu: 1"))
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "FAIL"
    assert o.reasons[0].startswith("--mm-feature-transport=cuda_ipc requires NVIDIA CUDA")


def test_sglang_speculative_flags_are_read(tmp_path: Path) -> None:
    # task h81sglmm noted these flags as moving the pool (not modelled); task h90sglspec reads
    # them (kvplan.engines.sglang_spec, tests/engines/test_sglang_spec.py): no note, no
    # "not used by kvplan's plan", and the draft resolved through the catalog
    args = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "8192",
            "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
            "meta-llama/Llama-3.2-1B-Instruct", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"]
    path = tmp_path / "spec.yaml"
    path.write_text(POD.format(args=json.dumps(args)))
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict in ("PASS", "WARN", "FAIL") and o.numbers is not None
    assert not any("--speculative" in n for n in o.notes)
