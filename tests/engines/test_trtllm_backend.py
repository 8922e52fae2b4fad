"""TensorRT-LLM's backend end to end (issue #13): `--trtllm-backend`, kvplan/v1
`engine.trtllm_backend` and a manifest's `trtllm-serve --backend` choose the PyTorch backend's
model (its outside-torch term, kvplan/engines/trtllm_pytorch.py) or the TensorRT engine path;
unstated, the release's default (pytorch from 1.0). Pools by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from kvplan.check import check_paths, read_targets
from kvplan.cli import app
from tests.check.test_check_engine_flags import manifest
from tests.conftest import size_record

# Qwen2.5-VL-7B on one L20 (log 142's settings: 0.21.0, fraction 0.6, max_num_tokens 1,700):
#   GPU memory 47,802,986,004 B (the L20 runtime total, 44.52 GiB);
#   weights 8,292,166,656 x 2 B = 16,584,333,312;
#   forward 1,700 x 67,584 x 2 B = 229,785,600; cell 28 x 4 x 128 x 2 x 2 B = 57,344 B
# pytorch: non-torch 1,617 MiB = 1,695,547,392; the 0.2x mrope cos/sin table 128,000 positions x
#   head_dim 128 x 4 B = 65,536,000 (trtllm_pytorch.mrope_table_bytes); free 29,227,783,700;
#   floor(0.6 x) = 17,536,670,220 // 57,344 = 305,815 -> 9,557 blocks of 32 = 305,824 tokens
# tensorrt: non-torch 768 MiB = 805,306,368, plus the C++ executor's runtime buffers and decoder
#   at max_batch_size 1 (trtllm_buffers: vocab 152,064 x (4 + 12) B + max_seq_len 1,800 x
#   (12 + 16) B = 2,483,424); floor(0.6 x free) // 57,344 = 315,789 -> 9,869 blocks of 32 =
#   315,808 tokens
L20 = ("qwen2.5-vl-7b", "--gpu", "l20", "--engine", "trtllm", "--engine-version", "0.21.0",
       "--free-gpu-memory-fraction", "0.6", "--max-batch-size", "1", "--max-num-tokens", "1700",
       "--max-seq-len", "1800")


def test_cli_backend_picks_the_non_torch_term() -> None:
    free = 47_802_986_004 - 16_584_333_312 - 229_785_600
    assert (free - 1_695_547_392 - 65_536_000) * 6 // 10 // 57_344 == 305_815
    buffers = 152_064 * (4 + 12) + 1_800 * (12 + 16)
    assert buffers == 2_483_424
    assert (free - 805_306_368 - buffers) * 6 // 10 // 57_344 == 315_789
    pytorch = size_record(*L20, "--trtllm-backend", "pytorch")
    assert (pytorch["kv_cache_tokens"], pytorch["non_torch_bytes"]) == (305_824, 1_695_547_392)
    tensorrt = size_record(*L20, "--trtllm-backend", "tensorrt")
    assert (tensorrt["kv_cache_tokens"], tensorrt["non_torch_bytes"]) == (315_808, 807_789_792)
    # unstated, 0.21 is a TensorRT engine release in kvplan's model
    assert size_record(*L20)["kv_cache_tokens"] == 315_808


def test_kvplan_v1_key_and_the_flag_over_it(tmp_path: Path) -> None:
    data = {"apiVersion": "kvplan/v1", "name": "vl", "model": "qwen2.5-vl-7b",
            "hardware": {"gpu": "l20"},
            "engine": {"name": "trtllm", "version": "0.21.0", "gpu_memory_utilization": 0.6,
                       "max_num_seqs": 1, "max_num_batched_tokens": 1700, "max_model_len": 1800,
                       "trtllm_backend": "pytorch"},
            "traffic": {"peak_concurrent_users": 1, "context_tokens": {"mean": 1000}}}
    path = tmp_path / "vl.yaml"
    path.write_text(yaml.safe_dump(data))
    assert size_record(str(path))["kv_cache_tokens"] == 305_824
    assert size_record(str(path), "--trtllm-backend", "tensorrt")["kv_cache_tokens"] == 315_808
    res = CliRunner().invoke(app, ["explain", str(path), "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    record = {f["field"]: (f["value"], f["from"]) for f in row["record"]}
    assert record["engine.trtllm_backend"] == ("pytorch", "file")
    steps = {st["label"]: st["value"] for st in row["steps"]}
    assert steps["non-torch memory"] == 1_695_547_392


def test_refusals() -> None:
    runner = CliRunner()
    for command in ("size", "fleet", "explain"):
        extra = ["--peak-users", "10"] if command == "fleet" else []
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "h100", "--engine", "trtllm",
                                  "--trtllm-backend", "autodeploy", *extra])
        assert res.exit_code == 2, res.output
        assert "engine.trtllm_backend (--trtllm-backend)" in res.output
        assert "'pytorch' or 'tensorrt'" in res.output
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "h100", "--engine", "trtllm",
                                  "--engine-version", "0.12.0", "--trtllm-backend", "pytorch",
                                  *extra])
        assert res.exit_code == 2, res.output
        assert "predates the PyTorch backend sizing kvplan has read" in res.output
        res = runner.invoke(app, [command, "llama-3.1-8b", "--gpu", "h100", "--engine", "vllm",
                                  "--trtllm-backend", "pytorch", *extra])
        assert res.exit_code == 2, res.output
        assert "only trtllm reads it, not vllm" in res.output
        assert "Traceback" not in res.output
    # a TensorRT engine's activation memory: refused on the PyTorch backend (stated on 0.21),
    # taken on the tensorrt backend of a 1.x release
    res = runner.invoke(app, ["size", *L20, "--trtllm-backend", "pytorch",
                              "--trt-activation-bytes", "1000000000"])
    assert res.exit_code == 2 and "modelled as the PyTorch backend (stated)" in res.output
    row = size_record("llama-3.1-8b", "--gpu", "h100", "--engine", "trtllm", "--engine-version", "1.2.1",
                "--trtllm-backend", "tensorrt", "--trt-activation-bytes", "1000000000")
    assert row["activation_bytes"] == 1_000_000_000


def test_manifest_backend_is_read_and_moves_the_pool(tmp_path: Path) -> None:
    # Llama-3.1-8B on an H100, trtllm-serve 1.2.0, --max_seq_len 8192 (weights 16,060,522,496,
    # forward 905,969,664): pytorch free 66,383,437,824 -> 455,840 tokens (59,747,860,480 B);
    # tensorrt 67,273,678,848 less the C++ executor's runtime buffers and decoder at the LLM API's
    # max_batch_size 2,048 (trtllm_buffers): 2,048 x (128,256 x (4 + 12) + 8,192 x (12 + 16)) =
    # 4,672,454,656 -> free 62,601,224,192; floor(0.9 x) // 131,072 = 429,848 -> 13,433 blocks of
    # 32 = 429,856 tokens (56,342,085,632 B)
    pools = {}
    for backend in ("pytorch", "tensorrt", None):
        args = ["--max_seq_len", "8192"] + (["--backend", backend] if backend else [])
        path = manifest(tmp_path, f"trt-{backend}", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                        ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"], args)
        [target] = read_targets(path, {})
        assert target.deployment is not None, target.problems
        assert target.deployment.engine.trtllm_backend == backend
        if backend:
            assert target.field_name("engine.trtllm_backend") == "--backend"
        [o] = check_paths([str(path)]).outcomes
        assert o.verdict == "PASS", (o.reasons, o.problems)
        pools[backend] = o.numbers.kv_pool_bytes
    assert pools == {"pytorch": 59_747_860_480, None: 59_747_860_480,
                     "tensorrt": 56_342_085_632}
    assert 2_048 * (128_256 * (4 + 12) + 8_192 * (12 + 16)) == 4_672_454_656
    assert (67_273_678_848 - 4_672_454_656) * 9 // 10 // 131_072 == 429_848


def test_a_backend_trtllm_serve_has_but_kvplan_does_not_model_is_an_error(tmp_path: Path) -> None:
    path = manifest(tmp_path, "trt-ad", "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
                    ["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"],
                    ["--backend", "_autodeploy"])
    [o] = check_paths([str(path)]).outcomes
    assert o.verdict == "ERROR"
    assert "'_autodeploy'" in o.problems[0].message
    assert "'pytorch' or 'tensorrt'" in o.problems[0].message
