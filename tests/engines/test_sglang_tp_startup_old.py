"""SGLang 0.4.2-0.4.3 at tensor parallelism > 2 without NVLink: the start-up term (task h34sglang).

Read in the 0.4.2, 0.4.3 and 0.4.3.post4 wheels: custom all-reduce returns before building any
buffer at world_size > 2 without full NVLink (distributed/device_communicators/custom_all_reduce.py
:194 in 0.4.2, :235 in 0.4.3.post4, "not supported on more than two PCIe-only GPUs"), so the memory
used before "Load weight begin" is the CUDA context and NCCL's communicators. Fit log 14 (4x L4,
TP 4) prints NCCL's share, "Init torch distributed ends. mem usage=0.13 GB" (133 MiB), and its
whole start-up, 22,478 MiB - 21.63 GiB = 329 MiB. kvplan books the one-GPU term (400 MiB) + 133
MiB, range 329 MiB (high pool) to the 900 MiB TP term (low pool).

Arithmetic below by hand for Qwen2.5-32B (32,763,876,352 parameters, 64 layers, 8 KV heads x 128)
at TP 4 on RTX 3090s (25,327,697,920 B, hardware_specs/rtx-3090.yaml), SGLang's default 0.85:
weights 32,763,876,352 x 2 B / 4 = 16,381,938,176 + 290 MiB (304,087,040) = 16,686,025,216 B;
cell 64 x 2 KV heads x 128 x 2 x 2 B = 65,536 B.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

MIB = 1 << 20
MEMORY = 25_327_697_920
WEIGHTS = 16_686_025_216
CELL = 65_536


def _tokens(startup: int) -> int:
    free = MEMORY - startup
    return (free - WEIGHTS - free * 15 // 100) // CELL


def test_hand_arithmetic() -> None:
    # 400 + 133 MiB = 558,891,008 B: free 24,768,806,912; floor(x 0.15) = 3,715,321,036;
    # 24,768,806,912 - 16,686,025,216 - 3,715,321,036 = 4,367,460,660 B // 65,536 = 66,642
    assert (400 + 133) * MIB == 558_891_008
    assert 24_768_806_912 * 15 // 100 == 3_715_321_036
    assert _tokens(558_891_008) == 4_367_460_660 // CELL == 66_642
    # 900 MiB: free 24,383,979,520, held 3,657,596,928, 4,040,357,376 B -> 61,650
    assert _tokens(900 * MIB) == 4_040_357_376 // CELL == 61_650
    # 329 MiB: free 24,982,716,416, held 3,747,407,462, 4,549,283,738 B -> 69,416
    assert _tokens(329 * MIB) == 4_549_283_738 // CELL == 69_416


def _explain(*argv: str) -> dict[str, tuple[float, str]]:
    res = CliRunner().invoke(app, ["explain", "qwen2.5-32b", "--engine", "sglang", *argv,
                                   "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return {s["label"]: (s["value"], s["formula"]) for s in row["steps"]}


def test_explain_books_the_one_gpu_term_and_nccl_on_042() -> None:
    steps = _explain("--gpu", "rtx-3090", "--tp", "4", "--engine-version", "0.4.2")
    assert steps["start-up use"][0] == 558_891_008
    assert "no custom all-reduce" in steps["start-up use"][1]
    assert steps["free before weights"][0] == 24_768_806_912
    assert steps["weights"][0] == WEIGHTS
    assert steps["held back"][0] == 3_715_321_036
    assert steps["KV cache memory"][0] == 4_367_460_660
    assert steps["max_total_num_tokens"][0] == 66_642


@pytest.mark.parametrize(("argv", "startup"), [
    # 0.4.4 and 0.5 releases were not read for this: the 900 MiB TP term
    (("--gpu", "rtx-3090", "--tp", "4", "--engine-version", "0.4.4"), 900 * MIB),
    (("--gpu", "rtx-3090", "--tp", "4", "--engine-version", "0.4.1"), 900 * MIB),
    # TP 2 may build custom all-reduce (P2P): not covered by the rule
    (("--gpu", "rtx-3090", "--tp", "2", "--engine-version", "0.4.2"), 900 * MIB),
    # one GPU: the one-GPU term alone
    (("--gpu", "rtx-3090", "--engine-version", "0.4.2"), 400 * MIB),
])
def test_other_releases_and_tp_keep_their_terms(argv: tuple[str, ...], startup: int) -> None:
    steps = _explain(*argv)
    assert steps["start-up use"][0] == startup
    assert "no custom all-reduce" not in steps["start-up use"][1]


def test_the_range_spans_329_to_900_mib() -> None:
    req = SizeRequest(model=load_model("qwen2.5-32b"), gpu=load_hardware("rtx-3090"),
                      context_tokens=131_072, kv_dtype=DType.bf16, tp=4)
    r = run_engine(req, EngineSettings(engine=Engine.sglang, version="0.4.3"))
    assert (r.kv_cache_tokens_low, r.kv_cache_tokens, r.kv_cache_tokens_high) == (
        61_650, 66_642, 69_416)
    assert (r.kv_cache_bytes_low, r.kv_cache_bytes_high) == (61_650 * CELL, 69_416 * CELL)
    # log 136 (0.4.2, TP 4 on four 3090s) logs 67,772 tokens, inside the range
    assert r.kv_cache_tokens_low <= 67_772 <= r.kv_cache_tokens_high
